import type { V1ConfigMap } from '@kubernetes/client-node';
import { runPolicy } from 'shaper-gen/testing';
import { describe, expect, it } from 'vitest';
import { ConfigMapTeamPolicy, OPT_IN_LABEL, TEAM_LABEL } from './configmap-team-policy.js';

const configMap = (labels: Record<string, string>): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'team-a', labels },
  data: { mode: 'fast' },
});

describe('ConfigMapTeamPolicy', () => {
  it('denies an opted-in ConfigMap without a team label, as the API server words it', async () => {
    const decision = await runPolicy(ConfigMapTeamPolicy, { object: configMap({ [OPT_IN_LABEL]: 'true' }) });
    expect(decision).toEqual({
      matched: true,
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message: `configmaps "settings" is forbidden: ValidatingAdmissionPolicy 'config-map-team-policy' with binding 'config-map-team-policy' denied request: ConfigMaps labelled ${OPT_IN_LABEL}=true must name their team in the label ${TEAM_LABEL}`,
      warnings: [],
      auditAnnotations: {},
    });
  });

  it('admits one that names its team, and leaves ConfigMaps that did not opt in alone', async () => {
    expect((await runPolicy(ConfigMapTeamPolicy, { object: configMap({ [OPT_IN_LABEL]: 'true', [TEAM_LABEL]: 'team-a' }) })).allowed).toBe(true);
    const other = await runPolicy(ConfigMapTeamPolicy, { object: configMap({}) });
    expect([other.matched, other.allowed]).toEqual([false, true]);
  });
});
