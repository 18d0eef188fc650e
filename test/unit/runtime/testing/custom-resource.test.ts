/**
 * validateCustomResource: a custom resource created or updated against its CRD as kube-apiserver 1.37 answers it
 * (apiextensions-apiserver's own code in the CEL engine; test/cluster/crd-differential.test.ts compares it with
 * the real API server), and runWebhook handing a custom resource's handler the object its CRD defaults.
 */
import { describe, expect, it } from 'vitest';
import { Webhook, type CustomDefaulter, type KubernetesObject } from 'shaper-gen';
import { runWebhook, validateCustomResource, type CustomResourceCause } from 'shaper-gen/testing';
import { WIDGET_CRD } from '../../../fixtures/runtime/widget-crd.js';

const widget = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'shop' },
  spec,
  ...extra,
});

/** A refusal as validateCustomResource returns it: the API server's Status, its message and causes repeated. */
function refusal(name: string, group: string, kind: string, causes: CustomResourceCause[]) {
  const texts = causes.map((cause) => `${cause.field}: ${cause.message}`);
  const message = `${kind}.${group} "${name}" is invalid: ${texts.length === 1 ? texts[0] : `[${texts.join(', ')}]`}`;
  return {
    allowed: false,
    code: 422,
    reason: 'Invalid',
    message,
    causes,
    status: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Invalid', details: { name, group, kind, causes }, code: 422 },
    warnings: [],
  };
}

/**
 * The schema validator visits a struct's properties in Go map order, which differs from run to run (on the API
 * server too): a refusal with causes in several fields is compared with its causes in one order, the message rebuilt.
 */
function inFieldOrder(result: Awaited<ReturnType<typeof validateCustomResource>>, name: string, group: string, kind: string) {
  const causes = [...result.causes].sort((a, b) => (a.field === b.field ? 0 : a.field === '<nil>' ? 1 : b.field === '<nil>' ? -1 : a.field.localeCompare(b.field)));
  return { ...result, ...refusal(name, group, kind, causes), warnings: result.warnings };
}

const NOT_CHECKED = {
  reason: 'FieldValueInvalid',
  message: 'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  field: '<nil>',
};
const TOO_MANY = { reason: 'FieldValueForbidden', message: 'Forbidden: too many replicas for a small widget', field: 'spec.replicas' };

describe('validateCustomResource', () => {
  it('stores the object pruned and defaulted, each unknown field a warning, status dropped on create', async () => {
    const result = await validateCustomResource({ crd: WIDGET_CRD, object: widget({ replicas: 2, ports: [{ name: 'http' }], colour: 'red' }, { status: { ready: true } }) });
    expect(result).toEqual({
      allowed: true,
      code: 201,
      causes: [],
      object: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { generation: 1, name: 'w', namespace: 'shop' },
        spec: { maxReplicas: 5, ports: [{ name: 'http', port: 80 }], replicas: 2, size: 'small' },
      },
      warnings: ['unknown field "spec.colour"'],
    });
  });

  it('refuses with the Status, causes and field paths the API server writes; CEL rules wait for the schema', async () => {
    const refused = await validateCustomResource({ crd: WIDGET_CRD, object: widget({ replicas: 9, size: 'medium', contact: 'nobody', ports: [{ name: 'a' }, { name: 'a' }] }) });
    for (const cause of refused.causes) expect(refused.message).toContain(`${cause.field}: ${cause.message}`);
    expect(inFieldOrder(refused, 'w', 'example.com', 'Widget')).toEqual(
      refusal('w', 'example.com', 'Widget', [
        { reason: 'FieldValueTypeInvalid', message: 'Invalid value: "nobody": spec.contact in body must be of type email: "nobody"', field: 'spec.contact' },
        { reason: 'FieldValueDuplicate', message: 'Duplicate value: {"name":"a"}', field: 'spec.ports[1]' },
        { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 5 bytes', field: 'spec.size' },
        { reason: 'FieldValueNotSupported', message: 'Unsupported value: "medium": supported values: "small", "large"', field: 'spec.size' },
        NOT_CHECKED,
      ]),
    );
    expect(await validateCustomResource({ crd: WIDGET_CRD, object: widget({ replicas: 9 }) })).toEqual(refusal('w', 'example.com', 'Widget', [TOO_MANY]));
  });

  it('checks transition rules against the old object, and lets unchanged invalid fields through (ratcheting)', async () => {
    const old = widget({ replicas: 9, maxReplicas: 5, owner: 'ann', contact: 'nobody' });
    expect(await validateCustomResource({ crd: WIDGET_CRD, oldObject: old, object: widget({ replicas: 9, maxReplicas: 5, owner: 'bob', contact: 'nobody' }) })).toEqual(
      refusal('w', 'example.com', 'Widget', [TOO_MANY, { reason: 'FieldValueInvalid', message: 'Invalid value: "bob": owner is immutable', field: 'spec.owner' }]),
    );
    expect(await validateCustomResource({ crd: WIDGET_CRD, oldObject: old, object: { ...old, metadata: { ...old.metadata, labels: { team: 'a' } } } })).toEqual({
      allowed: true,
      code: 200,
      causes: [],
      object: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { generation: 1, labels: { team: 'a' }, name: 'w', namespace: 'shop' },
        spec: { contact: 'nobody', maxReplicas: 5, owner: 'ann', replicas: 9, size: 'small' },
      },
      warnings: ['spec.replicas: Forbidden: too many replicas for a small widget'],
    });
  });

  it("validates against a kind of the project's TypeScript sources, as manifests generates its CRD", async () => {
    const object = { apiVersion: 'shaper.io/v1alpha1', kind: 'Profile', metadata: { name: 'Gold', namespace: 'team' }, spec: { tier: 'platinum' } };
    const rfc1123 =
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    const expected = refusal('Gold', 'shaper.io', 'Profile', [
      { reason: 'FieldValueInvalid', message: `Invalid value: "Gold": ${rfc1123}`, field: 'metadata.name' },
      { reason: 'FieldValueNotSupported', message: 'Unsupported value: "platinum": supported values: "bronze", "silver", "gold"', field: 'spec.tier' },
    ]);
    expect(await validateCustomResource({ crd: { kind: 'Profile' }, object })).toEqual(expected);
    // Without crd: the project's CRD of the object's group and kind.
    expect(await validateCustomResource({ object })).toEqual(expected);
  });

  it('says which CRD is missing, in one line', async () => {
    await expect(validateCustomResource({ object: widget({}) })).rejects.toThrow(
      `validateCustomResource: the project at ${process.cwd()} declares no Widget in example.com (TypeScript kinds with @shaper: markers, shaper.yaml's crds); pass crd`,
    );
  });
});

type Widget = KubernetesObject & { spec?: Record<string, unknown> };

@Webhook({ path: '/mutate-widget', mutating: true, rules: [{ groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE'] }] })
class WidgetDefaulter implements CustomDefaulter<Widget> {
  default(widget: Widget): void {
    widget.metadata!.labels = { size: String(widget.spec?.size) };
  }
}

describe('runWebhook with a custom resource', () => {
  it('hands the handler the object its CRD prunes and defaults, as the API server sends it', async () => {
    const decision = await runWebhook(WidgetDefaulter, { object: widget({ colour: 'red' }) }, { crds: [WIDGET_CRD] });
    expect(decision.patch).toEqual([{ op: 'add', path: '/metadata/labels', value: { size: 'small' } }]);
    expect(decision.patched).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'shop', labels: { size: 'small' } },
      spec: { maxReplicas: 5, replicas: 1, size: 'small' },
    });
  });

  it('leaves the object as given with crds: []', async () => {
    const decision = await runWebhook(WidgetDefaulter, { object: widget({ colour: 'red' }) }, { crds: [] });
    expect(decision.patched).toEqual({ ...widget({ colour: 'red' }), metadata: { name: 'w', namespace: 'shop', labels: { size: 'undefined' } } });
  });
});
