/**
 * What a policy's `object` is typed from when it matches a built-in resource
 * (apps/v1 deployments, v1 configmaps…): the kind's schema from the shipped
 * Kubernetes API schemas, expanded in full (an embedded ObjectMeta too, so
 * that `object.spec.template.metadata.labels` types), without descriptions.
 * As the API server types it for its policy type checks: int-or-string and
 * quantities dyn (the server reads quantities as strings: dyn accepts that
 * and more), RawExtension dyn, times timestamps.
 */
import type { TypedResource } from '../policy/expressions.js';
import type { PolicyCheckContext } from '../policy/scan-policy.js';
import { resourceDefinition } from './api-schemas.js';
import { expandDefinition } from './structural.js';

/** The schema of a built-in resource at a version; undefined for a resource the API does not serve at GA (then `object` stays dyn). */
export function builtInResourceSchema(group: string, version: string, resource: string): TypedResource | undefined {
  const definition = resourceDefinition(group, version, resource);
  const schema = definition === undefined ? undefined : expandDefinition(definition, { descriptions: false, objectMeta: 'full' });
  return schema && { name: group === '' ? `${resource}/${version}` : `${resource}.${group}/${version}`, schema };
}

/** `context`'s schemas (the project's CRDs), then the built-in resources'. */
export function withBuiltInResources(context: PolicyCheckContext): PolicyCheckContext {
  return { resourceSchema: (group, version, resource) => context.resourceSchema(group, version, resource) ?? builtInResourceSchema(group, version, resource) };
}
