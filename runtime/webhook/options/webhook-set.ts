/** Checks across the webhooks served together: paths are unique, names unique within a configuration. */
import type { Problem } from '../../problems.js';
import { defaultWebhookName } from './resolve.js';
import type { ResolvedWebhook } from './types.js';

/** Each problem with the index of the webhook it concerns (the second of a clashing pair). */
export function checkWebhookSet(webhooks: readonly ResolvedWebhook[]): { index: number; problem: Problem }[] {
  const found: { index: number; problem: Problem }[] = [];
  const paths = new Map<string, number>();
  const names = new Map<string, number>();
  webhooks.forEach((webhook, index) => {
    if (!paths.has(webhook.path)) paths.set(webhook.path, index);
    else found.push({ index, problem: { path: ['path'], message: `duplicate webhook path "${webhook.path}"` } });

    const nameKey = `${webhook.mutating ? 'mutating' : 'validating'}/${webhook.configuration ?? ''}/${webhook.name}`;
    const other = names.get(nameKey);
    if (other === undefined) return void names.set(nameKey, index);
    const first = webhooks[other]!;
    if (first.path === webhook.path) return;
    const where = webhook.configuration ? `configuration "${webhook.configuration}"` : 'the default configuration';
    const defaulted = (w: ResolvedWebhook) => w.name === defaultWebhookName(w.path, w.rules);
    const problem: Problem =
      defaulted(webhook) && defaulted(first)
        ? { path: ['path'], message: `paths "${first.path}" and "${webhook.path}" give the same default webhook name "${webhook.name}" in ${where}: set \`name\` on one of them` }
        : { path: ['name'], message: `duplicate webhook name "${webhook.name}" in ${where}` };
    found.push({ index, problem });
  });
  return found;
}
