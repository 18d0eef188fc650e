/**
 * `@ValidatingPolicy` on built-in kinds: `object` typed from the kind's
 * schema in Kubernetes 1.37's API (shipped with the generator), so that a
 * misspelt field is a `file:line:col` error from `shaper-gen manifests`, as
 * it is for a CRD; expressions the API server accepts (int-or-string,
 * quantities, embedded metadata, maps, times) still compile.
 */
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadGeneratorConfig } from '../../../../generator/src/config.js';
import { formatDiagnostic } from '../../../../generator/src/diagnostics.js';
import { generateManifests } from '../../../../generator/src/manifests/manifests.js';
import { ConfigError } from '../../../../runtime/problems.js';
import { createFixtureProject, type FixtureProject } from '../../../support/fixture-project.js';

const POLICIES_FILE = 'charts/shaper-webhooks/templates/validating-admission-policies.yaml';
const IMPORT = "import { ValidatingPolicy } from 'shaper-gen';\n";
const DEPLOYMENTS = "[{ groups: ['apps'], versions: ['v1'], resources: ['deployments'], operations: ['CREATE', 'UPDATE'] }]";

let project: FixtureProject | undefined;
afterEach(() => {
  project?.remove();
  project = undefined;
});

async function generate(source: string): Promise<{ problems: string[]; policies: string[] }> {
  project = createFixtureProject({ 'src/policies.ts': source });
  const dir = project.dir;
  try {
    const result = await generateManifests(loadGeneratorConfig(undefined, dir));
    return { problems: [], policies: result.policies.map((p) => p.className) };
  } catch (error) {
    if (error instanceof ConfigError) return { problems: error.problems.map((d) => formatDiagnostic(d, dir)), policies: [] };
    throw error;
  }
}

const policy = (name: string, rules: string, expressions: readonly string[]) =>
  `@ValidatingPolicy({\n  rules: ${rules},\n  validations: [\n${expressions.map((e) => `    { expression: ${JSON.stringify(e)} },\n`).join('')}  ],\n})\nexport class ${name} {}\n`;

describe('a policy on a built-in kind', () => {
  it('refuses a misspelt Deployment field at its line and column, naming the schema, and writes nothing', async () => {
    const source = `${IMPORT}${policy('ReplicaLimit', DEPLOYMENTS, ['object.spec.replicas <= 5', 'object.spec.replica >= 1'])}`;
    const { problems } = await generate(source);
    expect(source.split('\n')[5]!.indexOf('replica >') + 1).toBe(32);
    expect(problems).toEqual([
      'src/policies.ts:6:32: validations[1].expression: CEL compilation failed at column 13: No such key: replica (object is deployments.apps/v1, typed from its schema)',
    ]);
    expect(existsSync(project!.file(POLICIES_FILE))).toBe(false);
  });

  it('refuses a wrong type: a Deployment’s replicas compared with a string', async () => {
    const { problems } = await generate(`${IMPORT}${policy('Wrong', DEPLOYMENTS, ["object.spec.replicas == 'three'"])}`);
    expect(problems).toEqual([
      'src/policies.ts:5:20: validations[0].expression: CEL compilation failed at column 1: no such overload: int == string (object is deployments.apps/v1, typed from its schema)',
    ]);
  });

  it('accepts what the API server accepts on Deployments, Pods, ConfigMaps and CronJobs', async () => {
    const source = [
      IMPORT,
      policy('DeploymentRules', DEPLOYMENTS, [
        'object.spec.replicas <= 5',
        "object.spec.template.metadata.labels['app'] == object.metadata.labels['app']",
        "object.spec.template.spec.containers.all(c, c.image.contains(':') && !c.image.endsWith(':latest'))",
        "object.spec.template.spec.containers.all(c, !has(c.resources.limits) || !('cpu' in c.resources.limits) || quantity(string(c.resources.limits['cpu'])).isLessThan(quantity('4')))",
        "object.spec.template.spec.containers.all(c, !has(c.resources.requests) || !('memory' in c.resources.requests) || quantity(c.resources.requests['memory']).isLessThan(quantity('1Gi')))",
        "!has(object.spec.strategy.rollingUpdate) || object.spec.strategy.rollingUpdate.maxSurge != '100%'",
        'object.spec.template.spec.containers.all(c, !has(c.ports) || c.ports.all(p, p.containerPort > 1024))',
        "!has(object.status) || !has(object.status.conditions) || object.status.conditions.all(c, c.type != '' && (!has(c.lastUpdateTime) || c.lastUpdateTime < timestamp('2100-01-01T00:00:00Z')))",
        '!has(object.spec.template.spec.securityContext) || object.spec.template.spec.securityContext.runAsNonRoot == true',
        'oldObject == null || object.metadata.creationTimestamp == oldObject.metadata.creationTimestamp',
        'oldObject == null || object.spec == oldObject.spec || object.spec.replicas != oldObject.spec.replicas',
        'object.spec.selector.matchLabels.all(k, object.spec.template.metadata.labels[k] == object.spec.selector.matchLabels[k])',
      ]),
      policy('PodRules', "[{ groups: [''], versions: ['v1'], resources: ['pods'], operations: ['CREATE'] }]", [
        'object.spec.containers.all(c, !has(c.livenessProbe) || !has(c.livenessProbe.httpGet) || c.livenessProbe.httpGet.port != 0)',
        '!has(object.spec.volumes) || object.spec.volumes.all(v, !has(v.hostPath))',
        "object.spec.?nodeSelector.orValue({}).all(k, k != 'forbidden')",
      ]),
      policy('ConfigMapRules', "[{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }]", [
        "!has(object.data) || !('password' in object.data)",
        "object.data.?mode.orValue('a') in ['a', 'b']",
        '!has(object.immutable) || object.immutable',
      ]),
      policy('CronJobRules', "[{ groups: ['batch'], versions: ['v1'], resources: ['cronjobs'], operations: ['CREATE'] }]", [
        "object.spec.schedule != '* * * * *'",
        'object.spec.jobTemplate.spec.template.spec.containers.size() <= 3',
      ]),
    ].join('');
    expect(await generate(source)).toEqual({ problems: [], policies: ['DeploymentRules', 'PodRules', 'ConfigMapRules', 'CronJobRules'] });
  });
});
