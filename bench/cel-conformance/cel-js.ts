/**
 * @marcbachmann/cel-js as the generator has it: the module and the
 * Environment options come from the generator's build
 * (generator/dist/cel/environment.js: loadCel(), and
 * admissionEnvironment().opts: optional types on, heterogeneous literals
 * allowed, cel-go's nesting limit, no other limits). `withLibrary` adds what
 * shaper-gen/testing evaluates policies with: declareKubernetesLibraries in
 * 'evaluate' mode (ext.Strings, ext.Sets, ext.Lists, the optional and
 * Kubernetes functions with the generator's local implementations).
 *
 * Values: int ⇄ bigint, uint ⇄ cel-js's UnsignedInt, double ⇄ number,
 * bytes ⇄ Uint8Array, list ⇄ Array, map → Map (cel-js returns a plain object
 * for a map literal, whose keys keep only their text), duration ⇄ cel-js's
 * Duration, timestamp ⇄ Date (milliseconds: finer nanos are lost on the way
 * in and cannot come out), type ⇄ cel-js's Type (its `null` is null_type),
 * optional ⇄ cel-js's Optional. The classes cel-js does not export
 * (UnsignedInt, Duration, Type) are taken from values it evaluates.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Registry } from '@bufbuild/protobuf';
import type { Type } from '@bufbuild/cel-spec/cel/expr/checked_pb.js';
import type { Decl } from '@bufbuild/cel-spec/cel/expr/checked_pb.js';
import type { Environment } from '@marcbachmann/cel-js';
import { type Answer, errorCode, firstLine, type ConformanceTest } from './suite.ts';
import { type Cv, expectedToCv, primitiveToCv, typeName } from './values.ts';

type CelModule = typeof import('@marcbachmann/cel-js');
type Constructor = new (...args: any[]) => any;

interface GeneratorCel {
  readonly cel: CelModule;
  readonly options: Environment['opts'];
  readonly declareKubernetesLibraries: (env: Environment, mode: 'check' | 'evaluate') => void;
  readonly CelJsUnsupported: Constructor;
  readonly CelRuntimeError: Constructor;
}

/** The generator's cel-js module, options and libraries, from its build (npm run build). */
export async function loadGeneratorCel(repo: string): Promise<GeneratorCel> {
  const dist = path.join(repo, 'generator/dist/cel');
  if (!existsSync(path.join(dist, 'environment.js'))) throw new Error(`bench: ${path.relative(repo, dist)} is missing: run without --no-build (or npm run build) first`);
  const load = async (file: string) => (await import(pathToFileURL(path.join(dist, file)).href)) as Record<string, any>;
  const environment = await load('environment.js');
  const library = await load('library.js');
  const runtime = await load('runtime-library.js');
  return {
    cel: environment.loadCel() as CelModule,
    options: (environment.admissionEnvironment() as Environment).opts,
    declareKubernetesLibraries: library.declareKubernetesLibraries,
    CelJsUnsupported: runtime.CelJsUnsupported,
    CelRuntimeError: runtime.CelRuntimeError,
  };
}

/** cel.expr.Type in cel-js's type syntax. */
function celJsType(type: Type | undefined): string {
  const kind = type?.typeKind;
  if (kind?.case === 'typeParam') return kind.value;
  if (kind?.case === 'null') return 'null';
  if (kind?.case === 'wellKnown' && typeName(type) === 'google.protobuf.Any') return 'dyn';
  if (kind?.case === 'listType') return `list<${celJsType(kind.value.elemType)}>`;
  if (kind?.case === 'mapType') return `map<${celJsType(kind.value.keyType)}, ${celJsType(kind.value.valueType)}>`;
  if (kind?.case === 'abstractType') {
    const name = kind.value.name === 'optional_type' ? 'optional' : kind.value.name;
    return `${name}<${kind.value.parameterTypes.map(celJsType).join(', ')}>`;
  }
  return typeName(type);
}

function declare(env: Environment, decls: readonly Decl[], bindings: readonly string[]): void {
  for (const decl of decls) {
    if (decl.declKind.case === 'ident') env.registerVariable(decl.name, celJsType(decl.declKind.value.type));
    if (decl.declKind.case !== 'function') continue;
    for (const overload of decl.declKind.value.overloads) {
      const params = overload.params.map(celJsType);
      const receiver = overload.isInstanceFunction ? `${params.shift()}.` : '';
      env.registerFunction(`${receiver}${decl.name}(${params.join(', ')}): ${celJsType(overload.resultType)}`, () => null);
    }
  }
  // A variable bound without a declaration (a disable_check test) is dyn.
  for (const name of bindings) if (!env.hasVariable(name)) env.registerVariable(name, 'dyn');
}

export function celJsImplementation(generator: GeneratorCel, registry: Registry, withLibrary: boolean): (item: ConformanceTest) => Answer {
  const { cel } = generator;
  const base = new cel.Environment(generator.options);
  if (withLibrary) generator.declareKubernetesLibraries(base, 'evaluate');
  // The value classes cel-js does not export, from values of their kind.
  const probe = new cel.Environment();
  const Uint = (probe.evaluate('1u') as object).constructor as Constructor;
  const Duration = (probe.evaluate('duration("1s")') as object).constructor as Constructor;
  const CelType = (probe.evaluate('int') as object).constructor as Constructor;

  const toInput = (value: Cv): unknown => {
    switch (value.k) {
      case 'null':
        return null;
      case 'uint':
        return new Uint(value.v);
      case 'list':
        return value.v.map(toInput);
      case 'map':
        return new Map(value.v.map(([key, item]) => [toInput(key), toInput(item)]));
      case 'type':
        return new CelType(value.v === 'null_type' ? 'null' : value.v);
      case 'duration':
        return new Duration(value.seconds, value.nanos);
      case 'timestamp':
        return new Date(Number(value.seconds) * 1000 + Math.floor(value.nanos / 1e6));
      case 'message':
      case 'enum':
      case 'optional':
      case 'key-text':
        throw new Error(`cel-js has no ${value.k} value`);
      default:
        return value.v;
    }
  };

  const toCv = (value: unknown): Cv => {
    const primitive = primitiveToCv(value);
    if (primitive || value === null) return primitive!;
    if (value instanceof Uint) return { k: 'uint', v: (value as { value: bigint }).value };
    if (value instanceof Duration) return { k: 'duration', seconds: (value as { seconds: bigint }).seconds, nanos: (value as { nanos: number }).nanos };
    if (value instanceof Date) {
      const ms = BigInt(value.getTime());
      const seconds = ms >= 0n ? ms / 1000n : -((-ms + 999n) / 1000n);
      return { k: 'timestamp', seconds, nanos: Number(ms - seconds * 1000n) * 1e6 };
    }
    if (value instanceof CelType) {
      const name = (value as { name: string }).name;
      return { k: 'type', v: name === 'null' ? 'null_type' : name };
    }
    if (value instanceof cel.Optional) return { k: 'optional', v: value.hasValue() ? toCv(value.value()) : undefined };
    if (Array.isArray(value)) return { k: 'list', v: value.map(toCv) };
    if (value instanceof Map) return { k: 'map', v: [...value].map(([key, item]) => [toCv(key), toCv(item)] as const) };
    const proto: unknown = typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
    if (proto === Object.prototype || proto === null) return { k: 'map', v: Object.entries(value as object).map(([key, item]) => [{ k: 'key-text', v: key }, toCv(item)] as const) };
    throw new Error(`a ${typeof value === 'object' ? value.constructor.name : typeof value} has no CEL meaning here`);
  };

  const isCelError = (error: unknown) => error instanceof cel.EvaluationError || error instanceof cel.TypeError || error instanceof cel.ParseError || error instanceof generator.CelRuntimeError;
  const thrown = (error: unknown, type?: string): Answer => {
    if (isCelError(error)) return { stage: 'eval-error', code: errorCode(error), message: firstLine(error), type };
    if (error instanceof generator.CelJsUnsupported) return { stage: 'crash', code: 'CelJsUnsupported: shaper-gen/testing has no local implementation', message: firstLine(error) };
    return { stage: 'crash', code: `JavaScript ${(error as Error).name} (not a CEL error)`, message: firstLine(error) };
  };

  return ({ test }) => {
    const env = base.clone();
    const names = Object.keys(test.bindings);
    let context: Record<string, unknown>;
    try {
      declare(env, test.typeEnv, names);
      context = Object.fromEntries(
        Object.entries(test.bindings).map(([name, binding]) => [name, binding.kind.case === 'value' ? toInput(expectedToCv(binding.kind.value, registry)) : undefined]),
      );
    } catch (error) {
      return { stage: 'declare', code: errorCode(error), message: firstLine(error) };
    }
    let parsed: ReturnType<Environment['parse']>;
    try {
      parsed = env.parse(test.expr);
    } catch (error) {
      return { stage: 'parse', code: errorCode(error), message: firstLine(error) };
    }
    let type: string | undefined;
    if (!test.disableCheck) {
      const checked = parsed.check();
      if (!checked.valid) return { stage: 'check', code: errorCode(checked.error), message: firstLine(checked.error) };
      type = checked.type;
      if (test.checkOnly) return { stage: 'type', type: type ?? 'dyn' };
    }
    let value: unknown;
    try {
      value = parsed(context);
    } catch (error) {
      return thrown(error, type);
    }
    try {
      return { stage: 'value', value: toCv(value), type };
    } catch (error) {
      return { stage: 'crash', code: 'unrepresentable result', message: firstLine(error) };
    }
  };
}
