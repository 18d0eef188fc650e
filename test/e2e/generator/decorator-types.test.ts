/** The decorator's types reject a handler of the wrong shape in the editor, before any generator run. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFixtureProject, REPO_ROOT, type FixtureProject } from '../../support/fixture-project.js';

const RULES = "[{ groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['profiles'], operations: ['CREATE'] }]";
let project: FixtureProject;
let output: string;

beforeAll(() => {
  project = createFixtureProject({
    'src/good.ts': `import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { Webhook, type CustomDefaulter, type CustomValidator, type KubernetesObject } from 'shaper-gen';
@Webhook({ path: '/mutate-deployment', mutating: true, rules: ${RULES} })
export class DeploymentDefaulter implements CustomDefaulter<V1Deployment> { default(d: V1Deployment) { d.spec!.replicas ??= 1; } }
@Webhook({ path: '/validate-configmap', mutating: false, rules: ${RULES} })
export class ConfigMapValidator implements CustomValidator<V1ConfigMap> { validateCreate(c: V1ConfigMap) { return c.data ? [] : ['empty']; } }
@Webhook({ path: '/mutate-good', mutating: true, rules: ${RULES} })
export class GoodDefaulter implements CustomDefaulter { default(obj: KubernetesObject) { obj.metadata ??= {}; } }
@Webhook({ path: '/validate-good', mutating: false, rules: ${RULES} })
export class GoodValidator implements CustomValidator { validateDelete() { return ['deleting']; } }`,
    'src/bad.ts': `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/mutate-bad', mutating: true, rules: ${RULES} })
export class MissingDefault { validateCreate() {} }
@Webhook({ path: '/validate-bad', mutating: false, rules: ${RULES}, failurePolicy: 'Sometimes' })
export class BadPolicy { validateCreate() {} }
@Webhook({ path: '/validate-typo', mutating: false, rules: ${RULES}, timeoutSecond: 5 })
export class Typo { validateCreate() {} }`,
  });
  const tsc = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
  output = spawnSync(process.execPath, [tsc, '-p', '.', '--noEmit', '--pretty', 'false'], { cwd: project.dir, encoding: 'utf8' }).stdout;
}, 60_000);
afterAll(() => project.remove());

describe('@Webhook types', () => {
  it('accept well-formed defaulters and validators', () => {
    expect(output).not.toContain('src/good.ts');
  });

  it('accept @kubernetes/client-node models as the object type', () => {
    expect(output).not.toContain('src/good.ts');
  });

  it('reject an option key the schema does not know', () => {
    expect(output).toMatch(/^src\/bad\.ts\(6,\d+\): error TS2322: Type 'number' is not assignable to type 'never'\./m);
  });

  it('reject a mutating webhook class without default(), and option values outside the enums', () => {
    expect(output).toMatch(/^src\/bad\.ts\(2,2\): error TS1238: Unable to resolve signature of class decorator/m);
    expect(output).toContain("Property 'default' is missing in type 'MissingDefault' but required in type 'CustomDefaulter<any>'.");
    expect(output).toMatch(/^src\/bad\.ts\(4,\d+\): error TS2322: Type '"Sometimes"' is not assignable to type '"Fail" \| "Ignore" \| undefined'\./m);
  });
});
