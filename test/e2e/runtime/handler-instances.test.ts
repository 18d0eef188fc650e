/**
 * Handlers configured through their constructors: served from a user's own
 * entry point (shaper-gen/server's serveUntilSignalled with `instances`) over
 * real HTTPS, with two workers, each of which runs the entry point again and
 * serves the instance it constructs; `shaper-gen serve`, which can only write
 * `new Class()`, refuses such a class in one line.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview } from 'shaper-gen/testing';
import { builtEntry } from '../../../support/built-package.js';
import { runNode, serve, ServeDir, waitReady } from '../../support/serve-process.js';

// What TypeScript compiles a decorated class with a constructor parameter to, give or take the decorator helper.
const HANDLERS = `import { Invalid, Webhook, field } from ${JSON.stringify(builtEntry())};
export class ReplicaLimitValidator {
  constructor(limits) { this.limits = limits; }
  validateCreate(deployment) {
    const replicas = deployment.spec?.replicas ?? 1;
    if (replicas > this.limits.maxReplicas) throw Invalid(field.invalid('spec.replicas', replicas, \`must be at most \${this.limits.maxReplicas}\`));
  }
}
Webhook({ path: '/validate-replicas', mutating: false, rules: [{ groups: ['apps'], versions: ['v1'], resources: ['deployments'], operations: ['CREATE'] }] })(ReplicaLimitValidator);
export const webhooks = [ReplicaLimitValidator];
`;

// The user's entry point: the configuration comes from wherever the platform team keeps it (here, the environment).
const ENTRY_POINT = `import { serveUntilSignalled } from ${JSON.stringify(builtEntry('./server'))};
import { ReplicaLimitValidator } from './handlers.mjs';
await serveUntilSignalled({ configFile: process.argv[2], instances: [new ReplicaLimitValidator({ maxReplicas: Number(process.env.MAX_REPLICAS) })] });
`;

let dir: ServeDir;
beforeAll(async () => {
  dir = await ServeDir.create();
  writeFileSync(path.join(dir.dir, 'handlers.mjs'), HANDLERS);
  writeFileSync(path.join(dir.dir, 'server.mjs'), ENTRY_POINT);
});
afterAll(() => dir.remove());

const deployment = (uid: string, replicas: number) =>
  admissionReview({ uid, object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' }, spec: { replicas } } });

describe('handler instances from a user entry point', () => {
  it('every worker serves the instance its entry point constructed, with that configuration', async () => {
    const config = await dir.writeConfig({ handlers: [path.join(dir.dir, 'handlers.mjs')], expectedPaths: ['/validate-replicas'], extra: 'workers: 2' });
    const server = runNode([path.join(dir.dir, 'server.mjs'), config.file], { cwd: dir.dir, env: { MAX_REPLICAS: '3' } });
    try {
      expect(await waitReady(config.health, server)).toBe('[+]shutdown ok\n[+]worker-1 ok\n[+]worker-2 ok\nreadyz check passed\n');
      // A new connection per request: the primary hands connections to the workers in turn.
      const denied = await Promise.all(Array.from({ length: 6 }, (_, i) => dir.post(config.port, '/validate-replicas', deployment(`d-${i}`, 5))));
      const message = 'Deployment.apps "web" is invalid: spec.replicas: Invalid value: 5: must be at most 3';
      const cause = { reason: 'FieldValueInvalid', message: 'Invalid value: 5: must be at most 3', field: 'spec.replicas' };
      expect(denied.map((answer) => [answer.status, answer.json])).toEqual(
        denied.map((_, i) => [
          200,
          {
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: {
              uid: `d-${i}`,
              allowed: false,
              status: { metadata: {}, status: 'Failure', code: 422, reason: 'Invalid', message, details: { name: 'web', group: 'apps', kind: 'Deployment', causes: [cause] } },
            },
          },
        ]),
      );
      const allowed = await dir.post(config.port, '/validate-replicas', deployment('a-0', 3));
      expect([allowed.status, allowed.json]).toEqual([200, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'a-0', allowed: true } }]);
      const deniedBy = new Set(
        server
          .logs()
          .filter((line) => line.msg === message)
          .map((line) => line.worker),
      );
      expect([...deniedBy].sort()).toEqual([1, 2]);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 60_000);

  it('shaper-gen serve refuses the class, which it would construct without its configuration', async () => {
    const config = await dir.writeConfig({ handlers: [path.join(dir.dir, 'handlers.mjs')], expectedPaths: ['/validate-replicas'] });
    const server = serve(['--config', config.file]);
    expect(await server.exited).toBe(1);
    expect(server.output()).toBe(
      'shaper-gen serve: ReplicaLimitValidator (/validate-replicas) declares constructor parameters, which new ReplicaLimitValidator() would leave undefined: give them defaults, or construct it yourself and pass it to startServer({ instances: [new ReplicaLimitValidator(…)] }) from shaper-gen/server\n',
    );
  });
});
