/**
 * A request's logger (`ctx.log`): pino, bound to the request, that costs
 * nothing until it writes and never writes a key twice in one line.
 *
 * Creating a pino child serialises its bindings (uid, name, namespace, …),
 * which was 2% of a small review's CPU for a handler whose `ctx.log.debug` is
 * off; this stands in for the child and makes it on the first call that logs
 * or reads it.
 *
 * pino writes the bindings, then the call's fields, without looking for
 * clashes: `ctx.log.info({ name })` wrote "name" twice. Here the call's fields
 * win over the request's bindings, as the last key wins for a JSON reader; and
 * what every line of the process carries (level, time, msg, the base logger's
 * bindings such as component) is never replaced: a field with one of those
 * names is written as `name_`.
 */
import type { ChildLoggerOptions, Logger } from 'pino';

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
type Fields = Record<string, unknown>;

const LEVEL_METHODS = new Set<PropertyKey>(['trace', 'debug', 'info', 'warn', 'error', 'fatal'] satisfies Level[]);
const silent = () => {
  // A level below the logger's: nothing to write.
};
const processKeysOf = new WeakMap<Logger, ReadonlySet<string>>();

export function lazyChildLogger(base: Logger, bindings: () => Fields, options?: ChildLoggerOptions): Logger {
  let bound: Fields | undefined;
  let child: Logger | undefined;
  const ownBindings = () => (bound ??= renameClashes(bindings(), processKeys(base), {}));
  const materialise = () => (child ??= base.child(ownBindings(), options));

  const log =
    (level: Level, real: Logger) =>
    (first: unknown, ...rest: unknown[]): void => {
      const writeMessage = rest.length > 0 && rest[0] !== undefined;
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it: no overload of pino's LogFn takes an unknown message
      if (!isFields(first) || !clashes(first, ownBindings(), processKeys(base), writeMessage)) return (real[level] as (...args: unknown[]) => void)(first, ...rest);
      // Rare: a line of its own, without the bindings the call replaces.
      const kept = Object.fromEntries(Object.entries(ownBindings()).filter(([key]) => !Object.hasOwn(first, key)));
      const line = base.child(kept, { ...options, level: real.level });
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- as above
      (line[level] as (...args: unknown[]) => void)(renameClashes(first, withMessageKey(processKeys(base), writeMessage), kept), ...rest);
    };

  return new Proxy(base, {
    get(_target, property) {
      if (LEVEL_METHODS.has(property)) {
        if (!child && !enabledBeforeMade(base, options, property as Level)) return silent;
        return log(property as Level, materialise());
      }
      if (property === 'child') {
        return (childBindings: Fields, childOptions?: ChildLoggerOptions) =>
          lazyChildLogger(base, () => ({ ...withoutKeys(ownBindings(), childBindings), ...childBindings }), { ...options, level: child?.level ?? options?.level ?? base.level, ...childOptions });
      }
      const real = materialise();
      const value = Reflect.get(real, property, real) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(real) : value;
    },
    set(_target, property, value) {
      return Reflect.set(materialise(), property, value);
    },
    has(_target, property) {
      return Reflect.has(materialise(), property);
    },
  });
}

/** Whether the child, once made, would write `level`: at its own level when it was given one, else at the base's. */
function enabledBeforeMade(base: Logger, options: ChildLoggerOptions | undefined, level: Level): boolean {
  const own = options?.level;
  return own === undefined ? base.isLevelEnabled(level) : base.levels.values[level]! >= base.levels.values[own]!;
}

/** Keys every line of `base` writes: level, time and its bindings (msg only when a message follows the fields). */
function processKeys(base: Logger): ReadonlySet<string> {
  let keys = processKeysOf.get(base);
  if (!keys) processKeysOf.set(base, (keys = new Set(['level', 'time', ...Object.keys(base.bindings())])));
  return keys;
}

function withMessageKey(keys: ReadonlySet<string>, writeMessage: boolean): ReadonlySet<string> {
  return writeMessage ? new Set([...keys, 'msg']) : keys;
}

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !(value instanceof Error);
}

function clashes(fields: Fields, bound: Fields, processKeys: ReadonlySet<string>, writeMessage: boolean): boolean {
  for (const key in fields) {
    if (Object.hasOwn(bound, key) || processKeys.has(key) || (writeMessage && key === 'msg')) return true;
  }
  return false;
}

/** `fields` with each key in `taken` renamed `key_` (or `key__`, … whichever is free). */
function renameClashes(fields: Fields, taken: ReadonlySet<string>, others: Fields): Fields {
  const renamed: Fields = {};
  for (const [key, value] of Object.entries(fields)) {
    let name = key;
    while (taken.has(name) || (name !== key && (Object.hasOwn(fields, name) || Object.hasOwn(others, name)))) name += '_';
    renamed[name] = value;
  }
  return renamed;
}

function withoutKeys(fields: Fields, keys: Fields): Fields {
  return Object.fromEntries(Object.entries(fields).filter(([key]) => !Object.hasOwn(keys, key)));
}
