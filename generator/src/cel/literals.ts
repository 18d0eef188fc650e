/**
 * Literal arguments Kubernetes' CEL environment checks when it compiles an
 * expression (cel.ValidateDurationLiterals, ValidateTimestampLiterals,
 * ValidateRegexLiterals, the regex precompilation of its regex library, and
 * ext.Strings' format validator), by Go's own rules: time.ParseDuration,
 * time.Parse(time.RFC3339) and RE2 syntax. Each returns what is wrong, or
 * undefined.
 */

const DURATION_UNITS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const INT64_LIMIT = 1n << 63n;

/** time.ParseDuration: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, or "0", within an int64 of nanoseconds. */
export function durationProblem(text: string): string | undefined {
  let rest = text;
  const negative = rest.startsWith('-');
  if (negative || rest.startsWith('+')) rest = rest.slice(1);
  if (rest === '0') return undefined;
  if (rest === '') return `invalid duration "${text}"`;
  let total = 0n;
  while (rest !== '') {
    const part = /^(\d*)(?:\.(\d*))?([^\d.]*)/.exec(rest)!;
    const [whole, digits = '', fraction, unit = ''] = part;
    if (digits === '' && !fraction) return `invalid duration "${text}"`;
    if (unit === '') return `missing unit in duration "${text}"`;
    const scale = DURATION_UNITS[unit];
    if (scale === undefined) return `unknown unit "${unit}" in duration "${text}"`;
    let value = BigInt(digits || '0');
    if (value > INT64_LIMIT / scale) return `invalid duration "${text}"`;
    value = value * scale + (fraction ? (BigInt(fraction) * scale) / 10n ** BigInt(fraction.length) : 0n);
    total += value;
    if (value > INT64_LIMIT || total > INT64_LIMIT) return `invalid duration "${text}"`;
    rest = rest.slice(whole.length);
  }
  return !negative && total > INT64_LIMIT - 1n ? `invalid duration "${text}"` : undefined;
}

/** CEL's timestamp range, 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z, in Unix seconds. */
const MIN_UNIX_SECONDS = -62135596800;
const MAX_UNIX_SECONDS = 253402300799;

/** time.Parse(time.RFC3339, …) as Go's fast path reads it, then CEL's range. */
export function timestampProblem(text: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|([+-])(\d{2}):(\d{2}))$/.exec(text);
  if (!match) return `invalid timestamp "${text}"`;
  const [year, month, day, hour, minute, second, sign, zoneHour, zoneMinute] = match.slice(1);
  const n = (part: string | undefined) => Number(part ?? 0);
  const daysInMonth = new Date(Date.UTC(2000, n(month), 0)).getUTCDate() - (n(month) === 2 && !isLeapYear(n(year)) ? 1 : 0);
  if (n(month) < 1 || n(month) > 12 || n(day) < 1 || n(day) > daysInMonth || n(hour) > 23 || n(minute) > 59 || n(second) > 59 || n(zoneHour) > 23 || n(zoneMinute) > 59) {
    return `invalid timestamp "${text}"`;
  }
  const offset = (sign === '-' ? -1 : 1) * (n(zoneHour) * 3600 + n(zoneMinute) * 60);
  return unixSecondsProblem(daysFromCivil(n(year), n(month), n(day)) * 86400 + n(hour) * 3600 + n(minute) * 60 + n(second) - offset, text);
}

export function unixSecondsProblem(seconds: number, text = String(seconds)): string | undefined {
  return seconds < MIN_UNIX_SECONDS || seconds > MAX_UNIX_SECONDS ? `timestamp "${text}" is out of range (years 1 to 9999)` : undefined;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** Escapes RE2 knows; any other escaped letter or digit is an error there (backreferences among them). */
const RE2_LETTER_ESCAPES = new Set('afnrtvdDsSwWbBAzpPQECx0');
const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/**
 * Whether Go's regexp (RE2 syntax) accepts `pattern`: the constructs RE2
 * refuses and JavaScript accepts are refused first, RE2 syntax JavaScript
 * lacks is rewritten, and JavaScript's parser judges the rest.
 */
export function regexProblem(pattern: string): string | undefined {
  if (/\(\?<?[=!]/.test(pattern)) return `error parsing regexp: invalid or unsupported Perl syntax (lookaround) in "${pattern}"`;
  for (const escape of pattern.matchAll(/\\(.)(?=(.?))/gsu)) {
    const [, char = '', next = ''] = escape;
    // \1 to \7 start an octal escape when another octal digit follows; alone they are backreferences.
    const octal = /[1-7]/.test(char) && /[0-7]/.test(next);
    if (/[A-Za-z0-9]/.test(char) && !RE2_LETTER_ESCAPES.has(char) && !octal) return `error parsing regexp: invalid escape sequence: \`\\${char}\``;
  }
  const [posix, posixName] = /\[:\^?(\w+):\]/.exec(pattern) ?? [];
  if (posixName !== undefined && !(posixName in POSIX_CLASSES)) return `error parsing regexp: invalid character class range: \`${posix!}\``;
  for (const repeat of pattern.matchAll(/\{(\d+)(?:,(\d*))?\}/g)) {
    if (Number(repeat[1]) > 1000 || Number(repeat[2] || 0) > 1000) return `error parsing regexp: invalid repeat count: \`${repeat[0]}\``;
  }
  const translated = pattern
    .replace(/\\Q(.*?)(?:\\E|$)/gs, (_, literal: string) => literal.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'))
    .replace(/\(\?P?<(\w+)>/g, '(?<$1>')
    .replace(/\(\?[imsU-]+\)/g, '')
    .replace(/\(\?[imsU-]+:/g, '(?:')
    .replace(/\[:(\w+):\]/g, (whole, name: string) => POSIX_CLASSES[name] ?? whole)
    .replace(/\\[pP]([A-Za-z])/g, '\\p{$1}')
    .replace(/\\z/g, '$')
    .replace(/\\A/g, '^')
    .replace(/\\C/g, '[\\s\\S]')
    .replace(/\\x\{([0-9A-Fa-f]+)\}/g, '\\u{$1}');
  try {
    new RegExp(translated, /\\[pP]|\\u\{/.test(translated) ? 'u' : '');
    return undefined;
  } catch (error) {
    const reason = (error as Error).message.replace(/^Invalid regular expression: \/.*\/\w*: /s, '');
    return `error parsing regexp: ${reason.charAt(0).toLowerCase()}${reason.slice(1)} in \`${pattern}\``;
  }
}

export type FormatArgumentKind = 'string' | 'int' | 'uint' | 'double' | 'bool' | 'bytes' | 'list' | 'map' | 'timestamp' | 'duration' | 'type' | 'null' | 'dyn' | 'other';

const CLAUSE_KINDS: Readonly<Record<string, { readonly kinds: readonly FormatArgumentKind[]; readonly what: string }>> = {
  s: {
    kinds: ['string', 'int', 'uint', 'double', 'bool', 'bytes', 'list', 'map', 'timestamp', 'duration', 'type', 'null'],
    what: 'string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps',
  },
  d: { kinds: ['int', 'uint'], what: 'decimal clause can only be used on integers' },
  f: { kinds: ['double', 'string'], what: 'fixed-point clause can only be used on doubles' },
  e: { kinds: ['double', 'string'], what: 'scientific clause can only be used on doubles' },
  b: { kinds: ['int', 'uint', 'bool'], what: 'only integers and bools can be formatted as binary' },
  x: { kinds: ['int', 'uint', 'string', 'bytes'], what: 'only integers, byte buffers, and strings can be formatted as hex' },
  X: { kinds: ['int', 'uint', 'string', 'bytes'], what: 'only integers, byte buffers, and strings can be formatted as hex' },
  o: { kinds: ['int', 'uint'], what: 'octal clause can only be used on integers' },
};

/**
 * ext.Strings' format validator: a literal format string against a list
 * literal of arguments, clause by clause. `kinds[i]` is the argument's type
 * kind; for %s, nested list and map literals count by their elements.
 */
export function formatProblem(format: string, kinds: readonly (readonly FormatArgumentKind[])[]): { message: string; argument?: number } | undefined {
  let argument = 0;
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') continue;
    if (format[i + 1] === '%') {
      i++;
      continue;
    }
    if (i + 1 >= format.length) return { message: 'could not parse formatting clause: unexpected end of string' };
    if (argument >= kinds.length) return { message: `index ${argument} out of range` };
    const precision = /^\.(\d*)/.exec(format.slice(i + 1));
    if (precision && i + 1 + precision[0].length >= format.length)
      return { message: 'could not parse formatting clause: error while parsing precision: could not find end of precision specifier' };
    if (precision?.[1] === '') return { message: 'could not parse formatting clause: error while parsing precision: error while converting precision to integer' };
    const verb = format[i + 1 + (precision?.[0].length ?? 0)]!;
    const clause = CLAUSE_KINDS[verb];
    if (!clause) return { message: `could not parse formatting clause: unrecognized formatting clause "${verb}"` };
    const bad = kinds[argument]!.find((kind) => kind !== 'dyn' && !clause.kinds.includes(kind));
    if (bad) return { message: `error during formatting: ${clause.what}, was given ${bad}`, argument };
    argument++;
    i += precision?.[0].length ?? 0;
    i++;
  }
  if (kinds.length > argument) return { message: `too many arguments supplied to string.format (expected ${argument}, got ${kinds.length})` };
  return undefined;
}
