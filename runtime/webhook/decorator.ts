import { handlerShapeProblem, type CustomDefaulter, type CustomValidator } from './contract.js';
import { resolveWebhookOptions } from './options/resolve.js';
import type { ResolvedWebhook, WebhookOptions } from './options/types.js';
import { ConfigError } from '../problems.js';

// Symbol.for, so that metadata survives two copies of this package in one process.
const WEBHOOK_METADATA = Symbol.for('shaper-gen.webhook');

/** The handler shape `@Webhook` requires: a defaulter when `mutating: true`, a validator when false. */
/* eslint-disable @typescript-eslint/no-explicit-any -- with `any` a class that lacks a method gets TypeScript's "Property 'default' is missing", not an unresolvable decorator signature */
export type HandlerFor<O extends { readonly mutating: boolean }> = O['mutating'] extends true
  ? CustomDefaulter<any>
  : O['mutating'] extends false
    ? CustomValidator<any>
    : CustomDefaulter<any> | CustomValidator<any>;

/**
 * A generic options parameter turns off TypeScript's excess-property check, so
 * an unknown key (`timeoutSecond: 5`) is made a type error here, in the editor.
 */
type KnownOptionsOnly<O> = O & Readonly<Record<Exclude<keyof O, keyof WebhookOptions>, never>>;

type HandlerClass<O extends WebhookOptions> = abstract new (...args: any[]) => HandlerFor<O>;
/* eslint-enable @typescript-eslint/no-explicit-any */

/**
 * Marks a class as an admission webhook handler. `shaper-gen manifests` reads
 * the options statically to generate the webhook configurations; `shaper-gen
 * serve` registers the class at `options.path`.
 *
 * Works as a TC39 standard decorator and with `experimentalDecorators`.
 *
 * @shaperGenMarker webhook
 */
export function Webhook<const O extends WebhookOptions>(options: KnownOptionsOnly<O>) {
  const webhook = resolveOrThrow(options);
  return <C extends HandlerClass<O>>(target: C, context?: ClassDecoratorContext<C>): void => {
    // Read through a wider type: under experimentalDecorators a misplaced @Webhook gets another second argument (a property key).
    const kind = (context as { kind?: unknown } | undefined)?.kind;
    if (context !== undefined && kind !== 'class') {
      throw new TypeError(`@Webhook(${JSON.stringify(webhook.path)}) decorates classes, not a ${String(kind)}`);
    }
    assertHandlerShape(target, webhook);
    Object.defineProperty(target, WEBHOOK_METADATA, { value: webhook, enumerable: false });
  };
}

/** The resolved options of a class decorated with `@Webhook`, or undefined. */
export function webhookOf(target: unknown): ResolvedWebhook | undefined {
  if (typeof target !== 'function') return undefined;
  return Object.prototype.hasOwnProperty.call(target, WEBHOOK_METADATA) ? (target as unknown as Record<symbol, ResolvedWebhook>)[WEBHOOK_METADATA] : undefined;
}

function resolveOrThrow(options: WebhookOptions): ResolvedWebhook {
  const { webhook, problems } = resolveWebhookOptions(options);
  if (webhook) return webhook;
  // `options` may be missing altogether in plain JavaScript.
  const where = typeof (options as WebhookOptions | undefined)?.path === 'string' ? ` (${options.path})` : '';
  throw new ConfigError(problems, `@Webhook options${where}`, { root: 'options' });
}

function assertHandlerShape(target: abstract new (...args: never[]) => unknown, webhook: ResolvedWebhook): void {
  const proto = target.prototype as Record<string, unknown> | undefined;
  const problem = handlerShapeProblem(target.name, webhook.mutating, (method) => typeof proto?.[method] === 'function');
  if (problem) throw new TypeError(`@Webhook(${JSON.stringify(webhook.path)}): ${problem}`);
}
