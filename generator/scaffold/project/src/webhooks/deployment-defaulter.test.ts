import type { V1Deployment } from '@kubernetes/client-node';
import { runWebhook } from 'shaper-gen/testing';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REQUESTS, DeploymentDefaulter } from './deployment-defaulter.js';

const deployment = (requests?: Record<string, string>): V1Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'team-a' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'web:1', ...(requests && { resources: { requests } }) }] },
    },
  },
});

describe('/mutate-deployment', () => {
  it('gives a container without requests the default ones', async () => {
    const decision = await runWebhook(DeploymentDefaulter, { object: deployment() });
    expect(decision.patch).toEqual([{ op: 'add', path: '/spec/template/spec/containers/0/resources', value: { requests: DEFAULT_REQUESTS } }]);
  });

  it('keeps requests that are set, and is idempotent', async () => {
    expect((await runWebhook(DeploymentDefaulter, { object: deployment({ cpu: '1' }) })).patch).toEqual([]);
    const first = await runWebhook(DeploymentDefaulter, { object: deployment() });
    expect((await runWebhook(DeploymentDefaulter, { object: first.patched! })).patch).toEqual([]);
  });
});
