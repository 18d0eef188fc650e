/**
 * The "before" design, for comparison only: the same admission endpoints as
 * `shaper-gen serve`, but registered as Express routes instead of the
 * raw-path fast path. Prints "listening <port>".
 *
 *   node dist/bench/admission/express-routed-server.js <certDir>
 */
import { MemoryObjects } from '../../runtime/cache/memory-objects.js';
import { DEFAULT_SERVER_CONFIG, mergeServerConfig } from '../../runtime/config/server-config.js';
import { LazyKubeClient } from '../../runtime/kube/kube-client.js';
import { createLogger } from '../../runtime/log.js';
import { admissionEndpoint } from '../../runtime/server/admission-endpoint.js';
import { MemoryBudget } from '../../runtime/server/memory-budget.js';
import { ServerMetrics } from '../../runtime/server/metrics.js';
import { registerWebhooks } from '../../runtime/server/registry.js';
import { WebhookServer } from '../../runtime/server/webhook-server.js';
import { webhooks } from './handlers.js';

const certDir = process.argv[2];
if (!certDir) throw new Error('usage: express-routed-server.js <certDir>');
const config = mergeServerConfig(DEFAULT_SERVER_CONFIG, {
  webhook: { bindAddress: '127.0.0.1', port: 0, certDir },
  health: { port: 0 },
  metrics: { port: 0 },
  log: { level: 'warn' },
});
const log = createLogger('warn');
const kube = new LazyKubeClient();
const metrics = new ServerMetrics();
// No webhooks on the fast path: every request goes through Express's router.
const server = new WebhookServer({ config, webhooks: new Map(), log, kube, metrics });
const deps = { log, kube, objects: new MemoryObjects({}), metrics, maxRequestBytes: config.webhook.maxRequestBytes, memory: MemoryBudget.fromHeap() };
for (const [path, entry] of registerWebhooks(webhooks)) server.app.post(path, admissionEndpoint(entry, deps).node);
const { webhook } = await server.start();
console.log(`listening ${webhook.port}`);
process.on('SIGTERM', () => void server.shutdown().then(() => process.exit(0)));
