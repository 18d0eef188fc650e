import type { V1ConfigMap } from '@kubernetes/client-node';
import { runWebhook } from 'shaper-gen/testing';
import { describe, expect, it } from 'vitest';
import { ConfigMapValidator, OPT_IN_LABEL, OWNER_ANNOTATION } from './configmap-validator.js';

const configMap = (annotations?: Record<string, string>): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'team-a', labels: { [OPT_IN_LABEL]: 'true' }, ...(annotations && { annotations }) },
  data: { mode: 'fast' },
});

describe('/validate-configmap', () => {
  it('admits a ConfigMap that names its owner', async () => {
    const decision = await runWebhook(ConfigMapValidator, { object: configMap({ [OWNER_ANNOTATION]: 'team-a' }) });
    expect(decision.response).toEqual({ uid: decision.response.uid, allowed: true });
  });

  it('denies one without an owner, with the field the API server reports', async () => {
    const decision = await runWebhook(ConfigMapValidator, { operation: 'UPDATE', object: configMap(), oldObject: configMap() });
    expect(decision.allowed).toBe(false);
    expect(decision.code).toBe(422);
    expect(decision.causes).toEqual([
      { reason: 'FieldValueRequired', field: `metadata.annotations[${OWNER_ANNOTATION}]`, message: 'Required value: name the team that owns this ConfigMap' },
    ]);
  });
});
