/**
 * Values printed the way the Go standard library prints them, so that messages
 * built here read exactly like the API server's own: strconv.Quote (`%q`),
 * `%v` of the numbers a Go validator holds, and encoding/json's Marshal.
 */

const NAMED_ESCAPES: Record<string, string> = { '\u0007': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\' };
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const LONE_SURROGATE = /\p{Surrogate}/u;

/** Go's strconv.Quote: printable runes as they are, the rest escaped. */
export function goQuote(text: string): string {
  let quoted = '"';
  for (const rune of text) {
    const named = NAMED_ESCAPES[rune];
    if (named) quoted += named;
    else if (LONE_SURROGATE.test(rune)) quoted += '\uFFFD';
    else if (PRINTABLE.test(rune)) quoted += rune;
    else quoted += escapeRune(rune.codePointAt(0)!);
  }
  return `${quoted}"`;
}

function escapeRune(code: number): string {
  if (code < 0x80) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\U${code.toString(16).padStart(8, '0')}`;
}

const INT64_LIMIT = 2 ** 63;

/**
 * `%v` of a JSON number as a Go validator would hold it: a whole number as an
 * int64, anything else as a float64 (shortest digits, exponent form outside
 * 1e-4 ≤ |v| < 1e6 like strconv's 'g').
 */
export function goNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < INT64_LIMIT) return BigInt(value).toString();
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  return String(value);
}

/** encoding/json's Marshal of a JSON value: object keys sorted as Go sorts map keys, HTML characters escaped. */
export function goJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}
