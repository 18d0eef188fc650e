/**
 * What the server needs to enforce a policy the API server does not serve
 * (runtime/policy/served/), as RBAC rules: from its object cache the
 * namespace, the paramKind's objects and the CRD a mutation merges into; the
 * SubjectAccessReviews that answer `authorizer`. The resource of a paramKind
 * comes from the shipped built-in schemas or the project's CRDs.
 */
import { ACCESS_REVIEW_RULE, mergeRbacRules, rbacRulesOf, servedPolicyReads } from 'shaper-gen/internal/generator';
import type { Crd } from '../crd/types.js';
import { apiSchemas } from '../kubernetes/api-schemas.js';

interface ParamKind {
  readonly apiVersion: string;
  readonly kind: string;
}

/** `authorizer`: the policy's CEL calls it, which the server answers with SubjectAccessReviews. */
export function servedPolicyRbacRules(mutating: boolean, paramKind: ParamKind | undefined, crds: readonly Crd[], authorizer: boolean) {
  const reads = servedPolicyReads(mutating, paramKind && paramResourceOf(paramKind, crds));
  return mergeRbacRules(rbacRulesOf({ rbac: authorizer ? [ACCESS_REVIEW_RULE] : [], cache: reads })).map((rule) => ({ ...rule, resourceNames: rule.resourceNames ?? null }));
}

function paramResourceOf({ apiVersion, kind }: ParamKind, crds: readonly Crd[]) {
  const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/', 2) as [string, string]) : ['', apiVersion];
  const builtin = Object.entries(apiSchemas().resources).find(([resource, definition]) => resource.startsWith(`${group}/${version}/`) && definition.endsWith(`.${kind}`));
  const custom = crds.find((crd) => crd.group === group && crd.names.kind === kind);
  const resource = builtin ? builtin[0].split('/')[2]! : (custom?.names.plural ?? `${kind.toLowerCase()}s`);
  return { group, version, resource };
}
