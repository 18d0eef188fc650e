import type { V1Deployment } from '@kubernetes/client-node';
import { runWebhook } from 'shaper-gen/testing';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REVISION_HISTORY_LIMIT, DeploymentDefaulter } from './deployment-defaulter.js';

const deployment = (revisionHistoryLimit?: number): V1Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'team-a' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } },
    ...(revisionHistoryLimit !== undefined && { revisionHistoryLimit }),
  },
});

describe('/mutate-deployment', () => {
  it('bounds the revision history when unset', async () => {
    const decision = await runWebhook(DeploymentDefaulter, { object: deployment() });
    expect(decision.patch).toEqual([{ op: 'add', path: '/spec/revisionHistoryLimit', value: DEFAULT_REVISION_HISTORY_LIMIT }]);
  });

  it('keeps an explicit value and is idempotent', async () => {
    expect((await runWebhook(DeploymentDefaulter, { object: deployment(10) })).patch).toEqual([]);
    const first = await runWebhook(DeploymentDefaulter, { object: deployment() });
    expect((await runWebhook(DeploymentDefaulter, { object: first.patched! })).patch).toEqual([]);
  });
});
