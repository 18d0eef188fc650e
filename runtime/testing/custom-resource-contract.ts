/**
 * The contract between shaper-gen/testing (`validateCustomResource`, and
 * `runWebhook` for custom resources) and the generator's CRD validation
 * (`@shaper-gen/generator/testing`'s `customResources`, which `satisfies`
 * this interface): declared once, here, and checked by the compiler on the
 * generator's side. The generator runs apiextensions-apiserver's own code (the
 * CEL engine), so the production runtime carries none of it.
 */

/**
 * Where a CRD comes from: the CustomResourceDefinition object (apiextensions.k8s.io/v1), a YAML file's path or
 * YAML text (the document whose group and kind are the object's), or a kind the project's TypeScript sources
 * declare with `@shaper:` markers (`{ kind: 'Profile' }`, the CRD `shaper-gen manifests` generates for it).
 */
export type CrdSource = { readonly apiVersion: string; readonly kind: string; readonly [field: string]: unknown } | string | { readonly kind: string; readonly group?: string };

export interface CustomResourceInput {
  /** The CRD; default: the one the project declares (TypeScript kinds, then shaper.yaml's `crds` files) for the object's group and kind. */
  crd?: CrdSource;
  /** The request's body. */
  object: object;
  /** UPDATE: the object as stored before (read back through the CRD's current schema, as the API server reads it). */
  oldObject?: object;
  /** Default: UPDATE when there is an oldObject, else CREATE. */
  operation?: 'CREATE' | 'UPDATE';
  /** The request's version; default: the object's apiVersion's. */
  version?: string;
  /** `status`: an UPDATE of the status subresource. */
  subresource?: 'status';
  /** The request's namespace; default: the object's, else `default`. */
  namespace?: string;
  /** The request's `fieldValidation`; the API server's default is Warn (unknown fields pruned, each a warning). */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** The project (where its shaper.yaml is), for CRDs from its sources; default: the working directory. */
  root?: string;
}

export interface CustomResourceCause {
  reason: string;
  message: string;
  field: string;
}

/** The API server's Status for a refusal, as a client reads it. */
export interface CustomResourceStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: string;
  details?: { name?: string; group?: string; kind?: string; causes?: CustomResourceCause[] };
  code: number;
}

export interface CustomResourceResult {
  allowed: boolean;
  /** 201 for a CREATE stored, 200 for an UPDATE, else the refusal's (422 Invalid, 400 BadRequest). */
  code: number;
  reason?: string;
  message?: string;
  causes: CustomResourceCause[];
  /** The whole Status of a refusal. */
  status?: CustomResourceStatus;
  /** The object as stored and read back (pruned, defaulted), without the uid, creationTimestamp, resourceVersion and managedFields the server assigns. */
  object?: Record<string, unknown>;
  warnings: string[];
}

/** What a handler of an admission webhook receives for a custom resource. */
export interface AdmittedObjects {
  object?: Record<string, unknown>;
  oldObject?: Record<string, unknown>;
}

export interface CustomResourceValidator {
  validateCustomResource: (input: CustomResourceInput) => Promise<CustomResourceResult>;
  /**
   * The request's objects as admission sees them (the body pruned and defaulted, the old object read back);
   * undefined when neither `crds` nor the project declares the kind.
   */
  admittedObjects: (input: {
    crds?: readonly CrdSource[];
    group: string;
    kind: string;
    version: string;
    operation: string;
    subResource?: string;
    namespace?: string;
    object?: object;
    oldObject?: object;
    root?: string;
  }) => Promise<AdmittedObjects | undefined>;
  /** The openAPIV3Schema of the kind at that version in the project's CRDs (TypeScript kinds, shaper.yaml's `crds`); undefined when it declares none. */
  projectSchema: (input: { group: string; kind: string; version: string; root?: string }) => Promise<object | undefined>;
}
