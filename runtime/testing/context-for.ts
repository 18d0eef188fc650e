/**
 * `contextFor`: the `ctx` the server would pass, for calling a handler's
 * methods directly — as Go tests call `ValidateCreate(ctx, obj)` — and what
 * `runWebhook` shares with it: the request's log, API client and cache.
 */
import { pino, type Logger } from 'pino';
import { RequestContext } from '../webhook/admission/context.js';
import { MemoryObjects } from '../cache/memory-objects.js';
import type { AdmissionContext, AdmissionOperation, KubeClient, KubernetesObject, WebhookHandler } from '../webhook/contract.js';
import { webhookOf } from '../webhook/decorator.js';
import type { ResolvedWebhook } from '../webhook/options/types.js';
import { admissionRequest, type RequestInput } from './admission-request.js';

export interface ContextOptions {
  /** Kubernetes API access for handlers that use `ctx.kube`; by default any use fails the test. */
  kube?: KubeClient;
  /**
   * What `ctx.cache` holds, by resource as kubectl names it: `{ 'profiles.shaper.io': [profile], configmaps: [cm] }`;
   * an Error instead of the objects makes reads of that resource fail with it. A resource the webhook does not
   * declare in `cache` fails, as it would in the server.
   */
  objects?: Readonly<Record<string, readonly KubernetesObject[] | Error>>;
  /** Where `ctx.log` writes; silent by default. */
  log?: Logger;
}

/** The methods a handler implements; each is called for one operation. */
export type HandlerMethod = 'validateCreate' | 'validateUpdate' | 'validateDelete' | 'validateConnect' | 'default';

/** A request context as the server makes one, plus what a test reads back. */
export interface TestContext extends AdmissionContext {
  /** What the handler passed to `ctx.warn`, in order (a returned list is the method's return value). */
  readonly warnings: readonly string[];
  /** Aborts `ctx.signal` with `reason`, as the server does when the handler's deadline passes. */
  abort(reason: Error): void;
}

/** A decorated handler: an instance, or a class (constructed by `runWebhook` with `new`, only read by `contextFor`). */
export type HandlerOrClass = WebhookHandler | (abstract new (...args: never[]) => WebhookHandler);

const METHOD_OPERATIONS: Readonly<Record<Exclude<HandlerMethod, 'default'>, AdmissionOperation>> = {
  validateCreate: 'CREATE',
  validateUpdate: 'UPDATE',
  validateDelete: 'DELETE',
  validateConnect: 'CONNECT',
};

/**
 * The `ctx` for calling `method` of a decorated handler directly:
 * `await validator.validateCreate(cronJob, contextFor(validator, 'validateCreate', { object: cronJob }))`.
 * The operation is the method's (a defaulter's is CREATE, or UPDATE with an oldObject, unless `input.operation`
 * says), the user `test-user`; kind, name and namespace come from the object as for `runWebhook`. It is the
 * server's own request context; the handler's deadline does not apply.
 */
export function contextFor<T extends object>(handler: HandlerOrClass, method: HandlerMethod, input: RequestInput<T> = {}, options: ContextOptions = {}): TestContext {
  const cls = typeof handler === 'function' ? handler : (handler.constructor as abstract new (...args: never[]) => WebhookHandler);
  const webhook = decoratedWebhook(cls);
  if (typeof (cls.prototype as Record<string, unknown>)[method] !== 'function') throw new TypeError(`shaper-gen/testing: ${cls.name} has no method ${method}`);
  const operation = method === 'default' ? (input.operation ?? (input.oldObject ? 'UPDATE' : 'CREATE')) : METHOD_OPERATIONS[method];
  const { log, kube, objects } = requestDependencies(options);
  return new RequestContext(webhook, admissionRequest({ ...input, operation }, webhook), log, kube, objects);
}

/** The instance `runWebhook` calls (a class is constructed with `new`) and its webhook. */
export function decoratedHandler(handler: WebhookHandler | (new () => WebhookHandler)): { instance: WebhookHandler; webhook: ResolvedWebhook } {
  if (typeof handler !== 'function') return { instance: handler, webhook: decoratedWebhook(handler.constructor) };
  const webhook = decoratedWebhook(handler);
  // As the server refuses it: `new Class()` would leave the parameters undefined.
  if (handler.length > 0) throw new TypeError(`shaper-gen/testing: ${handler.name} declares constructor parameters: pass an instance, runWebhook(new ${handler.name}(…), …)`);
  return { instance: new handler(), webhook };
}

export function requestDependencies(options: ContextOptions) {
  return { log: options.log ?? pino({ level: 'silent' }), kube: options.kube ?? noKube, objects: new MemoryObjects(options.objects ?? {}) };
}

function decoratedWebhook(cls: { readonly name: string }): ResolvedWebhook {
  const webhook = webhookOf(cls);
  if (!webhook) throw new TypeError(`shaper-gen/testing: ${cls.name} is not decorated with @Webhook`);
  return webhook;
}

const noKube: KubeClient = {
  get config(): never {
    throw new Error('this handler uses ctx.kube; pass { kube } to runWebhook or contextFor');
  },
  api(): never {
    throw new Error('this handler uses ctx.kube; pass { kube } to runWebhook or contextFor');
  },
};
