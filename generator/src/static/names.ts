/** Names of static admission objects: the API server loads only names with this suffix, and the API refuses them. */
export const STATIC_SUFFIX = '.static.k8s.io';

/** A DNS subdomain's limit, which every admissionregistration object name keeps. */
export const MAX_NAME_LENGTH = 253;

export function staticName(name: string): string {
  return `${name}${STATIC_SUFFIX}`;
}
