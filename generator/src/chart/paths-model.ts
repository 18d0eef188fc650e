/**
 * The chart's `_webhook-paths.tpl`: every path the server must serve, which the ServerConfig's `expectedPaths` lists,
 * and the CRDs with a conversion webhook, whose caBundle self-managed certificates write.
 */
import type { ResolvedWebhook } from 'shaper-gen/internal/generator';
import { compareText } from '../compare-text.js';
import { helmHelpers } from './helm-helpers.js';

/** The webhooks' paths and the conversions' (several kinds may share one). */
export function pathsModel(
  webhooks: readonly ResolvedWebhook[],
  chartName: string,
  conversionPaths: readonly string[] = [],
  conversionCrds: readonly string[] = [],
  servedPolicies: readonly { name: string; kind: string; servedPath: string }[] = [],
) {
  const helpers = helmHelpers(chartName);
  return {
    helpers,
    helperName: helpers.webhookPaths,
    servedPolicies,
    paths: [...new Set([...webhooks.map((w) => w.path), ...conversionPaths])].sort(compareText),
    conversionCrdsHelper: helpers.conversionCrds,
    conversionCrds: [...conversionCrds].sort(compareText),
  };
}
