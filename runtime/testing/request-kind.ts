/**
 * The kind and resource of a test request, as the API server would send them:
 * from the input, else from the object's apiVersion and kind, else from the
 * webhook's rules where they name exactly one group, version and resource.
 */
import type { GroupVersionKind, GroupVersionResource, KubernetesObject } from '../webhook/contract.js';
import type { ResolvedRule } from '../webhook/options/types.js';

/** What kind inference reads of a webhook or a policy: its rules. */
export interface RulesOf {
  readonly rules: readonly ResolvedRule[];
}
import { builtinKind } from './builtin-kinds.js';

export interface KindInput {
  readonly kind?: GroupVersionKind;
  readonly resource?: GroupVersionResource;
  /** The request's object, or its old object when it has none. */
  readonly object?: KubernetesObject;
}

type Inferred<T> = { readonly value: T } | { readonly problem: string };

// A request without any object (CONNECT) has nothing for a kind to describe; it keeps the kind empty rather than fail.
const NO_KIND: GroupVersionKind = { group: '', version: 'v1', kind: '' };

/** Throws a one-line TypeError asking for apiVersion and kind when the object has none and the rules do not say. */
export function requestKindAndResource(input: KindInput, webhook: RulesOf | undefined): { kind: GroupVersionKind; resource: GroupVersionResource } {
  const inferred: Inferred<GroupVersionKind> = input.kind ? { value: input.kind } : inferKind(input.object, webhook);
  if ('problem' in inferred && input.object) {
    throw new TypeError(`shaper-gen/testing: cannot tell the test object's ${inferred.problem}; set apiVersion and kind on the test object`);
  }
  const kind = 'value' in inferred ? inferred.value : NO_KIND;
  const fromRule = webhook ? baseResources(webhook.rules.flatMap((rule) => rule.resources)).find((resource) => resource !== '*') : undefined;
  return { kind, resource: input.resource ?? { group: kind.group, version: kind.version, resource: fromRule ?? `${kind.kind.toLowerCase()}s` } };
}

function inferKind(object: KubernetesObject | undefined, webhook: RulesOf | undefined): Inferred<GroupVersionKind> {
  let group: Inferred<string>;
  let version: Inferred<string>;
  if (object?.apiVersion) {
    const slash = object.apiVersion.indexOf('/');
    group = { value: slash === -1 ? '' : object.apiVersion.slice(0, slash) };
    version = { value: object.apiVersion.slice(slash + 1) };
  } else {
    group = onlyOne('apiVersion', 'groups', webhook, (rule) => rule.groups);
    version = onlyOne('apiVersion', 'versions', webhook, (rule) => rule.versions);
  }
  if ('problem' in group) return group;
  if ('problem' in version) return version;
  if (object?.kind) return { value: { group: group.value, version: version.value, kind: object.kind } };
  const resource = onlyOne('kind', 'resources', webhook, (rule) => baseResources(rule.resources));
  if ('problem' in resource) return resource;
  const kind = builtinKind(group.value, resource.value);
  if (kind === undefined) {
    const name = group.value ? `${resource.value}.${group.value}` : resource.value;
    return { problem: `kind: ${name} is not a built-in resource, and a kind's spelling (CronJob, not Cronjob) is not in its resource name` };
  }
  return { value: { group: group.value, version: version.value, kind } };
}

/** The one value the webhook's rules name among their `field`; else the problem, for the object's `what`. */
function onlyOne(what: string, field: string, webhook: RulesOf | undefined, values: (rule: ResolvedRule) => readonly string[]): Inferred<string> {
  if (!webhook) return { problem: `${what}: there is no webhook whose rules could say` };
  const named = [...new Set(webhook.rules.flatMap(values))];
  if (named.length === 1 && named[0] !== '*') return { value: named[0]! };
  return { problem: `${what}: the webhook's rules name the ${field} ${named.map((value) => JSON.stringify(value)).join(', ')}` };
}

/** Resources without their subresources: `profiles/status` is a request for `profiles`. */
function baseResources(resources: readonly string[]): string[] {
  return resources.map((resource) => resource.split('/')[0]!);
}
