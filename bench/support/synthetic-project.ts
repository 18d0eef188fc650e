/**
 * Writes a synthetic TypeScript project: `files` modules of realistic size, a
 * tenth of them holding a @Webhook class, the rest plain code that imports
 * each other (as a real service's sources would).
 */
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export function writeSyntheticProject(dir: string, files: number, repoRoot: string): { decorated: number } {
  const write = (relative: string, content: string) => {
    mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    writeFileSync(path.join(dir, relative), content);
  };
  write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2023', strict: true }, include: ['src'] }));
  write('shaper.yaml', 'apiVersion: shaper-gen.io/v1alpha1\nkind: GeneratorConfig\nsources: ["src/**/*.ts"]\nhandlersModule: src/webhooks.generated.ts\n');
  // The repository's chart, so that `manifests` finds what the chart contract asks for.
  cpSync(path.join(repoRoot, 'charts/shaper-webhooks'), path.join(dir, 'charts/shaper-webhooks'), { recursive: true });
  // Both packages, as a user's project installs them: shaper-gen's CLI finds the generator in the project.
  mkdirSync(path.join(dir, 'node_modules', '@shaper-gen'), { recursive: true });
  symlinkSync(repoRoot, path.join(dir, 'node_modules', 'shaper-gen'), 'dir');
  symlinkSync(path.join(repoRoot, 'generator'), path.join(dir, 'node_modules', '@shaper-gen', 'generator'), 'dir');
  write('src/shared/groups.ts', "export const GROUP = 'shaper.io';\nexport enum Version { Alpha = 'v1alpha1', Beta = 'v1beta1' }\n");

  const decoratedEvery = 10;
  let decorated = 0;
  for (let i = 0; i < files; i++) {
    const pkg = `src/pkg${Math.floor(i / 100)}`;
    if (i % decoratedEvery === 0) {
      decorated++;
      write(`${pkg}/hook${i}.ts`, decoratedModule(i));
    } else {
      write(`${pkg}/mod${i}.ts`, plainModule(i));
    }
  }
  return { decorated };
}

function decoratedModule(i: number): string {
  const mutating = i % 20 === 0;
  const kind = mutating ? 'mutate' : 'validate';
  return `import { Webhook, type AdmissionContext, type KubernetesObject } from 'shaper-gen';
import { GROUP, Version } from '../shared/groups.js';

const rules = [{ groups: [GROUP], versions: [Version.Alpha], resources: ['widget${i}s'], operations: ['CREATE', 'UPDATE'] }] as const;

@Webhook({ path: '/${kind}-widget${i}', mutating: ${mutating}, rules, timeoutSeconds: ${(i % 29) + 1} })
export class Widget${i}Handler {
  ${mutating ? 'default(obj: KubernetesObject, _ctx: AdmissionContext) { obj.metadata ??= {}; }' : 'validateCreate(obj: KubernetesObject, _ctx: AdmissionContext) { return obj.metadata?.name ? [] : ["unnamed"]; }'}
}
`;
}

function plainModule(i: number): string {
  const dependency = i > 1 && i % 10 !== 1 ? `import { compute${i - 1} } from './mod${i - 1}.js';\n` : '';
  const call = dependency ? `compute${i - 1}(input.values.length)` : 'input.values.length';
  return `${dependency}
export interface Record${i} {
  readonly id: string;
  readonly values: readonly number[];
  readonly labels: Record<string, string>;
}

export function compute${i}(n: number): number {
  let total = 0;
  for (let k = 0; k < n; k++) total += (k * ${i}) % 7;
  return total;
}

export class Service${i} {
  private readonly cache = new Map<string, Record${i}>();

  get(id: string): Record${i} | undefined {
    return this.cache.get(id);
  }

  put(input: Record${i}): number {
    this.cache.set(input.id, input);
    return ${call};
  }

  summarize(): string {
    return [...this.cache.values()].map((r) => \`\${r.id}=\${r.values.join(',')}\`).join(';');
  }
}
`;
}
