/**
 * What `shaper-gen create conversion` writes for a kind declared in several
 * versions: `src/conversion/<kind>-conversion.ts`, a `@Conversion` class with
 * one `{ toHub, fromHub }` per version other than the hub, each copying every
 * field (the versions `create api` writes start alike; where they differ, the
 * compiler points at the copy to change), and its test converting an example
 * of each spoke to the hub and back through `convert()`.
 */
import path from 'node:path';
import type { KindVersion } from '../crd/kinds.js';
import { moduleSpecifier, type PlannedFile } from './api-plan.js';
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
      `// Copies every field: change what differs between ${k.version.name} and ${hub}, and keep what ${k.version.name} cannot hold (in an annotation) so that nothing is lost.`,
      `const ${k.version.name}: SpokeConversion<${alias(k.version.name)}, ${alias(hub)}> = {`,
      `  toHub: (spoke) => ({ ...spoke }),`,
      `  fromHub: (hub) => ({ ...hub }),`,
      '};',
    ]),
    '',
  ].join('\n');
  const test = [
    `import { convert } from 'shaper-gen/testing';`,
    `import { describe, expect, it } from 'vitest';`,
    imports,
    `import { ${className} } from './${lower}-conversion.js';`,
    '',
    `describe('${className}', () => {`,
    ...spokes.flatMap((k) => [
      `  it('converts a ${k.version.name} ${kind} to ${hub} and back without losing a field', () => {`,
      `    const ${k.version.name}: ${alias(k.version.name)} = { apiVersion: '${group}/${k.version.name}', kind: '${kind}', metadata: { name: 'example', namespace: 'default' }, spec: {} };`,
      `    const hub = convert<${alias(hub)}>(${className}, ${k.version.name}, '${group}/${hub}');`,
      `    expect(hub.apiVersion).toBe('${group}/${hub}');`,
      `    expect(convert(${className}, hub, '${group}/${k.version.name}')).toEqual(${k.version.name});`,
      '  });',
    ]),
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
