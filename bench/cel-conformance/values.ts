/**
 * One representation of CEL values and types that both libraries' answers and
 * cel-spec's expectations are translated into, so that a test is judged the
 * same way for each: an int is a bigint tagged int, a uint a bigint tagged
 * uint, a double a number, bytes a Uint8Array, a map a list of typed entries
 * (compared without regard to order), a duration or timestamp its seconds
 * and nanos, a protobuf message the message itself (compared with
 * @bufbuild/protobuf's equals). Types are compared as strings in one
 * spelling: `list<int>`, `map<string, dyn>`, `optional<int>`, `null_type`.
 */
import { equals, type DescMessage, type Message, type Registry, toJson } from '@bufbuild/protobuf';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import { type Type, Type_PrimitiveType, Type_WellKnownType } from '@bufbuild/cel-spec/cel/expr/checked_pb.js';
import type { Value } from '@bufbuild/cel-spec/cel/expr/value_pb.js';

export type Cv =
  | { readonly k: 'null' }
  | { readonly k: 'bool'; readonly v: boolean }
  | { readonly k: 'int' | 'uint'; readonly v: bigint }
  | { readonly k: 'double'; readonly v: number }
  | { readonly k: 'string'; readonly v: string }
  | { readonly k: 'bytes'; readonly v: Uint8Array }
  | { readonly k: 'list'; readonly v: readonly Cv[] }
  | { readonly k: 'map'; readonly v: readonly (readonly [Cv, Cv])[] }
  | { readonly k: 'type'; readonly v: string }
  | { readonly k: 'duration' | 'timestamp'; readonly seconds: bigint; readonly nanos: number }
  | { readonly k: 'enum'; readonly type: string; readonly v: number }
  | { readonly k: 'message'; readonly desc: DescMessage; readonly message: Message }
  | { readonly k: 'optional'; readonly v: Cv | undefined }
  /** A key of a map held in a plain JavaScript object (cel-js): only its text survives, not whether it was an int, a uint, a bool or a string. */
  | { readonly k: 'key-text'; readonly v: string };

/** The well-known types CEL has values of its own for: a library needs no protobuf to hold these. */
/** A JavaScript primitive or byte array as the value it is in both libraries; undefined for anything else. */
export function primitiveToCv(value: unknown): Cv | undefined {
  if (value === null) return { k: 'null' };
  if (value instanceof Uint8Array) return { k: 'bytes', v: value };
  switch (typeof value) {
    case 'boolean':
      return { k: 'bool', v: value };
    case 'bigint':
      return { k: 'int', v: value };
    case 'number':
      return { k: 'double', v: value };
    case 'string':
      return { k: 'string', v: value };
    default:
      return undefined;
  }
}

export const CEL_WELL_KNOWN = new Set(['google.protobuf.Duration', 'google.protobuf.Timestamp']);
const JSON_TYPES = new Set(['google.protobuf.Value', 'google.protobuf.Struct', 'google.protobuf.ListValue']);
const WRAPPERS: Readonly<Record<string, 'int' | 'uint' | 'double' | 'bool' | 'string' | 'bytes'>> = {
  'google.protobuf.Int64Value': 'int',
  'google.protobuf.Int32Value': 'int',
  'google.protobuf.UInt64Value': 'uint',
  'google.protobuf.UInt32Value': 'uint',
  'google.protobuf.DoubleValue': 'double',
  'google.protobuf.FloatValue': 'double',
  'google.protobuf.BoolValue': 'bool',
  'google.protobuf.StringValue': 'string',
  'google.protobuf.BytesValue': 'bytes',
};

/** Whether a message of this type is, in CEL, a value of its own (duration, timestamp, a wrapper's primitive, JSON) rather than a message. */
export function isCelNative(typeName: string): boolean {
  return CEL_WELL_KNOWN.has(typeName) || JSON_TYPES.has(typeName) || typeName in WRAPPERS;
}

function fromJsonValue(json: unknown): Cv {
  if (json === null) return { k: 'null' };
  if (typeof json === 'boolean') return { k: 'bool', v: json };
  if (typeof json === 'number') return { k: 'double', v: json };
  if (typeof json === 'string') return { k: 'string', v: json };
  if (Array.isArray(json)) return { k: 'list', v: json.map(fromJsonValue) };
  return { k: 'map', v: Object.entries(json as object).map(([key, value]) => [{ k: 'string', v: key }, fromJsonValue(value)] as const) };
}

/** A message as CEL sees it: durations, timestamps, wrappers and JSON as CEL values, anything else as a message. */
export function messageToCv(desc: DescMessage, message: Message, registry: Registry): Cv {
  const fields = message as unknown as Record<string, unknown>;
  if (CEL_WELL_KNOWN.has(desc.typeName)) {
    return { k: desc.typeName === 'google.protobuf.Duration' ? 'duration' : 'timestamp', seconds: fields.seconds as bigint, nanos: Number(fields.nanos) };
  }
  const wrapped = WRAPPERS[desc.typeName];
  if (wrapped === 'int' || wrapped === 'uint') return { k: wrapped, v: BigInt(fields.value as bigint | number) };
  if (wrapped) return { k: wrapped, v: fields.value } as Cv;
  if (JSON_TYPES.has(desc.typeName)) return fromJsonValue(toJson(desc, message, { registry }));
  return { k: 'message', desc, message };
}

/** cel-spec's expected value (cel.expr.Value). */
export function expectedToCv(value: Value, registry: Registry): Cv {
  const kind = value.kind;
  switch (kind.case) {
    case 'nullValue':
      return { k: 'null' };
    case 'boolValue':
      return { k: 'bool', v: kind.value };
    case 'int64Value':
      return { k: 'int', v: kind.value };
    case 'uint64Value':
      return { k: 'uint', v: kind.value };
    case 'doubleValue':
      return { k: 'double', v: kind.value };
    case 'stringValue':
      return { k: 'string', v: kind.value };
    case 'bytesValue':
      return { k: 'bytes', v: kind.value };
    case 'listValue':
      return { k: 'list', v: kind.value.values.map((item) => expectedToCv(item, registry)) };
    case 'mapValue':
      return { k: 'map', v: kind.value.entries.map((entry) => [expectedToCv(entry.key!, registry), expectedToCv(entry.value!, registry)] as const) };
    case 'typeValue':
      return { k: 'type', v: kind.value };
    case 'enumValue':
      return { k: 'enum', type: kind.value.type, v: kind.value.value };
    case 'objectValue': {
      const message = anyUnpack(kind.value, registry);
      const desc = registry.getMessage(kind.value.typeUrl.slice(kind.value.typeUrl.lastIndexOf('/') + 1));
      if (!message || !desc) throw new Error(`cannot unpack ${kind.value.typeUrl}`);
      return messageToCv(desc, message, registry);
    }
    default:
      throw new Error(`unexpected cel.expr.Value kind ${String(kind.case)}`);
  }
}

function sameKey(expected: Cv, actual: Cv, registry: Registry): boolean {
  if (actual.k !== 'key-text') return sameValue(expected, actual, registry);
  if (expected.k === 'string') return expected.v === actual.v;
  if (expected.k === 'int' || expected.k === 'uint' || expected.k === 'bool') return String(expected.v) === actual.v;
  return false;
}

function sameEntries(expected: readonly (readonly [Cv, Cv])[], actual: readonly (readonly [Cv, Cv])[], registry: Registry): boolean {
  return (
    actual.length === expected.length && expected.every(([key, value]) => actual.some(([otherKey, otherValue]) => sameKey(key, otherKey, registry) && sameValue(value, otherValue, registry)))
  );
}

/** Whether `actual` is `expected`: the same kind and value (NaN is NaN), maps without regard to order, messages by protobuf equality. */
export function sameValue(expected: Cv, actual: Cv, registry: Registry): boolean {
  switch (expected.k) {
    case 'null':
      return actual.k === 'null';
    case 'double':
      return actual.k === 'double' && (actual.v === expected.v || (Number.isNaN(actual.v) && Number.isNaN(expected.v)));
    case 'bytes':
      return actual.k === 'bytes' && Buffer.from(actual.v).equals(Buffer.from(expected.v));
    case 'list':
      return actual.k === 'list' && actual.v.length === expected.v.length && expected.v.every((item, i) => sameValue(item, actual.v[i]!, registry));
    case 'map':
      return actual.k === 'map' && sameEntries(expected.v, actual.v, registry);
    case 'duration':
    case 'timestamp':
      return actual.k === expected.k && actual.seconds === expected.seconds && actual.nanos === expected.nanos;
    case 'enum':
      return actual.k === 'enum' && actual.type === expected.type && actual.v === expected.v;
    case 'message':
      return actual.k === 'message' && actual.desc.typeName === expected.desc.typeName && equals(expected.desc, expected.message, actual.message, { registry, unpackAny: true });
    case 'optional':
      return actual.k === 'optional' && (expected.v === undefined ? actual.v === undefined : actual.v !== undefined && sameValue(expected.v, actual.v, registry));
    case 'key-text':
      return actual.k === 'key-text' && actual.v === expected.v;
    default:
      return actual.k === expected.k && (actual as { v: unknown }).v === expected.v;
  }
}

/** A short rendering for the report: `1`, `1u`, `1.0`, `"a"`, `b"\x01"`, `[…]`, `{…}`. */
export function show(value: Cv): string {
  switch (value.k) {
    case 'null':
      return 'null';
    case 'bool':
      return String(value.v);
    case 'int':
      return String(value.v);
    case 'uint':
      return `${value.v}u`;
    case 'double':
      return Number.isInteger(value.v) ? value.v.toFixed(1) : String(value.v);
    case 'string':
      return JSON.stringify(value.v);
    case 'bytes':
      return `b"${[...value.v].map((byte) => (byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`)).join('')}"`;
    case 'list':
      return `[${value.v.map(show).join(', ')}]`;
    case 'map':
      return `{${value.v.map(([key, item]) => `${show(key)}: ${show(item)}`).join(', ')}}`;
    case 'type':
      return `type(${value.v})`;
    case 'duration':
    case 'timestamp':
      return `${value.k}(${value.seconds}s ${value.nanos}ns)`;
    case 'enum':
      return `${value.type}(${value.v})`;
    case 'message':
      return `${value.desc.typeName}{${JSON.stringify(toJson(value.desc, value.message)).slice(1, -1).slice(0, 80)}}`;
    case 'optional':
      return value.v === undefined ? 'optional.none()' : `optional.of(${show(value.v)})`;
    case 'key-text':
      return value.v;
  }
}

const PRIMITIVES: Readonly<Record<number, string>> = {
  [Type_PrimitiveType.BOOL]: 'bool',
  [Type_PrimitiveType.INT64]: 'int',
  [Type_PrimitiveType.UINT64]: 'uint',
  [Type_PrimitiveType.DOUBLE]: 'double',
  [Type_PrimitiveType.STRING]: 'string',
  [Type_PrimitiveType.BYTES]: 'bytes',
};
const WELL_KNOWN: Readonly<Record<number, string>> = {
  [Type_WellKnownType.ANY]: 'google.protobuf.Any',
  [Type_WellKnownType.TIMESTAMP]: 'google.protobuf.Timestamp',
  [Type_WellKnownType.DURATION]: 'google.protobuf.Duration',
};

/** cel.expr.Type in this module's spelling; a free type parameter is dyn, as cel-go's checker leaves it in a result. */
export function typeName(type: Type | undefined): string {
  const kind = type?.typeKind;
  switch (kind?.case) {
    case 'primitive':
      return PRIMITIVES[kind.value] ?? 'unspecified';
    case 'wrapper':
      return `wrapper<${PRIMITIVES[kind.value] ?? 'unspecified'}>`;
    case 'wellKnown':
      return WELL_KNOWN[kind.value] ?? 'unspecified';
    case 'listType':
      return `list<${typeName(kind.value.elemType)}>`;
    case 'mapType':
      return `map<${typeName(kind.value.keyType)}, ${typeName(kind.value.valueType)}>`;
    case 'messageType':
      return kind.value;
    case 'typeParam':
    case 'dyn':
      return 'dyn';
    case 'null':
      return 'null_type';
    case 'type':
      return 'type';
    case 'abstractType': {
      const name = kind.value.name === 'optional_type' ? 'optional' : kind.value.name;
      return kind.value.parameterTypes.length === 0 ? name : `${name}<${kind.value.parameterTypes.map(typeName).join(', ')}>`;
    }
    case 'error':
      return 'error';
    case 'function':
      return 'function';
    default:
      return 'unspecified';
  }
}

interface ParsedType {
  readonly name: string;
  readonly params: readonly ParsedType[];
}

function parseTypeText(text: string): ParsedType {
  const tokens = text.match(/[^\s<>,()]+|[<>,()]/g) ?? [];
  let at = 0;
  const next = (): ParsedType => {
    const name = tokens[at++] ?? '';
    const params: ParsedType[] = [];
    if (tokens[at] === '<' || tokens[at] === '(') {
      at++;
      while (at < tokens.length && tokens[at] !== '>' && tokens[at] !== ')') {
        params.push(next());
        if (tokens[at] === ',') at++;
      }
      at++;
    }
    return { name, params };
  };
  return next();
}

function printType(type: ParsedType): string {
  if (type.name === 'list' && type.params.length === 0) return 'list<dyn>';
  if (type.name === 'map' && type.params.length === 0) return 'map<dyn, dyn>';
  if (type.name === 'null') return 'null_type';
  if (/^[A-Z]$/.test(type.name)) return 'dyn';
  if (type.name === 'type') return 'type';
  if (type.name === 'optional_type') return printType({ name: 'optional', params: type.params });
  return type.params.length === 0 ? type.name : `${type.name}<${type.params.map(printType).join(', ')}>`;
}

/** A library's type text (`list`, `map<string, int>`, `optional<T>`, `null`) in this module's spelling. */
export function normalizeTypeText(text: string): string {
  return printType(parseTypeText(text));
}
