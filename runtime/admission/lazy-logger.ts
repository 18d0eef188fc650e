/**
 * A request's logger that costs nothing until it writes. Creating a pino child
 * serialises its bindings (uid, name, namespace, …), which was 2% of a small
 * review's CPU for a handler whose `ctx.log.debug` is off; this stands in for
 * the child and makes it on the first call that logs or reads it.
 */
import type { Logger } from 'pino';

const LEVEL_METHODS = new Set<PropertyKey>(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
const silent = () => {};

export function lazyChildLogger(base: Logger, bindings: () => Record<string, unknown>): Logger {
  let child: Logger | undefined;
  const materialise = () => (child ??= base.child(bindings()));
  return new Proxy(base, {
    get(_target, property) {
      if (LEVEL_METHODS.has(property) && !child) {
        if (!base.isLevelEnabled(property as string)) return silent;
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
