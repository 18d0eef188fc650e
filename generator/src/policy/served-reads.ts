/**
 * What the server reads to enforce a policy the API server does not serve
 * (runtime/policy/served/), as RBAC rules: the namespace, the paramKind's
 * objects, the CRD a mutation merges into. The resource of a paramKind comes
 * from the shipped built-in schemas or the project's CRDs.
 */
import { mergeRbacRules, rbacRulesOf, servedPolicyReads } from 'shaper-gen/internal/generator';
import type { Crd } from '../crd/types.js';
import { apiSchemas } from '../kubernetes/api-schemas.js';

interface ParamKind {
  readonly apiVersion: string;
  readonly kind: string;
}

export function servedPolicyRbacRules(mutating: boolean, paramKind: ParamKind | undefined, crds: readonly Crd[]) {
  const reads = servedPolicyReads(mutating, paramKind && paramResourceOf(paramKind, crds));
  return mergeRbacRules(rbacRulesOf({ rbac: [], cache: reads })).map((rule) => ({ ...rule, resourceNames: rule.resourceNames ?? null }));
}

function paramResourceOf({ apiVersion, kind }: ParamKind, crds: readonly Crd[]) {
  const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/', 2) as [string, string]) : ['', apiVersion];
  const builtin = Object.entries(apiSchemas().resources).find(([resource, definition]) => resource.startsWith(`${group}/${version}/`) && definition.endsWith(`.${kind}`));
  const custom = crds.find((crd) => crd.group === group && crd.names.kind === kind);
  const resource = builtin ? builtin[0].split('/')[2]! : (custom?.names.plural ?? `${kind.toLowerCase()}s`);
  return { group, version, resource };
}
