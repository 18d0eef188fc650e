/**
 * CEL message construction, `TypeName{field: value, …}`, which mutating
 * policies build their changes with (`Object{spec: Object.spec{replicas: 1}}`,
 * `JSONPatch{op: 'add', path: '/x', value: 1}`). @marcbachmann/cel-js does not
 * parse it, so the source is rewritten before parsing into a call of the
 * macro `__message__(TypeName, {field: value, …})`, whose type check and
 * evaluation are declared here; every offset in the rewritten text maps back
 * to the user's text, so that problems keep their column.
 */

/** The macro the construction is rewritten into; not a name users can reach (cel-go reserves `__` names). */
export const MESSAGE_MACRO = '__message__';

/** Words that are followed by `{` in ordinary CEL (`'a' in {…}`). */
const NOT_TYPE_NAMES = new Set(['in', 'true', 'false', 'null']);

export interface RewrittenSource {
  readonly text: string;
  /** The type names constructed, in order of appearance. */
  readonly typeNames: readonly string[];
  /** The offset in the original text of each offset in `text` (one past the end included). */
  originOf(offset: number): number;
}

const isIdentifierStart = (ch: string | undefined) => ch !== undefined && /[_a-zA-Z]/.test(ch);
const isIdentifierPart = (ch: string | undefined) => ch !== undefined && /[_a-zA-Z0-9]/.test(ch);
const isSpace = (ch: string | undefined) => ch !== undefined && /\s/.test(ch);

/** The end of the string literal whose quote starts at `at` (raw when `raw`), or the text's end when it is not closed. */
function stringEnd(source: string, at: number, raw: boolean): number {
  const quote = source.startsWith(source[at]!.repeat(3), at) ? source[at]!.repeat(3) : source[at]!;
  let i = at + quote.length;
  while (i < source.length) {
    if (!raw && source[i] === '\\') i += 2;
    else if (source.startsWith(quote, i)) return i + quote.length;
    else i++;
  }
  return source.length;
}

/** `Name.part.part` starting at `at`, then `{` after optional spaces: the name and where the `{` is; undefined if this is not a construction. */
function constructionAt(source: string, at: number): { name: string; brace: number } | undefined {
  const parts: string[] = [];
  let i = at;
  for (;;) {
    const start = i;
    while (isIdentifierPart(source[i])) i++;
    parts.push(source.slice(start, i));
    let j = i;
    while (isSpace(source[j])) j++;
    if (source[j] === '{') return NOT_TYPE_NAMES.has(parts[0]!) ? undefined : { name: parts.join('.'), brace: j };
    if (source[j] !== '.') return undefined;
    j++;
    while (isSpace(source[j])) j++;
    if (!isIdentifierStart(source[j])) return undefined;
    i = j;
  }
}

/** The end of the token at `i` that cannot hold a construction (comment, string, quoted name, number), or undefined. */
function opaqueTokenEnd(source: string, i: number): { end: number; kind: string } | undefined {
  const ch = source[i]!;
  if (ch === '/' && source[i + 1] === '/') {
    const end = source.indexOf('\n', i);
    return { end: end < 0 ? source.length : end, kind: 'comment' };
  }
  const prefix = /^(?:[rR][bB]?|[bB][rR]?)(?=['"])/.exec(source.slice(i, i + 3))?.[0];
  if (ch === '"' || ch === "'" || prefix) return { end: stringEnd(source, i + (prefix?.length ?? 0), /r/i.test(prefix ?? '')), kind: 'literal' };
  if (ch === '`') {
    const end = source.indexOf('`', i + 1);
    return { end: end < 0 ? source.length : end + 1, kind: 'identifier' };
  }
  if (/[0-9]/.test(ch)) {
    let end = i;
    while (/[0-9a-zA-Z_]/.test(source[end] ?? '') || (source[end] === '.' && /[0-9]/.test(source[end + 1] ?? ''))) end++;
    return { end, kind: 'literal' };
  }
  return undefined;
}

function identifierEnd(source: string, at: number): number {
  let end = at;
  while (isIdentifierPart(source[end])) end++;
  return end;
}

/** The rewritten text, with the offset in the source of each of its characters. */
class RewrittenText {
  text = '';
  readonly origins: number[] = [];

  constructor(private readonly source: string) {}

  emit(chunk: string, origin: number): void {
    this.text += chunk;
    this.origins.push(...Array.from(chunk, () => origin));
  }

  copy(from: number, to: number): void {
    for (let k = from; k < to; k++) this.emit(this.source[k]!, k);
  }

  result(typeNames: readonly string[]): RewrittenSource {
    const origins = [...this.origins, this.source.length];
    return { text: this.text, typeNames, originOf: (offset) => origins[Math.max(0, Math.min(offset, origins.length - 1))]! };
  }
}

/** Rewrites every message construction of `source` into a `__message__` call. Strings and comments are left alone. */
export function rewriteMessageConstruction(source: string): RewrittenSource {
  if (!source.includes('{')) return { text: source, typeNames: [], originOf: (offset) => offset };
  const out = new RewrittenText(source);
  const typeNames: string[] = [];
  /** For each open brace: whether it opened a construction. */
  const braces: boolean[] = [];
  let previous = '';
  let i = 0;
  while (i < source.length) {
    const opaque = opaqueTokenEnd(source, i);
    if (opaque) {
      out.copy(i, opaque.end);
      [i, previous] = [opaque.end, opaque.kind === 'comment' ? previous : opaque.kind];
      continue;
    }
    const ch = source[i]!;
    const construction = isIdentifierStart(ch) && previous !== '.' ? constructionAt(source, i) : undefined;
    if (construction) {
      typeNames.push(construction.name);
      out.emit(`${MESSAGE_MACRO}(`, i);
      out.copy(i, construction.brace);
      out.emit(', {', construction.brace);
      braces.push(true);
      [i, previous] = [construction.brace + 1, '{'];
    } else if (isIdentifierStart(ch)) {
      const end = identifierEnd(source, i);
      out.copy(i, end);
      [i, previous] = [end, 'identifier'];
    } else {
      if (ch === '{') braces.push(false);
      out.copy(i, i + 1);
      if (ch === '}' && braces.pop()) out.emit(')', i);
      if (!isSpace(ch)) previous = ch === '?' && source[i - 1] === '.' ? '.' : ch;
      i++;
    }
  }
  return out.result(typeNames);
}
