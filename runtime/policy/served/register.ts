/**
 * `policies.served` made into webhooks of this server: each policy read, its
 * paramKind's resource discovered, and the CEL engine loaded once, at start,
 * so that no review waits for it.
 */
import type { Logger } from 'pino';
import type { ServerConfig } from '../../config/server-config.js';
import { ApiConnection } from '../../kube/api-connection.js';
import { isPlainObject } from '../../options/check.js';
import type { RegisteredWebhook } from '../../server/registry.js';
import { formatProblem } from '../../problems.js';
import { resolveWebhookOptions } from '../../webhook/options/resolve.js';
import type { ResolvedWebhook, RuleOptions } from '../../webhook/options/types.js';
import { discoverParamResource, type ParamResource } from './param-kinds.js';
import { locatePolicyEngine, startPolicyEngine, type PolicyEngine } from './policy-engine.js';
import { servedPolicyHandler, servedPolicyReads } from './policy-handler.js';
import { readServedPolicy, ServedPolicyError, type ServedPolicy } from './served-policy.js';
import { servedPolicyWebhookName } from './webhook-name.js';

export async function registerServedPolicies(config: ServerConfig['policies'], log: Logger, connect = () => ApiConnection.fromEnvironment()): Promise<RegisteredWebhook[]> {
  const policies = config.served.map((entry, index) => readServedPolicy(entry, index));
  if (policies.length === 0) return [];
  const directory = locatePolicyEngine(config.engineDir);
  const started = Date.now();
  const engine: PolicyEngine = startPolicyEngine(directory, config.apiSchemasFile);
  log.info({ engine: directory, ms: Date.now() - started, rssMiB: Math.round(process.memoryUsage().rss / 1048576) }, 'CEL engine loaded for the served policies');
  let connection: ApiConnection | undefined;
  const apiConnection = () => (connection ??= connect());
  const entries: RegisteredWebhook[] = [];
  for (const policy of policies) {
    let param: ParamResource | undefined;
    if (policy.paramKind) {
      try {
        param = await discoverParamResource(apiConnection(), policy.paramKind);
      } catch (error) {
        log.error(
          { policy: policy.name, err: error },
          `cannot discover the paramKind ${policy.paramKind.apiVersion} ${policy.paramKind.kind}; the policy fails as the API server's does for a kind it does not serve`,
        );
      }
    }
    entries.push({ webhook: servedWebhook(policy, param), handler: servedPolicyHandler(policy, engine, param, apiConnection), source: `policy ${policy.name}` });
  }
  return entries;
}

function servedWebhook(policy: ServedPolicy, param: ParamResource | undefined): ResolvedWebhook {
  const spec = isPlainObject(policy.policy.spec) ? policy.policy.spec : {};
  const constraints = isPlainObject(spec.matchConstraints) ? spec.matchConstraints : {};
  const rules = (Array.isArray(constraints.resourceRules) ? constraints.resourceRules : []).filter(isPlainObject).map((rule): RuleOptions => ({
    groups: (rule.apiGroups as string[] | undefined) ?? [],
    versions: (rule.apiVersions as string[] | undefined) ?? [],
    resources: (rule.resources as string[] | undefined) ?? [],
    operations: (rule.operations as RuleOptions['operations'] | undefined) ?? [],
    ...(typeof rule.scope === 'string' && { scope: rule.scope as RuleOptions['scope'] }),
  }));
  const { webhook, problems } = resolveWebhookOptions({
    path: policy.path,
    mutating: policy.mutating,
    name: servedPolicyWebhookName(policy.name),
    failurePolicy: spec.failurePolicy ?? 'Fail',
    sideEffects: 'None',
    rules,
    cache: servedPolicyReads(policy.mutating, param?.resource),
  });
  if (!webhook) throw new ServedPolicyError(`policy ${policy.name}: ${problems.map((problem) => formatProblem(problem)).join('; ')}`);
  return webhook;
}
