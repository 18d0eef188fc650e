/**
 * Kubernetes' name rules (k8s.io/apimachinery validation), for every option
 * and setting that holds a name: webhook names and paths, API groups,
 * resources, label keys and values. The ServerConfig's expectedPaths use the
 * same path rules as `@Webhook({ path })` and `@Conversion({ path })`.
 */

export const MAX_DNS_SUBDOMAIN = 253;
const MAX_LABEL = 63;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const RESOURCE_PART = /^(\*|[a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/;
const QUALIFIED_NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
const WEBHOOK_PATH_START = /^\/(validate|mutate)-/;
const CONVERSION_PATH_START = /^\/convert(-|$)/;

/** RFC 1123 label: lower-case letters, digits and "-", at most `max` characters. */
export function isDnsLabel(value: string, max = MAX_LABEL): boolean {
  return value.length <= max && DNS_LABEL.test(value);
}

/** RFC 1123 subdomain: dot-separated labels, at most 253 characters. */
export function isDnsSubdomain(value: string): boolean {
  return value.length <= MAX_DNS_SUBDOMAIN && DNS_SUBDOMAIN.test(value);
}

/** A webhook's name, as the API server requires it: a DNS subdomain of at least three segments. */
export function isWebhookName(value: string): boolean {
  return isDnsSubdomain(value) && value.split('.').length >= 3;
}

/** An API group as rules and RBAC name it: "" (core), "*" or a DNS subdomain. */
export function isApiGroupOrWildcard(group: string): boolean {
  return group === '' || group === '*' || isDnsSubdomain(group);
}

/** `<resource>` or `<resource>/<subresource>`, lower-case, either part may be "*". */
export function isResourceReference(value: string): boolean {
  const parts = value.split('/');
  return parts.length <= 2 && parts.every((part) => RESOURCE_PART.test(part));
}

/** A label key or condition name: `[prefix/]name`, name at most 63 characters, prefix a DNS subdomain. */
export function isQualifiedName(value: string): boolean {
  const parts = value.split('/');
  if (parts.length > 2) return false;
  const name = parts.at(-1) ?? '';
  const prefix = parts.length === 2 ? parts[0]! : undefined;
  if (prefix !== undefined && !isDnsSubdomain(prefix)) return false;
  return name.length > 0 && name.length <= MAX_LABEL && QUALIFIED_NAME_PART.test(name);
}

export function isLabelValue(value: string): boolean {
  return value.length <= MAX_LABEL && LABEL_VALUE.test(value);
}

/**
 * What is wrong with a webhook path, if anything: `/validate-<name>` or
 * `/mutate-<name>` (this project's rule), otherwise as servicePathProblem.
 */
export function webhookPathProblem(path: string): string | undefined {
  return servicePathProblem(path, WEBHOOK_PATH_START, '"/validate-<name>" or "/mutate-<name>"');
}

/** What is wrong with a conversion webhook path, if anything: `/convert` or `/convert-<name>`, otherwise as servicePathProblem. */
export function conversionPathProblem(path: string): string | undefined {
  return servicePathProblem(path, CONVERSION_PATH_START, '"/convert" or "/convert-<name>"');
}

/** What is wrong with a path `serve` may answer (admission or conversion), if anything: the ServerConfig's expectedPaths. */
export function servedPathProblem(path: string): string | undefined {
  return CONVERSION_PATH_START.test(path) ? conversionPathProblem(path) : servicePathProblem(path, WEBHOOK_PATH_START, '"/validate-<name>", "/mutate-<name>", "/convert" or "/convert-<name>"');
}

/**
 * What is wrong with a path the API server calls on the webhook Service, if
 * anything. The API server requires each segment after the leading "/" to be a
 * lowercase RFC 1123 subdomain (k8s.io/apiserver pkg/util/webhook
 * ValidateWebhookService); the `start` each kind of path has, and no trailing "/",
 * are this project's rules.
 */
export function servicePathProblem(path: string, start: RegExp, expected: string): string | undefined {
  if (!start.test(path)) return `path "${path}" must be ${expected}`;
  if (path.endsWith('/')) return `path "${path}" must not end with "/"`;
  const segments = path.slice(1).split('/');
  for (const [i, segment] of segments.entries()) {
    if (segment === '') return `path "${path}": segment[${i}] may not be empty (no "//")`;
    if (segment.length > MAX_DNS_SUBDOMAIN) return `path "${path}": segment[${i}] is ${segment.length} characters; the API server allows at most ${MAX_DNS_SUBDOMAIN} per segment`;
    if (!DNS_SUBDOMAIN.test(segment)) {
      return `path "${path}": segment[${i}] "${segment}" must be a lowercase RFC 1123 subdomain (letters, digits, "-" and ".", beginning and ending with a letter or digit), as the API server requires of every path segment`;
    }
  }
  return undefined;
}
