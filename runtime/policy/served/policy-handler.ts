/**
 * A served policy as a handler: each review goes through the API server's own
 * policy plugin in the CEL engine, with the namespace, the params and (for a
 * custom resource a mutation merges into) the CRD read from the object cache;
 * the engine's decision, status, warnings and audit annotations become the
 * webhook's, its mutated object the JSON patch.
 */
import type { AdmitAnswer, AdmitRequest, PolicySet } from '../../cel/engine-contract.js';
import type { CachedResource } from '../../cache/cached-resource.js';
import type { AdmissionContext, CustomDefaulter, CustomValidator, KubernetesObject } from '../../webhook/contract.js';
import { RequestContext } from '../../webhook/admission/context.js';
import { AdmissionDenial } from '../../webhook/errors.js';
import type { ApiConnection } from '../../kube/api-connection.js';
import { admitWithAccessReviews } from './access-reviews.js';
import type { ParamResource } from './param-kinds.js';
import type { PolicyEngine } from './policy-engine.js';
import type { ServedPolicy } from './served-policy.js';

export const NAMESPACES: CachedResource = { group: '', version: 'v1', resource: 'namespaces' };
export const CUSTOM_RESOURCE_DEFINITIONS: CachedResource = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

/** The resources the handler reads: its webhook's `cache`, so informers and the chart's RBAC cover them. */
export function servedPolicyReads(mutating: boolean, param: CachedResource | undefined): CachedResource[] {
  return [NAMESPACES, ...(param ? [param] : []), ...(mutating ? [CUSTOM_RESOURCE_DEFINITIONS] : [])];
}

/** `apiConnection`: the server's own connection to the API server, for the SubjectAccessReviews of `authorizer`. */
export function servedPolicyHandler(policy: ServedPolicy, engine: PolicyEngine, param: ParamResource | undefined, apiConnection: () => ApiConnection): CustomValidator | CustomDefaulter {
  // Compiled now, at start: the plugin would compile it when the first review meets it.
  const policySet = engine.register(policySetOf(policy));
  const paramNamespaces = bindingParamNamespaces(policy);
  const decide = async (ctx: AdmissionContext): Promise<AdmitAnswer> => {
    if (!(ctx instanceof RequestContext)) throw new Error(`policy ${policy.name} is served by shaper-gen serve only`);
    const { object, oldObject, ...request } = ctx.review;
    const namespace = request.namespace ? await ctx.cache.get(NAMESPACES, undefined, request.namespace) : undefined;
    const crd =
      policy.mutating && isCustomGroup(request.resource.group) ? await ctx.cache.get(CUSTOM_RESOURCE_DEFINITIONS, undefined, `${request.resource.resource}.${request.resource.group}`) : undefined;
    const admitRequest: AdmitRequest = {
      input: { request, object: object ?? null, oldObject: oldObject ?? null },
      policySet,
      // A validating policy's answer is its decision: the object would come back unchanged.
      omitObject: !policy.mutating,
      params: param ? await paramsFor(ctx, param, paramNamespaces, request.namespace) : [],
      paramScopes: param && policy.paramKind ? { [`${policy.paramKind.apiVersion}/${policy.paramKind.kind}`]: param.scope } : {},
      namespaces: namespace ? [namespace] : [],
      crds: crd ? [crd] : [],
      admissionOnly: true,
    };
    return admitWithAccessReviews((request) => engine.admit(request), admitRequest, apiConnection);
  };
  const answer = async (ctx: AdmissionContext): Promise<AdmitAnswer> => {
    const decided = await decide(ctx);
    for (const warning of decided.warnings) ctx.warn(warning);
    // The plugin keys its annotations `<policy>/<key>`; the API server keys a webhook's `<webhook name>/<key>`, and the entry has the policy's name.
    const prefix = `${policy.name}/`;
    for (const [key, value] of Object.entries(decided.auditAnnotations)) if (key.startsWith(prefix)) ctx.auditAnnotation(key.slice(prefix.length), value);
    if (!decided.allowed) {
      const status = decided.status ?? { code: 403, reason: 'Forbidden', message: `policy ${policy.name} denied the request` };
      throw new AdmissionDenial(status.message, status.code, status.reason, [], status.details);
    }
    return decided;
  };
  if (policy.mutating) {
    return { default: async (_object: object, ctx: AdmissionContext) => (await answer(ctx)).object as KubernetesObject };
  }
  const validate = async (_object: unknown, ctx: AdmissionContext): Promise<void> => {
    await answer(ctx);
  };
  return {
    validateCreate: validate,
    validateUpdate: (_old: object, object: object, ctx: AdmissionContext) => validate(object, ctx),
    validateDelete: validate,
    validateConnect: validate,
  };
}

/** A custom resource's group has a dot and is not one of Kubernetes' own (`*.k8s.io`); built-in kinds need no CRD. */
function isCustomGroup(group: string): boolean {
  return group.includes('.') && !group.endsWith('.k8s.io');
}

function policySetOf(policy: ServedPolicy): PolicySet {
  return policy.mutating ? { mutatingPolicies: [policy.policy], mutatingBindings: policy.bindings } : { validatingPolicies: [policy.policy], validatingBindings: policy.bindings };
}

/** Each binding's paramRef.namespace; undefined for a binding that takes the request's namespace. */
function bindingParamNamespaces(policy: ServedPolicy): (string | undefined)[] {
  return policy.bindings.map((binding) => {
    const spec = binding.spec as { paramRef?: { namespace?: string } } | undefined;
    return spec?.paramRef?.namespace || undefined;
  });
}

/**
 * The objects a binding's paramRef can select, as the plugin looks them up: a namespaced paramKind's in the
 * paramRef's namespace, else the request's; a cluster-scoped one's all. Only those travel to the engine.
 */
async function paramsFor(ctx: AdmissionContext, param: ParamResource, namespaces: readonly (string | undefined)[], requestNamespace: string | undefined): Promise<unknown[]> {
  if (param.scope === 'Cluster') return ctx.cache.list(param.resource);
  const wanted = new Set(namespaces.map((namespace) => namespace ?? requestNamespace).filter((namespace): namespace is string => !!namespace));
  return (await Promise.all([...wanted].map((namespace) => ctx.cache.list(param.resource, namespace)))).flat();
}
