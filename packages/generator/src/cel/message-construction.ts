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

/** Rewrites every message construction of `source` into a `__message__` call. Strings and comments are left alone. */
export function rewriteMessageConstruction(source: string): RewrittenSource {
  if (!source.includes('{')) return { text: source, typeNames: [], originOf: (offset) => offset };
  let text = '';
  const origins: number[] = [];
  const typeNames: string[] = [];
  const emit = (chunk: string, origin: number) => {
    text += chunk;
    for (let k = 0; k < chunk.length; k++) origins.push(origin);
  };
  const copy = (from: number, to: number) => {
    for (let k = from; k < to; k++) emit(source[k]!, k);
  };
  /** For each open brace: whether it opened a construction. */
  const braces: boolean[] = [];
  let previous = '';
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (ch === '/' && source[i + 1] === '/') {
      const end = source.indexOf('\n', i);
      copy(i, end < 0 ? source.length : end);
      i = end < 0 ? source.length : end;
      continue;
    }
    const prefix = /^(?:[rR][bB]?|[bB][rR]?)(?=['"])/.exec(source.slice(i, i + 3))?.[0];
    if (ch === '"' || ch === "'" || prefix) {
      const quoteAt = i + (prefix?.length ?? 0);
      const end = stringEnd(source, quoteAt, /r/i.test(prefix ?? ''));
      copy(i, end);
      i = end;
      previous = 'literal';
      continue;
    }
    if (ch === '`') {
      const end = source.indexOf('`', i + 1);
      copy(i, end < 0 ? source.length : end + 1);
      i = end < 0 ? source.length : end + 1;
      previous = 'identifier';
      continue;
    }
    if (isIdentifierStart(ch)) {
      const construction = previous === '.' ? undefined : constructionAt(source, i);
      if (construction) {
        typeNames.push(construction.name);
        emit(`${MESSAGE_MACRO}(`, i);
        copy(i, construction.brace);
        emit(', ', construction.brace);
        emit('{', construction.brace);
        braces.push(true);
        i = construction.brace + 1;
        previous = '{';
        continue;
      }
      let end = i;
      while (isIdentifierPart(source[end])) end++;
      copy(i, end);
      i = end;
      previous = 'identifier';
      continue;
    }
    if (/[0-9]/.test(ch)) {
      let end = i;
      while (/[0-9a-zA-Z_]/.test(source[end] ?? '') || (source[end] === '.' && /[0-9]/.test(source[end + 1] ?? ''))) end++;
      copy(i, end);
      i = end;
      previous = 'literal';
      continue;
    }
    if (ch === '{') braces.push(false);
    copy(i, i + 1);
    if (ch === '}' && braces.pop()) emit(')', i);
    if (!isSpace(ch)) previous = ch === '?' && source[i - 1] === '.' ? '.' : ch;
    i++;
  }
  origins.push(source.length);
  return { text, typeNames, originOf: (offset) => origins[Math.max(0, Math.min(offset, origins.length - 1))]! };
}
