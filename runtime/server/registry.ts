/**
 * Finds the classes to serve — the `webhooks` export of each handlers module,
 * which `shaper-gen manifests` generates from the same decorators it turns
 * into the chart — and maps each path to one handler instance.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { WebhookHandler } from '../webhook/contract.js';
import { webhookOf } from '../webhook/decorator.js';
import { checkWebhookSet } from '../webhook/options/webhook-set.js';
import type { ResolvedWebhook } from '../webhook/options/types.js';
import { conversionKey, type ConversionsByKind } from '../conversion/convert.js';
import { prepareConversion, type RegisteredConversion } from '../conversion/registered.js';
import { formatProblem } from '../problems.js';

/** A decorated class made ready to serve: its resolved options and one instance. */
export interface RegisteredWebhook {
  readonly webhook: ResolvedWebhook;
  readonly handler: WebhookHandler;
  /** Where the class came from, for logs: `ClassName` or `module#ClassName`. */
  readonly source: string;
}

export class RegistrationError extends Error {
  override name = 'RegistrationError';
}

type HandlerClass = new () => WebhookHandler;

/**
 * Registers decorated classes, each constructed with `new Class()`, and handler instances the caller constructed
 * (with their dependencies, as a controller-runtime manager is given a validator): an instance serves in place of
 * the listed class with its path. Refuses anything undecorated, a class whose constructor takes arguments
 * without an instance, and any two webhooks that clash.
 */
export function registerWebhooks(classes: readonly unknown[], origin = 'webhooks', instances: readonly WebhookHandler[] = []): Map<string, RegisteredWebhook> {
  const given = registeredInstances(instances);
  const entries: RegisteredWebhook[] = [];
  for (const [index, candidate] of classes.entries()) {
    const webhook = webhookOf(candidate);
    if (!webhook) {
      const name = typeof candidate === 'function' ? candidate.name || '(anonymous class)' : typeof candidate;
      throw new RegistrationError(`${origin}[${index}] (${name}) is not decorated with @Webhook`);
    }
    const instance = given.get(webhook.path);
    if (instance) {
      entries.push(instance);
      given.delete(webhook.path);
      continue;
    }
    entries.push({ webhook, handler: construct(candidate as HandlerClass, webhook), source: `${origin}#${(candidate as HandlerClass).name}` });
  }
  // Instances of classes no handlers module lists are served too.
  entries.push(...given.values());
  const clashes = checkWebhookSet(entries.map((entry) => entry.webhook));
  if (clashes.length > 0) {
    throw new RegistrationError(clashes.map(({ index, problem }) => `${entries[index]!.source}: ${formatProblem(problem)}`).join('\n'));
  }
  return new Map(entries.map((entry) => [entry.webhook.path, entry]));
}

function registeredInstances(instances: readonly WebhookHandler[]): Map<string, RegisteredWebhook> {
  const byPath = new Map<string, RegisteredWebhook>();
  for (const [index, handler] of instances.entries()) {
    const cls = (handler as object | null | undefined)?.constructor;
    const source = `instances[${index}]#${cls?.name || typeof handler}`;
    const webhook = webhookOf(cls);
    if (!webhook) throw new RegistrationError(`${source} is not an instance of a class decorated with @Webhook`);
    const other = byPath.get(webhook.path);
    if (other) throw new RegistrationError(`${source}: ${other.source} already serves ${webhook.path}; pass one instance per webhook`);
    byPath.set(webhook.path, { webhook, handler, source });
  }
  return byPath;
}

function construct(cls: HandlerClass, webhook: ResolvedWebhook): WebhookHandler {
  // Function.length counts the parameters before the first with a default (an optional TypeScript one counts too).
  if (cls.length > 0) {
    throw new RegistrationError(
      `${cls.name} (${webhook.path}) declares constructor parameters, which new ${cls.name}() would leave undefined: give them defaults, or construct it yourself and pass it to startServer({ instances: [new ${cls.name}(…)] }) from shaper-gen/server`,
    );
  }
  try {
    return new cls();
  } catch (error) {
    throw new RegistrationError(`constructing ${cls.name} for ${webhook.path} failed: ${(error as Error).message}`);
  }
}

/** Imports handlers modules (paths relative to `cwd`, or package specifiers) and collects their `webhooks` exports. */
export async function importWebhookClasses(modules: readonly string[], cwd = process.cwd()): Promise<unknown[]> {
  return (await importHandlerModules(modules, cwd)).webhooks;
}

/** The classes of handlers modules: their `webhooks` exports, and their `conversions` exports where they have one. */
export async function importHandlerModules(modules: readonly string[], cwd = process.cwd()): Promise<{ webhooks: unknown[]; conversions: unknown[] }> {
  const classes: unknown[] = [];
  const conversions: unknown[] = [];
  for (const specifier of modules) {
    const file = path.resolve(cwd, specifier);
    // A path (relative to cwd, as in the chart's `dist/sample/webhooks.generated.js`) is a file; a bare name is a package.
    const isPath = existsSync(file) || specifier.startsWith('.') || path.isAbsolute(specifier) || /\.(m|c)?js$/.test(specifier);
    if (isPath && !existsSync(file)) throw new RegistrationError(`handlers module ${specifier}: no such file (in ${cwd}; run npm run build, or fix --handlers / handlers in the config)`);
    const url = isPath ? pathToFileURL(file).href : specifier;
    let module: Record<string, unknown>;
    try {
      module = (await import(url)) as Record<string, unknown>;
    } catch (error) {
      // Node strips types but cannot run decorators: decorated TypeScript must be compiled.
      const hint = /\.(m|c)?tsx?$/.test(specifier)
        ? `; compile it first (npm run build) and pass the .js file, e.g. ${specifier.replace(/^(\.\/)?src\//, 'dist/').replace(/\.(m|c)?tsx?$/, '.js')}`
        : '';
      throw new RegistrationError(`cannot import handlers module ${specifier}: ${(error as Error).message.split('\n')[0]}${hint}`);
    }
    if (!Array.isArray(module.webhooks)) {
      throw new RegistrationError(`handlers module ${specifier} has no \`webhooks\` array export (generate one with \`shaper-gen manifests\`)`);
    }
    classes.push(...(module.webhooks as unknown[]));
    if (module.conversions !== undefined) {
      if (!Array.isArray(module.conversions))
        throw new RegistrationError(`handlers module ${specifier}: its \`conversions\` export is not an array (regenerate it with \`shaper-gen manifests\`)`);
      conversions.push(...(module.conversions as unknown[]));
    }
  }
  return { webhooks: classes, conversions };
}

/**
 * Constructs each `@Conversion` class and groups them by path: one path may serve several kinds, each kind (group
 * and Kind) has one converter.
 */
export function registerConversions(classes: readonly unknown[], origin = 'conversions'): Map<string, ConversionsByKind> {
  const byPath = new Map<string, Map<string, RegisteredConversion>>();
  // Across paths too: a CRD names one conversion webhook.
  const byKind = new Map<string, RegisteredConversion>();
  for (const candidate of classes) {
    let registered: RegisteredConversion;
    try {
      registered = prepareConversion(candidate, origin);
    } catch (error) {
      throw new RegistrationError((error as Error).message);
    }
    const { group, kind, path } = registered.conversion;
    const key = conversionKey(group, kind);
    const other = byKind.get(key);
    if (other) throw new RegistrationError(`${registered.source} and ${other.source} both convert ${kind} in group ${group}: a kind has one converter`);
    byKind.set(key, registered);
    const kinds = byPath.get(path) ?? new Map<string, RegisteredConversion>();
    byPath.set(path, kinds);
    kinds.set(key, registered);
  }
  return byPath;
}
