/** The chart's `_webhook-paths.tpl`: every path the server must serve, which the ServerConfig's `expectedPaths` lists. */
import type { ResolvedWebhook } from 'shaper-gen/internal/generator';
import { compareText } from '../compare-text.js';
import { helmHelpers } from './helm-helpers.js';

/** The webhooks' paths and the conversions' (several kinds may share one). */
export function pathsModel(webhooks: readonly ResolvedWebhook[], chartName: string, conversionPaths: readonly string[] = []) {
  return {
    helperName: helmHelpers(chartName).webhookPaths,
    paths: [...new Set([...webhooks.map((w) => w.path), ...conversionPaths])].sort(compareText),
  };
}
