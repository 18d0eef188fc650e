// @ts-check
// ESLint with typescript-eslint's strict and stylistic type-aware rules (npm run lint, in npm test).
// Formatting is prettier's job (.prettierrc.json); nothing here is about layout.
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    // Build output; the chart and the generator's templates and scaffold are text the generator writes, not code.
    ignores: ['**/dist/', 'coverage/', 'bench/results/', 'charts/', 'generator/scaffold/', 'templates/'],
  },
  {
    files: ['**/*.ts', '**/*.js', '**/*.mjs'],
    extends: [eslint.configs.recommended, tseslint.configs.strictTypeChecked, tseslint.configs.stylisticTypeChecked],
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        // Each file is checked with the tsconfig.json nearest it (tsconfig.json, generator, test, bench);
        // vitest's configs at the root and scripts/*.ts are in none and get default compiler options.
        projectService: { allowDefaultProject: ['*.ts', 'scripts/*.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Size and shape: thresholds at this code's outliers (about its 99th percentile), not at a textbook number.
      complexity: ['error', { max: 20 }],
      'max-depth': ['error', { max: 4 }],
      'max-params': ['error', { max: 5 }],
      'max-statements': ['error', { max: 30 }],
      'max-nested-callbacks': ['error', { max: 4 }],

      // noUncheckedIndexedAccess types every indexed read as possibly undefined; `!` after a bounds check is how this code says "in range" without a runtime check.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // @kubernetes/client-node's models are classes written as object literals everywhere, and the HTTPS server's sockets are TLSSockets that node's types call net.Socket.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      // Numbers print the same in every template; String(n) around each would be noise.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `() => resolve(x)` and `return report(...)` in a function typed void are this code's early exits, not a confused value.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true, ignoreVoidReturningFunctions: true }],
      // Kubernetes sends '' for an unset string field: `||` on a string is how this code treats '' as absent.
      '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { string: true } }],
      // A leading underscore names a binding kept on purpose: a loop's counter, a property left out of a rest object.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Spreading a string to count or cut code points (runes, as Go and CEL count them) is what this code means by it.
      '@typescript-eslint/no-misused-spread': ['error', { allow: [{ from: 'lib', name: 'string' }] }],
      // Passing on a caught value (unknown) is not making up a non-Error; only-throw-error allows the same for a rethrow.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // An async method that implements a Promise-returning interface keeps a throw a rejection; without `async` it would throw at the call.
      '@typescript-eslint/require-await': 'off',
      // A class whose decorator is the whole declaration (`@ValidatingPolicy({...}) export class P {}`) is the handle tests and the generator use.
      '@typescript-eslint/no-extraneous-class': ['error', { allowWithDecorator: true }],
    },
  },
  {
    // Plain JavaScript has no types to check (and the build script imports dist/, which a clean tree does not have yet).
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // The admission hot path: single-pass scanners of the request body and the request handler, each kept one function so that a request costs no extra calls.
    files: ['runtime/webhook/admission/json-text.ts', 'runtime/webhook/admission/json-value.ts', 'runtime/webhook/admission/review.ts', 'runtime/server/admission-endpoint.ts'],
    rules: {
      complexity: ['error', { max: 30 }],
      'max-depth': ['error', { max: 5 }],
      'max-statements': ['error', { max: 45 }],
    },
  },
  {
    // A test's setup, a benchmark's main, the harness they share and a docs page's builder read top to bottom as the steps they take, each step a few lines.
    files: ['test/**', 'bench/**', 'support/**', 'scripts/docs/**'],
    rules: {
      complexity: ['error', { max: 30 }],
      'max-params': ['error', { max: 7 }],
      'max-statements': ['error', { max: 60 }],
    },
  },
  {
    files: ['test/**', 'sample/**/*.test.ts', 'bench/**', 'support/**'],
    rules: {
      // Tests and benchmarks (and the harness they share) read response bodies, parsed YAML and rendered manifests as any: assertions and tallies check their shape.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // No-op stubs, and handlers and classes that do nothing (a benchmark's floor), are what many tests need.
      '@typescript-eslint/no-empty-function': 'off',
      '@typescript-eslint/no-extraneous-class': 'off',
    },
  },
  {
    // support/ is what tests and benchmarks share; neither imports the other's files, and support/ imports neither.
    files: ['bench/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/test/**'], message: 'Benchmarks import shared helpers from support/, never from test/.' }] }] },
  },
  {
    files: ['test/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['**/bench/**'], message: 'Tests import shared helpers from support/, never from bench/.' }] }] },
  },
  {
    files: ['support/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/test/**', '**/bench/**'], message: 'support/ is shared by test/ and bench/ and imports neither.' }] }],
    },
  },
  {
    files: ['test/**', 'sample/**/*.test.ts'],
    rules: {
      // Fault tests throw and reject with non-Errors on purpose, to check what the runtime makes of them.
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
      // A test's rejection callback names the error shape it expects; a wrong shape fails the test.
      '@typescript-eslint/use-unknown-in-catch-callback-variable': 'off',
      // Tests reach a private member the way TypeScript allows it, with brackets.
      '@typescript-eslint/dot-notation': ['error', { allowPrivateClassPropertyAccess: true }],
      // describe, it and a helper's callback come before a test's own callbacks.
      'max-nested-callbacks': ['error', { max: 6 }],
    },
  },
);
