/**
 * @bufbuild/cel with cel-spec's test registry (the conformance protos and the
 * well-known types) and its strings extension, as its own conformance
 * harness (cel-es packages/cel/src/testing.ts) sets it up. Two modes:
 * `checked` runs cel-spec's procedure (parse, type-check unless
 * disable_check, plan the checked expression, evaluate); unchecked plans the
 * parsed expression, as @bufbuild/cel's public API (run, plan) and its own
 * harness do, and type-checks only for typed_result tests. Its checker is not
 * exported in 0.6.1: it is loaded from dist/esm/check.js beside the entry point.
 *
 * Values: int ⇄ bigint, uint ⇄ CelUint, double ⇄ number, bytes ⇄ Uint8Array,
 * list ⇄ CelList, map ⇄ CelMap (typed keys), type ⇄ CelType, messages,
 * durations and timestamps ⇄ protobuf messages (bound as cel-spec gives them,
 * unpacked from their Any; a result message of a well-known type is read as
 * the CEL value it stands for).
 */
import type { Registry } from '@bufbuild/protobuf';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import type { CheckedExpr, Decl, Type } from '@bufbuild/cel-spec/cel/expr/checked_pb.js';
import type { ParsedExpr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import type { Value } from '@bufbuild/cel-spec/cel/expr/value_pb.js';
import {
  type CelEnv,
  celEnv,
  celFunc,
  type CelFunc,
  type CelInput,
  celList,
  celMap,
  celMethod,
  CelScalar,
  type CelType,
  celUint,
  type CelUint,
  isCelError,
  isCelList,
  isCelMap,
  isCelType,
  isCelUint,
  listType,
  mapType,
  objectType,
  parse,
  plan,
} from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { type Answer, type ConformanceTest, errorCode, firstLine } from './suite.ts';
import { type Cv, messageToCv, primitiveToCv, typeName } from './values.ts';

interface Checker {
  check(env: CelEnv, expr: ParsedExpr): CheckedExpr;
}

export async function loadChecker(): Promise<Checker> {
  return (await import(new URL('check.js', import.meta.resolve('@bufbuild/cel')).href)) as Checker;
}

const SCALARS: Readonly<Record<string, CelType>> = {
  int: CelScalar.INT,
  uint: CelScalar.UINT,
  double: CelScalar.DOUBLE,
  bool: CelScalar.BOOL,
  string: CelScalar.STRING,
  bytes: CelScalar.BYTES,
  dyn: CelScalar.DYN,
  null_type: CelScalar.NULL,
  type: CelScalar.TYPE,
};

/** cel.expr.Type as a CelType: what @bufbuild/cel can declare (scalars, lists, maps, messages). */
function celType(type: Type | undefined): CelType {
  const kind = type?.typeKind;
  if (kind?.case === 'listType') return listType(celType(kind.value.elemType));
  if (kind?.case === 'mapType') return mapType(celType(kind.value.keyType) as Parameters<typeof mapType>[0], celType(kind.value.valueType));
  if (kind?.case === 'messageType') return objectType(kind.value);
  if (kind?.case === 'wellKnown') return objectType(typeName(type));
  const scalar = SCALARS[typeName(type)];
  if (scalar) return scalar;
  throw new Error(`@bufbuild/cel cannot declare the type ${typeName(type)}`);
}

function declarations(decls: readonly Decl[]): { variables: Record<string, CelType>; funcs: CelFunc[] } {
  const variables: Record<string, CelType> = {};
  const funcs: CelFunc[] = [];
  for (const decl of decls) {
    if (decl.declKind.case === 'ident') variables[decl.name] = celType(decl.declKind.value.type);
    if (decl.declKind.case !== 'function') continue;
    for (const overload of decl.declKind.value.overloads) {
      const params = overload.params.map(celType);
      const result = celType(overload.resultType);
      funcs.push(overload.isInstanceFunction ? celMethod(decl.name, params[0]!, params.slice(1), result, () => null) : celFunc(decl.name, params, result, () => null));
    }
  }
  return { variables, funcs };
}

function typeValue(name: string): CelType {
  if (name === 'list') return listType(CelScalar.DYN);
  if (name === 'map') return mapType(CelScalar.DYN, CelScalar.DYN);
  return SCALARS[name] ?? objectType(name);
}

/** A binding as cel-es's own harness passes it (messages unpacked from their Any, enums as ints). */
function input(value: Value, registry: Registry): CelInput {
  const kind = value.kind;
  switch (kind.case) {
    case 'nullValue':
      return null;
    case 'uint64Value':
      return celUint(kind.value);
    case 'listValue':
      return celList(kind.value.values.map((item) => input(item, registry)));
    case 'mapValue':
      return celMap(new Map(kind.value.entries.map((entry) => [input(entry.key!, registry) as string | bigint | boolean | CelUint, input(entry.value!, registry)])));
    case 'objectValue': {
      const message = anyUnpack(kind.value, registry);
      if (!message) throw new Error(`cannot unpack ${kind.value.typeUrl}`);
      return message;
    }
    case 'typeValue':
      return typeValue(kind.value);
    case 'enumValue':
      return BigInt(kind.value.value);
    case undefined:
      throw new Error('empty cel.expr.Value');
    default:
      return kind.value;
  }
}

function toCv(value: unknown, registry: Registry): Cv {
  const primitive = primitiveToCv(value);
  if (primitive || value === null) return primitive!;
  if (isCelUint(value)) return { k: 'uint', v: value.value };
  if (isCelType(value)) return { k: 'type', v: value.name };
  if (isCelList(value)) return { k: 'list', v: [...value].map((item) => toCv(item, registry)) };
  if (isCelMap(value)) return { k: 'map', v: [...value].map(([key, item]) => [toCv(key, registry), toCv(item, registry)] as const) };
  if (isReflectMessage(value)) return messageToCv(value.desc, value.message, registry);
  throw new Error(`a ${typeof value === 'object' ? value.constructor.name : typeof value} has no CEL meaning here`);
}

export function bufbuildImplementation(checker: Checker, registry: Registry, checked: boolean): (item: ConformanceTest) => Answer {
  return ({ test }) => {
    let env: CelEnv;
    let bindings: Record<string, CelInput>;
    try {
      const { variables, funcs } = declarations(test.typeEnv);
      bindings = Object.fromEntries(Object.entries(test.bindings).map(([name, binding]) => [name, binding.kind.case === 'value' ? input(binding.kind.value, registry) : null]));
      for (const name of Object.keys(bindings)) variables[name] ??= CelScalar.DYN;
      env = celEnv({ registry, namespace: test.container, funcs: [...strings, ...funcs], variables });
    } catch (error) {
      return { stage: 'declare', code: errorCode(error), message: firstLine(error) };
    }
    let parsed: ParsedExpr;
    try {
      parsed = parse(test.expr);
    } catch (error) {
      return { stage: 'parse', code: errorCode(error), message: firstLine(error) };
    }
    let checkedExpr: CheckedExpr | undefined;
    let type: string | undefined;
    if ((checked && !test.disableCheck) || test.resultMatcher.case === 'typedResult') {
      try {
        checkedExpr = checker.check(env, parsed);
        type = typeName(checkedExpr.typeMap[String(checkedExpr.expr?.id)]);
      } catch (error) {
        return { stage: 'check', code: errorCode(error), message: firstLine(error) };
      }
      if (test.checkOnly) return { stage: 'type', type };
    }
    let result: unknown;
    try {
      result = plan(env, checkedExpr ?? parsed)(bindings);
    } catch (error) {
      return { stage: 'crash', code: `JavaScript ${(error as Error).name} (not a CEL error)`, message: firstLine(error) };
    }
    if (isCelError(result)) return { stage: 'eval-error', code: errorCode(result), message: firstLine(result), type };
    try {
      return { stage: 'value', value: toCv(result, registry), type };
    } catch (error) {
      return { stage: 'crash', code: 'unrepresentable result', message: firstLine(error) };
    }
  };
}
