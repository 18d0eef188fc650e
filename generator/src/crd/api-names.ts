/**
 * The names of an API: its group, versions, kinds and resource names, as the
 * API server requires them. The scan reports a broken rule at the marker;
 * `shaper-gen create api` reports it at the flag, with the same words.
 */
import { isDnsSubdomain } from 'shaper-gen/internal/generator';

/** A DNS-1035 label, as the API server requires of versions, plural, singular, short names and categories. */
const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const KIND = /^[A-Z][A-Za-z0-9]*$/;
/** The version form Kubernetes orders by priority: v1 before v1beta1 before v1alpha1. */
export const KUBERNETES_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

export function isDns1035Label(value: string): boolean {
  return value.length <= 63 && DNS_1035.test(value);
}

/** A Kubernetes version name: a DNS-1035 label (lower-case, starting with a letter), like v1 or v1alpha1. */
export function isVersionName(value: string): boolean {
  return isDns1035Label(value);
}

export function groupProblem(group: string): string | undefined {
  if (isDnsSubdomain(group) && group.includes('.')) return undefined;
  return `the API group ${JSON.stringify(group)} must be a lower-case DNS subdomain with at least one dot, like example.com`;
}

/** What the scan accepts: any DNS-1035 label (the API server sorts other names after the v1/v1beta1/v1alpha1 form). */
export function versionProblem(version: string): string | undefined {
  if (isVersionName(version)) return undefined;
  return `the version ${JSON.stringify(version)} must be a lower-case DNS label starting with a letter, like v1 or v1alpha1`;
}

/** What `create api` writes: only the form Kubernetes gives a priority, as kubebuilder requires. */
export function newVersionProblem(version: string): string | undefined {
  if (KUBERNETES_VERSION.test(version)) return undefined;
  return `the version ${JSON.stringify(version)} must be v<N>, v<N>alpha<M> or v<N>beta<M>, like v1, v1alpha1 or v1beta2`;
}

export function kindProblem(kind: string): string | undefined {
  if (KIND.test(kind) && kind.length <= 63) return undefined;
  return `${kind}: a kind is an upper-case letter followed by letters and digits (UpperCamelCase, like CronJob), at most 63 characters`;
}

/** English plural of a lower-case kind, as kubebuilder's default (`plural=` overrides it). */
export function pluralize(word: string): string {
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}
