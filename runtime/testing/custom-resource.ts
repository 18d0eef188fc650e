/**
 * Custom resources in tests as the API server treats them: `validateCustomResource`
 * (an object created or updated against its CRD: stored, or refused with the
 * API server's Status), and the objects a webhook's handler receives for a
 * custom resource (pruned and defaulted by the CRD, as the API server decodes
 * them before admission). Both run in @shaper-gen/generator (a dev dependency),
 * which runs apiextensions-apiserver's own code; the runtime carries none of it.
 */
import type { AdmissionRequest } from '../webhook/admission/review.js';
import type { KubernetesObject } from '../webhook/contract.js';
import { builtinKind } from './builtin-kinds.js';
import type { CrdSource, CustomResourceInput, CustomResourceResult, CustomResourceValidator } from './custom-resource-contract.js';

export type { CrdSource, CustomResourceCause, CustomResourceInput, CustomResourceResult, CustomResourceStatus } from './custom-resource-contract.js';

const VALIDATOR = '@shaper-gen/generator/testing';

async function loadValidator(): Promise<CustomResourceValidator> {
  try {
    // A variable specifier: the runtime is compiled without the generator's types, which depend on the runtime.
    const specifier: string = VALIDATOR;
    return ((await import(specifier)) as { customResources: CustomResourceValidator }).customResources;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED') throw error;
    throw new Error('shaper-gen/testing runs CRDs with @shaper-gen/generator, which is not installed here: npm install --save-dev @shaper-gen/generator', { cause: error });
  }
}

/**
 * Creates or updates a custom resource as the API server would, without a cluster: the CRD's structural schema
 * (unknown fields pruned, each a warning), defaults, formats, enums, bounds, list keys, `x-kubernetes-validations`
 * with `oldSelf` and ratcheting, and metadata.name; the stored object, or the Status of the refusal.
 */
export async function validateCustomResource(input: CustomResourceInput): Promise<CustomResourceResult> {
  return (await loadValidator()).validateCustomResource(input);
}

/**
 * The request with its objects as the API server hands them to admission when the kind is a custom resource
 * `crds` (or else the project) declares: pruned and defaulted; the request unchanged for other kinds.
 */
export async function admittedRequest(request: AdmissionRequest, crds: readonly CrdSource[] | undefined): Promise<AdmissionRequest> {
  const { kind, resource } = request;
  if (!kind.group || builtinKind(kind.group, resource.resource) !== undefined || crds?.length === 0) return request;
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return request;
  // The API server's objects always carry their apiVersion and kind; a test's may leave them to the webhook's rules.
  const typed = (object: KubernetesObject | null | undefined) => object && { apiVersion: `${kind.group}/${kind.version}`, kind: kind.kind, ...object };
  const object = typed(request.object);
  const oldObject = typed(request.oldObject);
  const admitted = await (
    await loadValidator()
  ).admittedObjects({
    ...(crds && { crds }),
    group: kind.group,
    kind: kind.kind,
    version: kind.version,
    operation: request.operation,
    ...(request.subResource && { subResource: request.subResource }),
    ...(request.namespace && { namespace: request.namespace }),
    ...(object && { object }),
    ...(oldObject && { oldObject }),
  });
  if (!admitted) return request;
  return { ...request, object: admitted.object ?? request.object, oldObject: admitted.oldObject ?? request.oldObject };
}

/** The project's schema of a custom resource kind (what an ApplyConfiguration on it is merged by); undefined for a built-in kind or one it does not declare. */
export async function projectSchemaOf(kind: { group: string; version: string; kind: string }, resource: string): Promise<object | undefined> {
  if (!kind.group || builtinKind(kind.group, resource) !== undefined) return undefined;
  return (await loadValidator()).projectSchema(kind);
}
