// The import graph's rules (npm run lint): no circle between files, and the two
// packages meet only at their declared contracts.
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'A circle between modules: split out what both need.', from: {}, to: { circular: true } },
    {
      name: 'runtime-not-to-generator',
      severity: 'error',
      comment:
        'The runtime (shaper-gen) never imports the generator: a production image holds the runtime alone. runPolicy loads @shaper-gen/generator/policy by name, typed by runtime/policy/evaluator-contract.ts.',
      from: { path: '^(runtime|bin)/' },
      to: { path: '^(generator|templates)/' },
    },
    {
      name: 'generator-through-internal-contract',
      severity: 'error',
      comment:
        "The generator reaches the runtime only through the package's entry points: its public API (shaper-gen, shaper-gen/testing) and shaper-gen/internal/generator (runtime/internal/generator.ts), the list the two packages agree on.",
      from: { path: '^generator/' },
      to: { path: '^runtime/', pathNot: '^runtime/(internal/generator|index|testing/index)\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'types', 'default'] },
  },
};
