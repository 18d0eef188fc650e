/** The test kit with a handler configured through its constructor: pass the instance, as the server is given it. */
import { describe, expect, it } from 'vitest';
import { runWebhook } from 'shaper-gen/testing';
import { ReplicaLimitValidator } from '../../../fixtures/runtime/configured-handler.js';

const deployment = (replicas: number) => ({ metadata: { name: 'web', namespace: 'shop' }, spec: { replicas } });

describe('runWebhook with a configured handler', () => {
  it('decides with the instance given', async () => {
    const strict = new ReplicaLimitValidator({ maxReplicas: 3 });
    const denied = await runWebhook(strict, { object: deployment(5) });
    const message = 'Deployment.apps "web" is invalid: spec.replicas: Invalid value: 5: must be at most 3';
    const cause = { reason: 'FieldValueInvalid', message: 'Invalid value: 5: must be at most 3', field: 'spec.replicas' };
    expect(denied).toEqual({
      allowed: false,
      code: 422,
      reason: 'Invalid',
      message,
      causes: [cause],
      warnings: [],
      patch: [],
      patched: undefined,
      response: {
        uid: denied.response.uid,
        allowed: false,
        status: { metadata: {}, status: 'Failure', code: 422, reason: 'Invalid', message, details: { name: 'web', group: 'apps', kind: 'Deployment', causes: [cause] } },
      },
    });
    expect((await runWebhook(new ReplicaLimitValidator({ maxReplicas: 5 }), { object: deployment(5) })).allowed).toBe(true);
  });

  it('refuses the class, which it would construct without its configuration', async () => {
    await expect(runWebhook(ReplicaLimitValidator as never, { object: deployment(5) })).rejects.toThrow(
      new TypeError('shaper-gen/testing: ReplicaLimitValidator declares constructor parameters: pass an instance, runWebhook(new ReplicaLimitValidator(…), …)'),
    );
  });
});
