/**
 * A marker's argument read by its definition's ArgumentSpec: numbers,
 * strings, JSON values, `;`-separated lists, words and `key=value` pairs. A
 * value written `{@link NAME}` is the value of the const NAME, evaluated
 * statically (the same evaluation as `@Webhook` options).
 */
import { didYouMean } from 'shaper-gen/internal/generator';
import type { ArgumentSpec, KeySpec, MarkerDefinition } from './marker-definitions.js';
import { TokenError, tokenize, type MarkerTag, type Token } from './marker-syntax.js';

/** The value of the const a `{@link NAME}` token names; throws a TokenError when it has none. */
export type LinkResolver = (marker: MarkerTag, token: Token) => unknown;

export interface KeyArguments {
  readonly positional: string | undefined;
  readonly values: Readonly<Record<string, unknown>>;
  /** Where each key was written, for messages about its value. */
  readonly positions: Readonly<Record<string, number>>;
}

export type MarkerArgument = true | number | string | unknown[] | KeyArguments | { readonly value: unknown };

/** Reads a marker's argument; a malformed one is thrown as a TokenError at its position. */
export function readArgument(marker: MarkerTag, definition: MarkerDefinition, resolveLink: LinkResolver): MarkerArgument {
  const spec = definition.argument;
  const where = `@shaper:${definition.name}`;
  if (spec.kind === 'string') return readString(marker, where, resolveLink);
  if (spec.kind === 'value') return readValue(marker, where, resolveLink);
  const tokens = tokenize(marker);
  if (spec.kind === 'keys') return readKeys(marker, tokens, spec, where, resolveLink);
  if (spec.kind === 'flag') {
    if (tokens.length > 0) throw new TokenError(tokens[0]!.start, `${where} takes no argument`);
    return true;
  }
  if (spec.kind === 'list') return readList(marker, where, resolveLink);
  if (tokens.length !== 1 || tokens[0]!.key !== undefined) {
    throw new TokenError(tokens[1]?.start ?? tokens[0]?.start ?? marker.textStart, `${where} takes one argument: ${describe(spec)}`);
  }
  return readSingle(marker, tokens[0]!, spec, where, resolveLink);
}

function readSingle(marker: MarkerTag, token: Token, spec: ArgumentSpec, where: string, resolveLink: LinkResolver): MarkerArgument {
  const value = token.link ? resolveLink(marker, token) : token.quoted ? token.value : parseBare(token.value);
  if (spec.kind === 'number' && typeof value === 'number' && Number.isFinite(value)) return value;
  if (spec.kind === 'count' && typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (spec.kind === 'word' && typeof value === 'string' && spec.words.includes(value)) return value;
  throw new TokenError(token.start, `${where} takes ${describe(spec)}, not ${show(value)}`);
}

/** The rest of the line, or one JSON string, or a link. */
function readString(marker: MarkerTag, where: string, resolveLink: LinkResolver): string {
  if (marker.text === '') throw new TokenError(marker.textStart, `${where} needs an argument`);
  const tokens = tokenize(marker);
  const only = tokens.length === 1 ? tokens[0]! : undefined;
  if (only?.link || (only?.quoted && only.key === undefined)) {
    const value = only.link ? resolveLink(marker, only) : only.value;
    if (typeof value !== 'string') throw new TokenError(only.start, `${where} takes a string, not ${show(value)}`);
    return value;
  }
  return marker.text;
}

/** The whole rest of the line as JSON, else as a string; or a link. */
function readValue(marker: MarkerTag, where: string, resolveLink: LinkResolver): { value: unknown } {
  if (marker.text === '') throw new TokenError(marker.textStart, `${where} needs a value`);
  const tokens = tokenize(marker);
  if (tokens.length === 1 && tokens[0]!.link) return { value: resolveLink(marker, tokens[0]!) };
  return { value: parseBare(marker.text) };
}

/** `a;b;c`, each item a JSON value or a bare word; or a link to a const array. */
function readList(marker: MarkerTag, where: string, resolveLink: LinkResolver): unknown[] {
  const tokens = tokenize(marker);
  if (tokens.length === 1 && tokens[0]!.link) {
    const value = resolveLink(marker, tokens[0]!);
    if (!Array.isArray(value)) throw new TokenError(tokens[0]!.start, `${where} takes a list, and this const is ${show(value)}`);
    return value;
  }
  if (marker.text === '') throw new TokenError(marker.textStart, `${where} needs a list of values separated by ";"`);
  return splitList(marker.text).map((item) => parseBare(item));
}

function splitList(text: string): string[] {
  return text.split(';').map((item) => item.trim());
}

function readKeys(marker: MarkerTag, tokens: readonly Token[], spec: Extract<ArgumentSpec, { kind: 'keys' }>, where: string, resolveLink: LinkResolver): KeyArguments {
  let positional: string | undefined;
  const values: Record<string, unknown> = {};
  const positions: Record<string, number> = {};
  for (const token of tokens) {
    if (token.key === undefined) {
      if (!spec.positional || positional !== undefined || !spec.positional.includes(token.value)) {
        const expected = spec.positional ? `one of ${spec.positional.join(', ')} first, then key=value pairs` : `key=value pairs (${Object.keys(spec.keys).join(', ')})`;
        throw new TokenError(token.start, `${where} takes ${expected}, not ${JSON.stringify(token.value)}`);
      }
      positional = token.value;
      continue;
    }
    const key = Object.hasOwn(spec.keys, token.key) ? spec.keys[token.key] : undefined;
    if (!key) throw new TokenError(token.start, unknownKey(token.key, spec.keys, where));
    if (token.key in values) throw new TokenError(token.start, `${where}: ${token.key} is given twice`);
    values[token.key] = keyValue(marker, token, key, `${where} ${token.key}`, resolveLink);
    positions[token.key] = token.valueStart;
  }
  if (spec.positional && positional === undefined) throw new TokenError(marker.textStart, `${where} needs one of ${spec.positional.join(', ')}`);
  for (const [name, key] of Object.entries(spec.keys)) {
    if (key.required && !(name in values)) throw new TokenError(marker.textStart, `${where} needs ${name}=…`);
  }
  return { positional, values, positions };
}

function unknownKey(name: string, keys: Readonly<Record<string, KeySpec>>, where: string): string {
  const names = Object.keys(keys);
  const ours = names.find((key) => keys[key]!.kubebuilder === name);
  if (ours) return `${where}: write ${ours}=, not ${name}= ("${name}" is kubebuilder's name for it)`;
  return `${where} has no key ${JSON.stringify(name)}; ${didYouMean(name, names)}its keys: ${names.join(', ')}`;
}

function keyValue(marker: MarkerTag, token: Token, key: KeySpec, where: string, resolveLink: LinkResolver): unknown {
  const raw = token.link ? resolveLink(marker, token) : token.value;
  if (key.type === 'list') {
    if (Array.isArray(raw)) return raw;
    if (typeof raw === 'string' && raw !== '') return splitList(raw);
    throw new TokenError(token.valueStart, `${where} takes a list separated by ";"`);
  }
  if (key.type === 'integer') {
    const value = typeof raw === 'string' && !token.quoted ? parseBare(raw) : raw;
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
    throw new TokenError(token.valueStart, `${where} takes a whole number, not ${show(raw)}`);
  }
  if (key.type === 'boolean') {
    if (raw === 'true' || raw === true) return true;
    if (raw === 'false' || raw === false) return false;
    throw new TokenError(token.valueStart, `${where} takes true or false, not ${show(raw)}`);
  }
  if (typeof raw !== 'string') throw new TokenError(token.valueStart, `${where} takes a string, not ${show(raw)}`);
  if (key.words && !key.words.includes(raw)) throw new TokenError(token.valueStart, `${where} takes one of ${key.words.join(', ')}, not ${JSON.stringify(raw)}`);
  return raw;
}

/** JSON where the text is JSON (`50`, `true`, `{"a":1}`, `"x"`), else the text itself as a string. */
export function parseBare(text: string): unknown {
  if (!/^[-\d[{"]|^(true|false|null)$/.test(text)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function describe(spec: ArgumentSpec): string {
  switch (spec.kind) {
    case 'number':
      return 'a number';
    case 'count':
      return 'a whole number from 0';
    case 'word':
      return `one of ${spec.words.join(', ')}`;
    default:
      return 'a value';
  }
}

function show(value: unknown): string {
  // JSON.stringify gives undefined for undefined, whatever its types say.
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? String(value) : text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
