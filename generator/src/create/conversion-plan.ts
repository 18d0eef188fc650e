/**
 * What `shaper-gen create conversion` writes for a kind declared in several
 * versions: `src/conversion/<kind>-conversion.ts`, a `@Conversion` class with
 * one `{ toHub, fromHub }` per version other than the hub, each copying every
 * field by name (conversion-mapping.ts: where the versions differ, or come to
 * differ, the compiler points at the line to change), and its test: the
 * round-trip property of every version through the hub, over objects
 * generated from the kind's CRD schemas (`roundTrip` of
 * `@shaper-gen/generator/testing`).
 */
import path from 'node:path';
import type { KindVersion } from '../crd/kinds.js';
import { moduleSpecifier, type PlannedFile } from './api-plan.js';
import { fieldCopy } from './conversion-mapping.js';
import { CreateApiError } from './api-request.js';

export interface ConversionRequest {
  readonly group: string;
  readonly kind: string;
  readonly hub: string;
}

export interface ConversionPlan {
  readonly className: string;
  readonly spokes: readonly string[];
  readonly files: readonly PlannedFile[];
}

export function planConversion(request: ConversionRequest, kinds: readonly KindVersion[], root: string): ConversionPlan {
  const { group, kind, hub } = request;
  const versions = kinds.filter((k) => k.group === group && k.names.kind === kind);
  if (versions.length === 0) {
    const declared = [...new Set(kinds.map((k) => `${k.names.kind} (${k.group})`))].join(', ') || 'none';
    throw new CreateApiError(`no kind ${kind} in group ${group} is declared in the generator's sources (kinds: ${declared}); add one with shaper-gen create api`);
  }
  const names = versions.map((k) => k.version.name);
  if (versions.length < 2) throw new CreateApiError(`${kind} has one version (${names[0]}): add another first, with shaper-gen create api --group ${group} --version <v> --kind ${kind}`);
  const hubVersion = versions.find((k) => k.version.name === hub);
  if (!hubVersion) throw new CreateApiError(`--hub: ${hub} is not a version of ${kind} (versions: ${names.join(', ')})`);
  const spokes = versions.filter((k) => k !== hubVersion);
  const lower = kind.toLowerCase();
  const dir = path.join(root, 'src', 'conversion');
  const className = `${kind}Conversion`;
  const alias = (version: string) => `${kind}${version[0]!.toUpperCase()}${version.slice(1)}`;
  const imports = [hubVersion, ...spokes].map((k) => `import type { ${kind} as ${alias(k.version.name)} } from '${moduleSpecifier(dir, k.file)}';`).join('\n');
  const spokeTypes = spokes.map((k) => `${k.version.name}: ${alias(k.version.name)}`).join('; ');
  const converter = [
    `import { Conversion, type Converter, type SpokeConversion } from 'shaper-gen';`,
    imports,
    '',
    `/** ${kind}: every version converts to and from ${hub}, the hub. */`,
    `@Conversion({ group: '${group}', kind: '${kind}', hub: '${hub}' })`,
    `export class ${className} implements Converter<${alias(hub)}, { ${spokeTypes} }> {`,
    `  readonly spokes = { ${spokes.map((k) => k.version.name).join(', ')} };`,
    '}',
    ...spokes.flatMap((k) => [
      '',
      `// Copies every field by name: where ${k.version.name} and ${hub} differ, the compiler points at the line to change; keep what ${k.version.name} cannot hold (in an annotation) so that nothing is lost.`,
      `const ${k.version.name}: SpokeConversion<${alias(k.version.name)}, ${alias(hub)}> = {`,
      // The return types are written out: TypeScript checks a returned object literal for fields its type lacks only then.
      `  toHub: (spoke): ${alias(hub)} => (${fieldCopy(k.version.schema, 'spoke', '  ')}),`,
      `  fromHub: (hub): ${alias(k.version.name)} => (${fieldCopy(hubVersion.version.schema, 'hub', '  ')}),`,
      '};',
    ]),
    '',
  ].join('\n');
  const test = [
    `import { roundTrip } from '@shaper-gen/generator/testing';`,
    `import { describe, expect, it } from 'vitest';`,
    `import { ${className} } from './${lower}-conversion.js';`,
    '',
    `describe('${className}', () => {`,
    `  // ${kind}s generated from each version's CRD schema (every field, bound and enum), through the hub and back: each must come back whole.`,
    `  it('converts every version to ${hub} and back without losing a field', async () => {`,
    `    const runs = await roundTrip(${className});`,
    `    expect(runs.map((run) => run.path).sort()).toEqual([${spokes
      .flatMap((k) => [`'${k.version.name} → ${hub} → ${k.version.name}'`, `'${hub} → ${k.version.name} → ${hub}'`])
      .sort()
      .join(', ')}]);`,
    '  }, 60_000);',
    '});',
    '',
  ].join('\n');
  return {
    className,
    spokes: spokes.map((k) => k.version.name),
    files: [
      { path: path.join(dir, `${lower}-conversion.ts`), content: converter },
      { path: path.join(dir, `${lower}-conversion.test.ts`), content: test },
    ],
  };
}
