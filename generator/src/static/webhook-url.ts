/** The webhooks' URL base of static admission files, checked where shaper.yaml and --static-url give it. */

/** The API server's rule for a webhook URL (k8s.io/apiserver pkg/util/webhook ValidateWebhookURL), for a base URL. */
export function webhookUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a URL like https://webhooks.example.com:9443';
  }
  if (url.protocol !== 'https:') return "must be an https URL: the API server calls webhooks over 'https' only";
  if (url.username || url.password) return 'must not hold user information: the API server refuses it in a webhook URL';
  if (url.search || url.hash || value.includes('?') || value.includes('#')) return "must not have a query or a fragment: each webhook's path is appended to it";
  return undefined;
}
