/**
 * The text of `@shaper:<name> <arguments>` JSDoc markers: where they are,
 * their name, and their arguments split into tokens with source positions.
 * What each marker means is marker-definitions.ts; this module only reads.
 *
 * TypeScript parses `@shaper:minimum 0` as the tag `shaper` with the comment
 * `:minimum 0`; the marker is read from the source text of the tag's first
 * line, so that every token keeps its column for `file:line:col` messages.
 */
import type { ts as TS } from 'ts-morph';
import { diagnosticIn, type Diagnostic } from '../diagnostics.js';
import { loadTypeScript } from '../typescript/compiler.js';

const ts = loadTypeScript();

export const MARKER_PREFIX = '@shaper:';
const TAG_NAME = 'shaper';

/** One marker as written. */
export interface MarkerTag {
  /** After `@shaper:`, e.g. `minimum`. */
  readonly name: string;
  readonly tag: TS.JSDocTag;
  readonly sourceFile: TS.SourceFile;
  /** Absolute position of the `@`. */
  readonly start: number;
  /** The arguments: the rest of the line after the name, trimmed. */
  readonly text: string;
  /** Absolute position of `text`'s first character. */
  readonly textStart: number;
}

/** An argument token: `value`, `key=value`, `key="quoted value"` or `{@link NAME}`. */
export interface Token {
  readonly key?: string;
  /** The value, unquoted; for a link, the name. */
  readonly value: string;
  /** Written as a JSON string: never read as a number or a keyword. */
  readonly quoted: boolean;
  /** Written as `{@link NAME}`: the value of the const NAME. */
  readonly link: boolean;
  /** Absolute position of the token's first character (the key's, when it has one). */
  readonly start: number;
  /** Absolute position of the value's first character. */
  readonly valueStart: number;
}

export interface Documentation {
  /** The JSDoc text before any tag, paragraphs kept, lines within one joined. */
  readonly description: string | undefined;
  readonly markers: readonly MarkerTag[];
}

/** A diagnostic at an absolute position of a source file. */
export function diagnosticAtPosition(sourceFile: TS.SourceFile, position: number, message: string): Diagnostic {
  const { line, character } = sourceFile.getLineAndCharacterOfPosition(position);
  return diagnosticIn(sourceFile.fileName, message, line + 1, character + 1);
}

/** The description and markers of a declaration's JSDoc; problems of form go to `diagnostics`. */
export function readDocumentation(node: TS.Node, diagnostics: Diagnostic[]): Documentation {
  const paragraphs: string[] = [];
  const markers: MarkerTag[] = [];
  for (const doc of jsDocsOf(node)) {
    const text = ts.getTextOfJSDocComment(doc.comment);
    if (text?.trim()) paragraphs.push(normalizeDescription(text));
    for (const tag of doc.tags ?? []) {
      const marker = readMarker(tag, diagnostics);
      if (marker) markers.push(marker);
    }
  }
  return { description: paragraphs.length > 0 ? paragraphs.join('\n\n') : undefined, markers };
}

/** The JSDoc blocks of a declaration (a variable's are on its statement). */
function jsDocsOf(node: TS.Node): TS.JSDoc[] {
  return ts.getJSDocCommentsAndTags(node).filter((n): n is TS.JSDoc => n.kind === ts.SyntaxKind.JSDoc);
}

/** Every `@shaper:` tag in a file, wherever it is: for names nobody reads (typos, misplaced markers). */
export function markerTagsIn(sourceFile: TS.SourceFile): TS.JSDocTag[] {
  // A variable's JSDoc is found from its statement and from its declaration: once each.
  const tags = new Set<TS.JSDocTag>();
  const visit = (node: TS.Node): void => {
    for (const doc of jsDocsOf(node)) for (const tag of doc.tags ?? []) if (tag.tagName.text === TAG_NAME) tags.add(tag);
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return [...tags].sort((a, b) => a.pos - b.pos);
}

/** Paragraphs separated by a blank line; the lines of one paragraph joined with a space, as `kubectl explain` reflows them anyway. */
function normalizeDescription(text: string): string {
  return text
    .trim()
    .split(/\n[ \t]*\n/)
    .map((paragraph) =>
      paragraph
        .split('\n')
        .map((line) => line.trim())
        .join(' '),
    )
    .join('\n\n');
}

export function readMarker(tag: TS.JSDocTag, diagnostics: Diagnostic[]): MarkerTag | undefined {
  if (tag.tagName.text !== TAG_NAME) return undefined;
  const sourceFile = tag.getSourceFile();
  const source = sourceFile.text;
  const start = tag.getStart(sourceFile);
  const lineEnd = endOfLine(source, start, tag.end);
  const line = source.slice(start, lineEnd).replace(/\*\/\s*$/, '');
  const match = /^@shaper:([A-Za-z][\w-]*)?/.exec(line);
  if (!match?.[1]) {
    diagnostics.push(diagnosticAtPosition(sourceFile, start, 'a marker is `@shaper:<name>` followed by its arguments, e.g. `@shaper:minimum 0`'));
    return undefined;
  }
  const rest = line.slice(match[0].length);
  if (rest !== '' && !/^\s/.test(rest)) {
    diagnostics.push(diagnosticAtPosition(sourceFile, start + match[0].length, `unexpected ${JSON.stringify(rest[0])} after @shaper:${match[1]}; separate the arguments with a space`));
    return undefined;
  }
  const continuation = source
    .slice(lineEnd, tag.end)
    .replace(/^\s*\*\/?/gm, '')
    .trim();
  if (continuation !== '') {
    const at = lineEnd + source.slice(lineEnd, tag.end).indexOf(continuation.slice(0, 20));
    diagnostics.push(diagnosticAtPosition(sourceFile, at, `a marker takes one line, and JSDoc gives the text after it to @shaper:${match[1]}: put descriptions before the markers`));
  }
  const leading = rest.length - rest.trimStart().length;
  return { name: match[1], tag, sourceFile, start, text: rest.trim(), textStart: start + match[0].length + leading };
}

function endOfLine(source: string, from: number, limit: number): number {
  const newline = source.indexOf('\n', from);
  return newline === -1 || newline > limit ? limit : newline;
}

/** Splits arguments into tokens; a problem of form is thrown as a message with its position. */
export function tokenize(marker: Pick<MarkerTag, 'text' | 'textStart'>): Token[] {
  const tokens: Token[] = [];
  const { text } = marker;
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    const start = i;
    const key = /^([A-Za-z][\w-]*)=/.exec(text.slice(i));
    if (key) i += key[0].length;
    const value = readValue(text, i, marker.textStart);
    tokens.push({ ...(key ? { key: key[1]! } : {}), value: value.value, quoted: value.quoted, link: value.link, start: marker.textStart + start, valueStart: marker.textStart + i });
    i = value.end;
  }
  return tokens;
}

export class TokenError extends Error {
  constructor(
    readonly position: number,
    message: string,
  ) {
    super(message);
  }
}

function readValue(text: string, from: number, offset: number): { value: string; quoted: boolean; link: boolean; end: number } {
  if (text[from] === '"') {
    const end = closingQuote(text, from);
    if (end === -1) throw new TokenError(offset + from, 'unterminated string: a quoted argument is a JSON string, "like \\"this\\""');
    try {
      return { value: JSON.parse(text.slice(from, end + 1)) as string, quoted: true, link: false, end: end + 1 };
    } catch (error) {
      throw new TokenError(offset + from, `invalid quoted string: ${(error as Error).message}`);
    }
  }
  const link = /^\{@link(?:code|plain)?\s+([A-Za-z_$][\w$]*)\s*\}/.exec(text.slice(from));
  if (link) return { value: link[1]!, quoted: false, link: true, end: from + link[0].length };
  let end = from;
  while (end < text.length && !/\s/.test(text[end]!)) end++;
  return { value: text.slice(from, end), quoted: false, link: false, end };
}

function closingQuote(text: string, from: number): number {
  for (let i = from + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/**
 * The position of `offset` in a key's value, where the value is written as it
 * is read (bare, or a quoted string without escapes); else undefined (a link
 * to a const, escapes).
 */
export function exactPositionInValue(marker: MarkerTag, valueStart: number, value: string, offset: number): number | undefined {
  const text = marker.sourceFile.text;
  if (text.startsWith(value, valueStart)) return valueStart + offset;
  if (text[valueStart] === '"' && text.startsWith(value, valueStart + 1)) return valueStart + 1 + offset;
  return undefined;
}

/** exactPositionInValue, or the value's start. */
export function positionInValue(marker: MarkerTag, valueStart: number, value: string, offset: number): number {
  return exactPositionInValue(marker, valueStart, value, offset) ?? valueStart;
}

/** The `{@link NAME}` node a link token was read from. */
export function linkNodeAt(marker: MarkerTag, position: number): TS.JSDocLink | undefined {
  const comment = marker.tag.comment;
  if (typeof comment === 'string' || !comment) return undefined;
  return comment.find((node): node is TS.JSDocLink => ts.isJSDocLink(node) && node.getStart(marker.sourceFile) === position);
}
