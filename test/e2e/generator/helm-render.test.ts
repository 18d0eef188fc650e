/**
 * The generated templates, rendered by the real (pinned) helm and parsed:
 * every webhook field checked under each chart setting that changes them.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runManifests } from '../../../generator/src/manifests/run-manifests.js';
import { createFixtureProject, type FixtureProject } from '../../support/fixture-project.js';
import { findObject, helmLint, helmTemplate, type K8sObject } from '../../support/helm.js';
import { createTestCA } from '../../../support/pki.js';

const HOOKS = `import { Webhook } from 'shaper-gen';
const rules = [{ groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['profiles', 'profiles/status'], operations: ['CREATE', 'UPDATE'], scope: 'Namespaced' }] as const;

@Webhook({
  path: '/validate-profile',
  mutating: false,
  name: 'validate-profile.shaper.io',
  rules,
  failurePolicy: 'Ignore',
  sideEffects: 'NoneOnDryRun',
  timeoutSeconds: 5,
  matchPolicy: 'Exact',
  admissionReviewVersions: ['v1', 'v1beta1'],
  namespaceSelector: { matchLabels: { 'shaper.io/enabled': 'true' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold', 'silver'] }] },
  objectSelector: { matchExpressions: [{ key: 'shaper.io/skip', operator: 'DoesNotExist' }] },
  matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:') && object.metadata.name != '{{x}}'" }],
})
export class ProfileValidator { validateCreate() {} }

@Webhook({ path: '/mutate-profile', mutating: true, name: 'mutate-profile.shaper.io', rules, reinvocationPolicy: 'IfNeeded' })
export class ProfileDefaulter { default() {} }

@Webhook({ path: '/mutate-pod', mutating: true, name: 'mutate-pod.shaper.io', configuration: 'pods',
  rules: [{ groups: [''], versions: ['v1'], resources: ['pods'], operations: ['CREATE'] }],
  namespaceSelector: { matchLabels: { team: 'a' } } })
export class PodDefaulter { default() {} }
`;

let project: FixtureProject;
let chart: string;

beforeAll(async () => {
  project = createFixtureProject({ 'src/hooks.ts': HOOKS });
  chart = project.file('charts/shaper-webhooks');
  vi.spyOn(console, 'log').mockImplementation(() => {});
  expect(await runManifests({}, project.dir)).toBe(0);
  vi.restoreAllMocks();
});
afterAll(() => project.remove());

const webhooksOf = (objects: K8sObject[], kind: string, name: string) => findObject(objects, kind, name).webhooks as any[];

describe('generated webhook configurations rendered by helm', () => {
  it('pass helm lint --strict', async () => {
    await expect(helmLint(chart)).resolves.toContain('1 chart(s) linted, 0 chart(s) failed');
  });

  it('render every field with cert-manager and the in-cluster Service (defaults)', async () => {
    const objects = await helmTemplate(chart, { release: 'shaper', namespace: 'shaper-system' });
    const validating = findObject(objects, 'ValidatingWebhookConfiguration', 'shaper-shaper-webhooks');
    expect(validating.apiVersion).toBe('admissionregistration.k8s.io/v1');
    expect(validating.metadata.annotations).toEqual({ 'cert-manager.io/inject-ca-from': 'shaper-system/shaper-shaper-webhooks-serving-cert' });
    expect(validating.metadata.labels).toMatchObject({ 'app.kubernetes.io/instance': 'shaper', 'app.kubernetes.io/name': 'shaper-webhooks' });
    expect(validating.webhooks).toEqual([
      {
        name: 'validate-profile.shaper.io',
        admissionReviewVersions: ['v1', 'v1beta1'],
        clientConfig: { service: { name: 'shaper-shaper-webhooks', namespace: 'shaper-system', port: 443, path: '/validate-profile' } },
        failurePolicy: 'Ignore',
        matchPolicy: 'Exact',
        namespaceSelector: {
          matchLabels: { 'shaper.io/enabled': 'true' },
          matchExpressions: [
            { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['shaper-system', 'kube-system'] },
            { key: 'tier', operator: 'In', values: ['gold', 'silver'] },
          ],
        },
        objectSelector: { matchExpressions: [{ key: 'shaper.io/skip', operator: 'DoesNotExist' }] },
        rules: [{ apiGroups: ['shaper.io'], apiVersions: ['v1alpha1'], operations: ['CREATE', 'UPDATE'], resources: ['profiles', 'profiles/status'], scope: 'Namespaced' }],
        sideEffects: 'NoneOnDryRun',
        timeoutSeconds: 5,
        // A literal "{{" in a value survives Helm's template engine.
        matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:') && object.metadata.name != '{{x}}'" }],
      },
    ]);

    const mutating = webhooksOf(objects, 'MutatingWebhookConfiguration', 'shaper-shaper-webhooks');
    expect(mutating).toEqual([
      {
        name: 'mutate-profile.shaper.io',
        admissionReviewVersions: ['v1'],
        clientConfig: { service: { name: 'shaper-shaper-webhooks', namespace: 'shaper-system', port: 443, path: '/mutate-profile' } },
        failurePolicy: 'Fail',
        matchPolicy: 'Equivalent',
        namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['shaper-system', 'kube-system'] }] },
        reinvocationPolicy: 'IfNeeded',
        rules: [{ apiGroups: ['shaper.io'], apiVersions: ['v1alpha1'], operations: ['CREATE', 'UPDATE'], resources: ['profiles', 'profiles/status'], scope: 'Namespaced' }],
        sideEffects: 'None',
        timeoutSeconds: 10,
      },
    ]);
    const pods = findObject(objects, 'MutatingWebhookConfiguration', 'shaper-shaper-webhooks-pods');
    expect(pods.metadata.annotations).toEqual({ 'cert-manager.io/inject-ca-from': 'shaper-system/shaper-shaper-webhooks-serving-cert' });
    expect((pods.webhooks as any[]).map((w) => [w.name, w.namespaceSelector])).toEqual([
      ['mutate-pod.shaper.io', { matchLabels: { team: 'a' }, matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['shaper-system', 'kube-system'] }] }],
    ]);
  });

  it('use caBundle from values when cert-manager is off', async () => {
    const caBundle = Buffer.from((await createTestCA()).cert).toString('base64');
    const objects = await helmTemplate(chart, { set: { 'certManager.enabled': false, 'webhook.caBundle': caBundle } });
    const validating = findObject(objects, 'ValidatingWebhookConfiguration');
    expect(validating.metadata.annotations).toBeUndefined();
    expect(webhooksOf(objects, 'ValidatingWebhookConfiguration', validating.metadata.name)[0].clientConfig).toEqual({
      service: { name: 'shaper-shaper-webhooks', namespace: 'shaper-system', port: 443, path: '/validate-profile' },
      caBundle,
    });
  });

  it('refuse at render what the API server would refuse at install: a URL with user information, query or fragment, a caBundle that is not base64 PEM', async () => {
    const renderError = (set: Record<string, unknown>) =>
      helmTemplate(chart, { set }).then(
        () => 'rendered',
        (error: { stderr: string }) => error.stderr.trim(),
      );
    for (const url of [
      'http://webhooks.example.com',
      'https://user:pw@webhooks.example.com',
      'https://webhooks.example.com/?x=1',
      'https://webhooks.example.com/#frag',
      'https://',
      'https://host/a b',
    ]) {
      expect(await renderError({ 'webhook.url': url }), url).toMatch(
        /^Error: values don't meet the specifications of the schema\(s\) in the following chart\(s\):\nshaper-webhooks:\n- at '\/webhook\/url': '.*' does not match pattern/,
      );
    }
    expect(await renderError({ 'webhook.url': 'https://webhooks.example.com:8443/base' })).toBe('rendered');
    expect(await renderError({ 'certManager.enabled': false, 'webhook.caBundle': 'not-base64' })).toMatch(/- at '\/webhook\/caBundle': 'not-base64' does not match pattern/);
    expect(await renderError({ 'certManager.enabled': false, 'webhook.caBundle': 'Q0EK' })).toMatch(
      /^Error: execution error at \(shaper-webhooks\/templates\/(validating|mutating)-webhook-configuration.yaml:\d+:\d+\): webhook.caBundle must be the base64 of a PEM bundle of CA certificates \(-----BEGIN CERTIFICATE-----\)\n/,
    );
  });

  it('name kube-system once in the deadlock guard when installed there', async () => {
    const objects = await helmTemplate(chart, { namespace: 'kube-system' });
    expect(webhooksOf(objects, 'MutatingWebhookConfiguration', 'shaper-shaper-webhooks')[0].namespaceSelector).toEqual({
      matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }],
    });
  });

  it('call an out-of-cluster URL when webhook.url is set', async () => {
    const objects = await helmTemplate(chart, { set: { 'webhook.url': 'https://webhooks.example.com:8443/' } });
    const urls = objects.filter((o) => o.kind.endsWith('WebhookConfiguration')).flatMap((o) => (o.webhooks as any[]).map((w) => w.clientConfig));
    expect(urls).toEqual([
      { url: 'https://webhooks.example.com:8443/mutate-profile' },
      { url: 'https://webhooks.example.com:8443/mutate-pod' },
      { url: 'https://webhooks.example.com:8443/validate-profile' },
    ]);
  });

  it('drop the deadlock guard when webhook.excludeSystemNamespaces is false, keeping the handler selector', async () => {
    const objects = await helmTemplate(chart, { set: { 'webhook.excludeSystemNamespaces': false } });
    expect(webhooksOf(objects, 'ValidatingWebhookConfiguration', 'shaper-shaper-webhooks')[0].namespaceSelector).toEqual({
      matchLabels: { 'shaper.io/enabled': 'true' },
      matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold', 'silver'] }],
    });
    expect(webhooksOf(objects, 'MutatingWebhookConfiguration', 'shaper-shaper-webhooks')[0]).not.toHaveProperty('namespaceSelector');
    expect(webhooksOf(objects, 'MutatingWebhookConfiguration', 'shaper-shaper-webhooks-pods')[0].namespaceSelector).toEqual({ matchLabels: { team: 'a' } });
  });
});
