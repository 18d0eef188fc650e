/**
 * Implementations of the Kubernetes and cel-go extension functions that
 * library.ts declares for cel-js. Local evaluation (`shaper-gen/testing`)
 * runs the API server's own evaluator (the CEL engine), not these: they serve
 * the cel-js side of the conformance benchmark. A declared function without
 * an implementation here (quantities, URLs, IPs and CIDRs, named formats,
 * semver, the authorizer) raises CelJsUnsupported rather than a guess.
 */

/** An expression used something cel-js has no implementation of. */
export class CelJsUnsupported extends Error {
  override name = 'CelJsUnsupported';
}

type Handler = (...args: never[]) => unknown;

/** cel-go's runtime error for a call it has no overload for. */
class CelRuntimeError extends Error {}

function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'bigint' && typeof b === 'number') return Number(a) === b;
  if (typeof a === 'number' && typeof b === 'bigint') return a === Number(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => celEquals(item, b[i]));
  if (a instanceof Map && b instanceof Map) return a.size === b.size && [...a].every(([k, v]) => b.has(k) && celEquals(v, b.get(k)));
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && celEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return false;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) return Number(a) < Number(b) ? -1 : Number(a) > Number(b) ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw new CelRuntimeError('no such overload');
}

function codePoints(text: string): string[] {
  return [...text];
}

/** RE2 syntax is close to JavaScript's `u` flag for what policies use; a pattern JavaScript refuses is reported, not guessed. */
function regex(pattern: string, flags = 'u'): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    throw new CelJsUnsupported(`the regular expression ${JSON.stringify(pattern)} is not one JavaScript can run (${(error as Error).message}); the API server uses RE2`);
  }
}

const distinct = (list: readonly unknown[]) => list.filter((item, i) => list.findIndex((other) => celEquals(other, item)) === i);
const sum = (list: readonly unknown[]) => {
  if (list.length === 0) return 0n;
  return list.reduce((total: unknown, item) => (typeof total === 'bigint' && typeof item === 'bigint' ? total + item : Number(total) + Number(item)));
};
const extreme = (sign: number) => (list: readonly unknown[]) => {
  if (list.length === 0) throw new CelRuntimeError(`${sign < 0 ? 'min' : 'max'} called on empty list`);
  return list.reduce((best, item) => (compare(item, best) * sign > 0 ? item : best));
};

/** By the signature library.ts declares; a receiver comes first. */
export const RUNTIME_FUNCTIONS: Readonly<Record<string, Handler>> = {
  'matches(string, string): bool': (text: string, pattern: string) => regex(pattern).test(text),
  'string.charAt(int): string': (text: string, index: bigint) => {
    const points = codePoints(text);
    if (index < 0n || index > BigInt(points.length)) throw new CelRuntimeError(`index out of range: ${index}`);
    return points[Number(index)] ?? '';
  },
  'string.replace(string, string): string': (text: string, from: string, to: string) => text.split(from).join(to),
  'string.replace(string, string, int): string': (text: string, from: string, to: string, count: bigint) => {
    if (count < 0n) return text.split(from).join(to);
    let result = text;
    let start = 0;
    for (let done = 0n; done < count; done++) {
      const at = result.indexOf(from, start);
      if (at < 0) break;
      result = result.slice(0, at) + to + result.slice(at + from.length);
      start = at + to.length;
    }
    return result;
  },
  'StringsNamespace.quote(string): string': (_: unknown, text: string) => JSON.stringify(text),
  'SetsNamespace.contains(list<A>, list<A>): bool': (_: unknown, list: unknown[], sub: unknown[]) => sub.every((item) => list.some((other) => celEquals(item, other))),
  'SetsNamespace.equivalent(list<A>, list<A>): bool': (_: unknown, a: unknown[], b: unknown[]) =>
    a.every((item) => b.some((other) => celEquals(item, other))) && b.every((item) => a.some((other) => celEquals(item, other))),
  'SetsNamespace.intersects(list<A>, list<A>): bool': (_: unknown, a: unknown[], b: unknown[]) => a.some((item) => b.some((other) => celEquals(item, other))),
  'list<T>.slice(int, int): list<T>': (list: unknown[], start: bigint, end: bigint) => {
    if (start < 0n || end < start || end > BigInt(list.length)) throw new CelRuntimeError(`cannot slice(${start}, ${end}), list is length ${list.length}`);
    return list.slice(Number(start), Number(end));
  },
  'list<list<T>>.flatten(): list<T>': (list: unknown[][]) => list.flat(),
  'list<dyn>.flatten(int): list<dyn>': (list: unknown[], depth: bigint) => list.flat(Number(depth)),
  'ListsNamespace.range(int): list<int>': (_: unknown, n: bigint) => Array.from({ length: Number(n) }, (__, i) => BigInt(i)),
  'list<T>.reverse(): list<T>': (list: unknown[]) => [...list].reverse(),
  'list<T>.distinct(): list<T>': distinct,
  'list<A>.indexOf(A): int': (list: unknown[], item: unknown) => BigInt(list.findIndex((other) => celEquals(other, item))),
  'list<A>.lastIndexOf(A): int': (list: unknown[], item: unknown) => BigInt(list.findLastIndex((other) => celEquals(other, item))),
  'string.find(string): string': (text: string, pattern: string) => regex(pattern).exec(text)?.[0] ?? '',
  'string.findAll(string): list<string>': (text: string, pattern: string) => [...text.matchAll(regex(pattern, 'gu'))].map((m) => m[0]),
  'string.findAll(string, int): list<string>': (text: string, pattern: string, limit: bigint) => {
    const all = [...text.matchAll(regex(pattern, 'gu'))].map((m) => m[0]);
    return limit < 0n ? all : all.slice(0, Number(limit));
  },
};

/** Implementations by signature pattern, for the families declared once per element type. */
export function runtimeFunction(signature: string): Handler | undefined {
  const own = RUNTIME_FUNCTIONS[signature];
  if (own) return own;
  if (/^list<.+>\.sort\(\): /.test(signature)) return (list: unknown[]) => [...list].sort(compare);
  if (/^list<.+>\.isSorted\(\): bool$/.test(signature)) return (list: unknown[]) => list.every((item, i) => i === 0 || compare(list[i - 1], item) <= 0);
  if (/^list<.+>\.min\(\): /.test(signature)) return extreme(-1);
  if (/^list<.+>\.max\(\): /.test(signature)) return extreme(1);
  if (/^list<.+>\.sum\(\): /.test(signature)) return sum;
  return undefined;
}

/** The function name of a signature, for messages: `kubernetes.Quantity.isLessThan` → `isLessThan`. */
function functionName(signature: string): string {
  const head = signature.slice(0, signature.indexOf('('));
  return head.slice(head.lastIndexOf('.') + 1);
}

/** What a declared function without a local implementation does when called. */
export function notLocal(signature: string): Handler {
  return () => {
    throw new CelJsUnsupported(`${functionName(signature)}() (${signature}) has no cel-js implementation`);
  };
}

export { CelRuntimeError };
