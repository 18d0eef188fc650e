import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { runManifests } from '../../../../generator/src/manifests/run-manifests.js';
import { createFixtureProject, DEFAULT_SHAPER_YAML, type FixtureProject } from '../../../support/fixture-project.js';

const SOURCE = `import { MutatingPolicy, ValidatingPolicy, Webhook } from 'shaper-gen';
const rules = [{ groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE', 'UPDATE'] }] as const;

@Webhook({
  path: '/validate-widget',
  mutating: false,
  rules,
  namespaceSelector: { matchLabels: { team: 'a' } },
  objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
  matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
})
export class WidgetValidator { validateCreate() {} }

@Webhook({ path: '/mutate-widget', mutating: true, rules, configuration: 'defaults', reinvocationPolicy: 'IfNeeded' })
export class WidgetDefaulter { default() {} }

@ValidatingPolicy({ rules, validations: [{ expression: 'object.spec.size < 10', message: 'size {{ below }} 10' }], validationActions: ['Deny', 'Audit'] })
export class WidgetSizePolicy {}

@MutatingPolicy({ rules, mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'sized': 'yes'}}}" } }] })
export class WidgetLabelPolicy {}
`;

const RULE = { apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['widgets'], scope: '*' };
const MATCH = { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [RULE] };
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

/** A webhook configuration of one webhook, as one static file holds it. */
const configuration = (kind: string, name: string, webhook: object) => [{ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks: [webhook] }];
/** A policy and its binding of the same name, as one static file holds them. */
const policyWithBinding = (kind: string, name: string, spec: object, bindingSpec: object = {}) => [
  { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, spec },
  { apiVersion: 'admissionregistration.k8s.io/v1', kind: `${kind}Binding`, metadata: { name }, spec: { policyName: name, ...bindingSpec } },
];

let project: FixtureProject;
let error: MockInstance;
const printed = (spy: MockInstance) => spy.mock.calls.map((call) => call.join(' ')).join('\n');
/** Every file under the static directory, relative to it, with its YAML documents. */
const staticObjects = (dir = project.file('static')) =>
  Object.fromEntries(
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.yaml'))
      .sort()
      .map((file) => [file.split(path.sep).join('/'), parseAllDocuments(project.read(path.join('static', file))).map((doc) => doc.toJS() as unknown)]),
  );

beforeEach(() => {
  project = createFixtureProject({ 'src/widgets.ts': SOURCE, 'pki/ca.crt': PEM });
  vi.spyOn(console, 'log').mockImplementation(() => {});
  error = vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
  project.remove();
});

describe('shaper-gen manifests --static', () => {
  it('writes each webhook configuration and each policy with its binding, names suffixed, webhooks by URL, YAML without Helm escapes', async () => {
    expect(await runManifests({ static: 'static', staticUrl: 'https://hooks.example.com:9443/', staticCaBundle: 'pki/ca.crt' }, project.dir)).toBe(0);
    const caBundle = Buffer.from(PEM).toString('base64');
    expect(staticObjects()).toEqual({
      'mutating-policies/widget-label-policy.example.com.static.k8s.io.yaml': policyWithBinding('MutatingAdmissionPolicy', 'widget-label-policy.example.com.static.k8s.io', {
        failurePolicy: 'Fail',
        matchConstraints: MATCH,
        mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: "Object{metadata: Object.metadata{labels: {'sized': 'yes'}}}" } }],
        reinvocationPolicy: 'Never',
      }),
      'mutating-webhooks/shaper-webhooks-defaults.static.k8s.io.yaml': configuration('MutatingWebhookConfiguration', 'shaper-webhooks-defaults.static.k8s.io', {
        name: 'mutate-widget.example.com',
        admissionReviewVersions: ['v1'],
        clientConfig: { url: 'https://hooks.example.com:9443/mutate-widget', caBundle },
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        reinvocationPolicy: 'IfNeeded',
        rules: [RULE],
        sideEffects: 'None',
        timeoutSeconds: 10,
      }),
      'validating-policies/widget-size-policy.example.com.static.k8s.io.yaml': policyWithBinding(
        'ValidatingAdmissionPolicy',
        'widget-size-policy.example.com.static.k8s.io',
        { failurePolicy: 'Fail', matchConstraints: MATCH, validations: [{ expression: 'object.spec.size < 10', message: 'size {{ below }} 10' }] },
        { validationActions: ['Deny', 'Audit'] },
      ),
      'validating-webhooks/shaper-webhooks.static.k8s.io.yaml': configuration('ValidatingWebhookConfiguration', 'shaper-webhooks.static.k8s.io', {
        name: 'validate-widget.example.com',
        admissionReviewVersions: ['v1'],
        clientConfig: { url: 'https://hooks.example.com:9443/validate-widget', caBundle },
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        namespaceSelector: { matchLabels: { team: 'a' } },
        objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
        rules: [RULE],
        sideEffects: 'None',
        timeoutSeconds: 10,
        matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }],
      }),
    });
    // The chart is not this command's output.
    expect(existsSync(project.file('charts/shaper-webhooks/templates/validating-webhook-configuration.yaml'))).toBe(false);
  });

  it('is byte-identical on a second run, checks freshness with --check, and removes the file of a policy no longer declared', async () => {
    const flags = { static: 'static', staticUrl: 'https://hooks.example.com' };
    expect(await runManifests(flags, project.dir)).toBe(0);
    const first = staticObjects();
    const texts = Object.keys(first).map((file) => project.read(`static/${file}`));
    expect(await runManifests(flags, project.dir)).toBe(0);
    expect(Object.keys(first).map((file) => project.read(`static/${file}`))).toEqual(texts);
    expect(await runManifests({ ...flags, check: true }, project.dir)).toBe(0);

    project.write('src/widgets.ts', SOURCE.replace(/@MutatingPolicy[^\n]*\nexport class WidgetLabelPolicy \{\}\n/, ''));
    expect(await runManifests({ ...flags, check: true }, project.dir)).toBe(1);
    expect(printed(error)).toContain('static/mutating-policies/widget-label-policy.example.com.static.k8s.io.yaml: no longer generated');
    expect(await runManifests(flags, project.dir)).toBe(0);
    expect(Object.keys(staticObjects())).toEqual(Object.keys(first).filter((file) => !file.startsWith('mutating-policies/')));
  });

  it('takes the URL and the CA bundle from shaper.yaml when no flag names them', async () => {
    project.write('shaper.yaml', `${DEFAULT_SHAPER_YAML}static:\n  url: https://10.0.0.5:8443\n  caBundle: pki/ca.crt\n`);
    expect(await runManifests({ static: 'static' }, project.dir)).toBe(0);
    const validating = staticObjects()['validating-webhooks/shaper-webhooks.static.k8s.io.yaml'] as { webhooks: { clientConfig: unknown }[] }[];
    expect(validating[0]!.webhooks[0]!.clientConfig).toEqual({ url: 'https://10.0.0.5:8443/validate-widget', caBundle: Buffer.from(PEM).toString('base64') });
  });

  it('refuses paramKind and paramRef at the option, one line each with the fix, and writes nothing', async () => {
    const source = `import { ValidatingPolicy } from 'shaper-gen';
@ValidatingPolicy({
  rules: [{ groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE'] }],
  validations: [{ expression: 'object.spec.size < params.data.max' }],
  paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
  paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' },
})
export class LimitPolicy {}
`;
    project.write('src/widgets.ts', source);
    expect(await runManifests({ static: 'static', staticUrl: 'https://hooks.example.com' }, project.dir)).toBe(1);
    const why = 'static admission has no parameter objects (the API server loads static policies before any object exists)';
    expect(printed(error).split('\n')).toEqual([
      `src/widgets.ts:5:14: ${why}: write the parameters into the policy's expressions or \`variables\` and remove paramKind, or leave --static out`,
      `src/widgets.ts:6:13: ${why}: remove paramRef from the binding, or leave --static out`,
      'shaper-gen: 2 problems; nothing was written',
    ]);
    expect(existsSync(project.file('static'))).toBe(false);
    // The chart holds parameters: without --static the same source generates.
    expect(await runManifests({}, project.dir)).toBe(0);
  });

  it('needs a URL for the webhooks, an https one, a PEM CA bundle, and --static for their flags', async () => {
    expect(await runManifests({ static: 'static' }, project.dir)).toBe(1);
    expect(await runManifests({ static: 'static', staticUrl: 'http://hooks.example.com' }, project.dir)).toBe(1);
    expect(await runManifests({ static: 'static', staticUrl: 'https://hooks.example.com?x=1' }, project.dir)).toBe(1);
    writeFileSync(project.file('pki/not-a-ca.txt'), 'hello');
    expect(await runManifests({ static: 'static', staticUrl: 'https://hooks.example.com', staticCaBundle: 'pki/not-a-ca.txt' }, project.dir)).toBe(1);
    expect(await runManifests({ staticUrl: 'https://hooks.example.com' }, project.dir)).toBe(1);
    project.write('shaper.yaml', `${DEFAULT_SHAPER_YAML}static:\n  url: hooks.example.com\n`);
    expect(await runManifests({ static: 'static' }, project.dir)).toBe(1);
    expect(printed(error).split('\n')).toEqual([
      'shaper.yaml:1:1: static admission calls webhooks by URL, not through a Service: set --static-url https://<host>:<port> or static.url in shaper.yaml',
      'shaper-gen: 1 problem; nothing was written',
      "--static-url: http://hooks.example.com must be an https URL: the API server calls webhooks over 'https' only",
      'shaper-gen: 1 problem; nothing was written',
      "--static-url: https://hooks.example.com?x=1 must not have a query or a fragment: each webhook's path is appended to it",
      'shaper-gen: 1 problem; nothing was written',
      "pki/not-a-ca.txt:1:1: not a PEM bundle of CA certificates (no -----BEGIN CERTIFICATE-----): name the CA that signed the webhook server's certificate",
      'shaper-gen: 1 problem; nothing was written',
      '--static-url: is for static admission files: add --static <dir>',
      'shaper-gen: 1 problem; nothing was written',
      'shaper.yaml:6:8: static.url: must be a URL like https://webhooks.example.com:9443',
      'shaper-gen: 1 problem; nothing was written',
    ]);
    expect(existsSync(project.file('static'))).toBe(false);
  });
});
