/**
 * What a handler class implements and what it is given, in the spirit of
 * controller-runtime's CustomValidator / CustomDefaulter.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { AdmissionOperation } from './operations.js';
import type { ResolvedWebhook } from './options/types.js';
import type { CachedResource } from '../cache/cached-resource.js';

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

/** Any Kubernetes object as it arrives in an AdmissionReview. */
export interface KubernetesObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [key: string]: unknown;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export { ADMISSION_OPERATIONS, type AdmissionOperation } from './operations.js';

/** The parts of the AdmissionReview request a handler may need (never the objects themselves). */
export interface AdmissionRequestInfo {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind?: GroupVersionKind;
  requestResource?: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: AdmissionOperation;
  userInfo: UserInfo;
  dryRun: boolean;
  /** CreateOptions, UpdateOptions, DeleteOptions or a CONNECT options object. */
  options?: KubernetesObject;
}

/** Kubernetes API access for lookups, from in-cluster config or KUBECONFIG. Created lazily. */
export interface KubeClient {
  readonly config: KubeConfig;
  /** One cached API client per API class, e.g. `ctx.kube.api(CustomObjectsApi)`. */
  api<T>(apiClass: new (...args: never[]) => T): T;
}

export interface ReadOptions {
  /** Read from the API server, not the cache: for a decision that must see a change made a moment ago. */
  readonly live?: boolean;
}

/**
 * Reads of the resources a webhook declares in `@Webhook({ cache })`, from the
 * server's informer cache. A cached object can lag the API server by the
 * watch's delivery delay (usually milliseconds); a miss is read from the API
 * server, so an object created just before the request is found. While the
 * watch is down, every read goes to the API server. Objects come without
 * metadata.managedFields, and are copies: change them freely.
 */
export interface CacheReader {
  /** The object, or undefined when it does not exist. `namespace` is undefined for cluster-scoped resources. */
  get<T extends object = KubernetesObject>(resource: CachedResource, namespace: string | undefined, name: string, options?: ReadOptions): Promise<T | undefined>;
  /** The objects in one namespace, or in all when `namespace` is undefined. */
  list<T extends object = KubernetesObject>(resource: CachedResource, namespace?: string, options?: ReadOptions): Promise<T[]>;
}

export interface AdmissionContext {
  readonly request: AdmissionRequestInfo;
  readonly webhook: ResolvedWebhook;
  /** Structured logger bound to this request (webhook, uid, operation, object). */
  readonly log: Logger;
  readonly kube: KubeClient;
  /** Cached reads of the resources in the webhook's `cache` option. */
  readonly cache: CacheReader;
  /** Aborted when the handler's deadline passes; pass it on to API calls. */
  readonly signal: AbortSignal;
  /** Adds a warning for the client (kubectl prints it; API clients see a Warning header). */
  warn(message: string): void;
  /**
   * Adds an annotation to the request's audit event: the API server records it as `<webhook name>/<key>`
   * (`key`: a qualified name's name part, 63 characters at most).
   */
  auditAnnotation(key: string, value: string): void;
}

/** Warnings to return with an allowed (or denied) response. */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a handler method that returns nothing is typed void, which undefined does not accept
export type Warnings = readonly string[] | void | undefined;

/**
 * A validating webhook. Implement the operations you care about; an operation
 * without a method is allowed. CONNECT reaches the handler only through
 * `validateConnect`. Deny by throwing `Denied`, `Forbidden` or `Invalid`.
 */
export interface CustomValidator<T extends object = KubernetesObject> {
  validateCreate?(obj: T, ctx: AdmissionContext): Warnings | Promise<Warnings>;
  validateUpdate?(oldObj: T, obj: T, ctx: AdmissionContext): Warnings | Promise<Warnings>;
  validateDelete?(oldObj: T, ctx: AdmissionContext): Warnings | Promise<Warnings>;
  validateConnect?(options: KubernetesObject | undefined, ctx: AdmissionContext): Warnings | Promise<Warnings>;
}

/**
 * A mutating webhook: `default` changes the object in place or returns a
 * replacement; the server answers with the JSON Patch between the two. It must
 * be idempotent: the API server may call it again (reinvocationPolicy IfNeeded).
 */
export interface CustomDefaulter<T extends object = KubernetesObject> {
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- as for Warnings: `default` may change the object in place and return nothing
  default(obj: T, ctx: AdmissionContext): void | T | Promise<void | T>;
}

export type WebhookHandler = CustomValidator<object> | CustomDefaulter<object>;

export const VALIDATOR_METHODS = ['validateCreate', 'validateUpdate', 'validateDelete', 'validateConnect'] as const;
export const DEFAULTER_METHOD = 'default';

/**
 * What is wrong with a handler class for its webhook, if anything: a defaulter
 * must implement `default`, a validator at least one validate method. `has`
 * says whether the class implements a method — the decorator asks the class's
 * prototype, the generator the declaration's own members.
 */
export function handlerShapeProblem(className: string, mutating: boolean, has: (method: string) => boolean): string | undefined {
  if (mutating && !has(DEFAULTER_METHOD)) return `mutating webhook class ${className} must implement default(obj, ctx)`;
  if (!mutating && !VALIDATOR_METHODS.some(has)) return `validating webhook class ${className} must implement at least one of ${VALIDATOR_METHODS.join(', ')}`;
  return undefined;
}
