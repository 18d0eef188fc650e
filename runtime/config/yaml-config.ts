/**
 * Reads a YAML configuration file against a schema (schema.ts) and reports
 * every unknown key and wrong value as a Problem with its path, line and
 * column: the YAML becomes plain values, remembering where each was written,
 * and the schema's one checker does the rest.
 */
import { isMap, isNode, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { LocatedProblem, ProblemPath, SourceLocation } from '../problems.js';
import { checkDocument, type DocumentOf, type ObjectSchema } from './schema.js';

export interface YamlReadResult<S extends ObjectSchema> {
  readonly value: DocumentOf<S>;
  readonly problems: readonly LocatedProblem[];
}

/** A node the schema never accepts (an alias, a tag it does not know): every check says what was expected. */
const UNSUPPORTED = Symbol('unsupported YAML node');

interface Offsets {
  readonly key?: number;
  readonly value?: number;
}

/** Parses `text` and checks it against an object schema. An empty file is an empty object. */
export function readYamlConfig<S extends ObjectSchema>(text: string, schema: S, file: string): YamlReadResult<S> {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number): SourceLocation => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, column: col };
  };
  if (document.errors.length > 0) {
    return { value: checkDocument(null, schema, () => undefined), problems: document.errors.map((error) => ({ path: [], message: error.message.split('\n')[0]!, source: at(error.pos[0]) })) };
  }
  const offsets = new Map<string, Offsets>();
  const plain = toPlain(document.contents, [], offsets);
  const problems: LocatedProblem[] = [];
  const value = checkDocument(plain, schema, (path, message, onKey) => {
    const where = nearestOffsets(offsets, path);
    problems.push({ path, message, source: at((onKey ? where.key : where.value) ?? where.key ?? 0) });
  });
  return { value, problems };
}

function toPlain(node: unknown, path: ProblemPath, offsets: Map<string, Offsets>): unknown {
  if (isMap(node)) {
    // No prototype: a `__proto__` key is a key like any other (and an unknown one).
    const result = Object.create(null) as Record<string, unknown>;
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const childPath = [...path, key];
      offsets.set(JSON.stringify(childPath), { key: offsetOf(pair.key), value: offsetOf(pair.value) });
      result[key] = toPlain(pair.value, childPath, offsets);
    }
    return result;
  }
  if (isSeq(node)) {
    return node.items.map((item, i) => {
      offsets.set(JSON.stringify([...path, i]), { value: offsetOf(item) });
      return toPlain(item, [...path, i], offsets);
    });
  }
  if (isScalar(node)) return node.value;
  return node == null ? null : UNSUPPORTED;
}

function offsetOf(node: unknown): number | undefined {
  return isNode(node) ? node.range?.[0] : undefined;
}

/** Where `path` was written, or the closest enclosing setting. */
function nearestOffsets(offsets: Map<string, Offsets>, path: ProblemPath): Offsets {
  for (let length = path.length; length > 0; length--) {
    const found = offsets.get(JSON.stringify(path.slice(0, length)));
    if (found) return found;
  }
  return { value: 0 };
}
