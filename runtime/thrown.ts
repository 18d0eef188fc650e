/**
 * What a thrown value says about itself, read without ever throwing: handler
 * code may throw (or reject with) anything — null, a null-prototype object,
 * an Error whose `message` getter throws, a revoked Proxy.
 */
import { pino } from 'pino';

export interface ThrownDescription {
  /** The constructor name for objects, `typeof` otherwise. */
  type: string;
  message: string;
  stack?: string;
}

export function describeThrown(value: unknown): ThrownDescription {
  const type = attempt(() => typeName(value)) ?? 'object';
  const message = attempt(() => messageOf(value)) ?? `a thrown ${type} that cannot be described`;
  const stack = attempt(() => (value instanceof Error && typeof value.stack === 'string' ? value.stack : undefined));
  return stack === undefined ? { type, message } : { type, message, stack };
}

/** A log line's `err`: the Error itself when pino can serialize it (keeping its own fields), otherwise its description. */
export function loggableThrown(value: unknown): unknown {
  if (attempt(() => value instanceof Error && (pino.stdSerializers.err(value) as unknown) !== undefined)) return value;
  // Null prototype: pino's err serializer takes `type` from the constructor, and would call this an Object.
  return Object.assign(Object.create(null) as object, describeThrown(value));
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object' && typeof value !== 'function') return typeof value;
  const name: unknown = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'object';
}

function messageOf(value: unknown): string {
  if (value instanceof Error) {
    const message: unknown = value.message;
    if (typeof message === 'string') return message;
  }
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === null) return 'a null-prototype object';
  return String(value);
}

function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
