/**
 * What a mutating policy's expressions have beyond the admission environment
 * (k8s.io/apiserver pkg/admission/plugin/cel: hasPatchTypes): the
 * `JSONPatch{op, path, from, value}` type, the `Object` types its
 * ApplyConfiguration is built from, and `jsonpatch.escapeKey()`. As the API
 * server types them, `Object` and every `Object.<path>` take any field
 * (pkg/cel/mutation/dynamic); with the resource's schema (schema-types.ts)
 * `Object.spec{…}` takes the fields of `spec` in the schema, each of its
 * type, so that a misspelt field is an error at its column.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { checkOnly } from './library.js';
import { MESSAGE_MACRO } from './message-construction.js';
import { OBJECT_META_TYPE } from './schema-types.js';
import type { Node, TypeDeclaration } from './cel-js-internals.js';

/** Where a constructed message keeps its type name at run time (the value itself is a plain object, as maps are). */
export const MESSAGE_TYPE: unique symbol = Symbol('shaper-gen CEL message type');

export const OBJECT_TYPE = 'Object';
export const JSON_PATCH_TYPE = 'JSONPatch';

interface Checker {
  check(node: Node, ctx: unknown): TypeDeclaration;
  getType(name: string): TypeDeclaration;
  createError(code: string, message: string, node: Node): Error;
  readonly objectTypes: ReadonlyMap<string, { readonly fields?: Readonly<Record<string, TypeDeclaration>> }>;
}
interface Evaluator {
  run(node: Node, ctx: unknown): unknown;
}
interface MessageMacro {
  readonly args: readonly [Node, Node];
}

export interface MutationTypesOptions {
  /** The type names the expression constructs (rewriteMessageConstruction): each `Object…` one is declared. */
  readonly typeNames: readonly string[];
  /** `Object` is the resource's schema type (declared before): fields are checked against it. */
  readonly schemaTyped: boolean;
}

/** The dotted name of `Object.spec` as the parser read it: an identifier and field selections. */
function dottedName(node: Node): string | undefined {
  if (node.op === 'id' && typeof node.args === 'string') return node.args;
  if (node.op === '.' && Array.isArray(node.args)) {
    const [receiver, field] = node.args as [Node, string];
    const head = dottedName(receiver);
    return head === undefined ? undefined : `${head}.${field}`;
  }
  return undefined;
}

const NUMBERS = new Set(['int', 'uint', 'double']);

/** Whether a value of type `value` can be written to a field of type `field` (JSON in the end: numbers mix, timestamps are strings). */
function fits(value: TypeDeclaration, field: TypeDeclaration): boolean {
  if (value.kind === 'dyn' || field.kind === 'dyn' || value.name === 'null_type' || value.name === field.name) return true;
  if (field.name === 'int') return value.name === 'int' || value.name === 'uint';
  if (field.name === 'double') return NUMBERS.has(value.name);
  if ((field.name === 'google.protobuf.Timestamp' || field.name === 'google.protobuf.Duration') && value.name === 'string') return true;
  if (field.kind === 'list') return value.kind === 'list' && fits(value.valueType!, field.valueType!);
  if (field.kind === 'map') return value.kind === 'map' && fits(value.valueType!, field.valueType!);
  if (field.kind === 'message') return value.kind === 'map';
  return false;
}

/** A field's type, with lists and maps looked through: what a construction inside it is of. */
function elementOf(type: TypeDeclaration): TypeDeclaration {
  return (type.kind === 'list' || type.kind === 'map') && type.valueType ? elementOf(type.valueType) : type;
}

interface Target {
  readonly type: TypeDeclaration;
  /** undefined: any field, of any type. */
  readonly fields?: Readonly<Record<string, TypeDeclaration>>;
}

function target(checker: Checker, name: string, node: Node, schemaTyped: boolean): Target {
  if (name === JSON_PATCH_TYPE) return { type: checker.getType(name), fields: checker.objectTypes.get(name)!.fields };
  if (name !== OBJECT_TYPE && !name.startsWith(`${OBJECT_TYPE}.`)) throw checker.createError('undeclared_reference', `undeclared reference to '${name}' (in container '')`, node);
  if (!schemaTyped) return { type: checker.getType(name) };
  // The schema's type of the field the name's path leads to: `Object.spec.ports` is an item of spec.ports.
  let type = checker.getType(OBJECT_TYPE);
  const path = name.split('.').slice(1);
  for (const [i, segment] of path.entries()) {
    if (type.kind === 'dyn') break;
    const fields = checker.objectTypes.get(type.name)?.fields ?? {};
    const field = fields[segment] ?? (i === 0 ? implicitField(checker, segment) : undefined);
    if (!field) throw checker.createError('no_such_field', `${[OBJECT_TYPE, ...path.slice(0, i)].join('.')} has no field '${segment}' in the resource's schema`, node);
    type = elementOf(field);
  }
  if (type.kind === 'dyn') return { type };
  if (type.kind !== 'message') throw checker.createError('invalid_construction', `${name} is a ${type.name} in the resource's schema, not an object: give the value itself`, node);
  return { type, fields: checker.objectTypes.get(type.name)?.fields ?? {} };
}

/** The fields every resource has, whether or not its CRD's schema lists them: ObjectMeta as schema-types.ts declares it (dyn where no schema declared it), apiVersion and kind. */
function implicitField(checker: Checker, name: string): TypeDeclaration | undefined {
  if (name === 'metadata') return checker.objectTypes.has(OBJECT_META_TYPE) ? checker.getType(OBJECT_META_TYPE) : checker.getType('dyn');
  return name === 'apiVersion' || name === 'kind' ? checker.getType('string') : undefined;
}

function typeCheck(schemaTyped: boolean) {
  return (checker: Checker, macro: MessageMacro, ctx: unknown): TypeDeclaration => {
    const [nameNode, mapNode] = macro.args;
    const name = dottedName(nameNode);
    if (name === undefined) throw checker.createError('invalid_construction', 'a message type name must be an identifier, like Object.spec', nameNode);
    const { type, fields } = target(checker, name, nameNode, schemaTyped);
    for (const [key, value] of mapNode.args as [Node, Node][]) {
      if (key.op !== 'id' || typeof key.args !== 'string') throw checker.createError('invalid_construction', `a field of ${name}{…} must be a name, not an expression`, key);
      const valueType = checker.check(value, ctx);
      if (!fields) continue;
      const fieldType = fields[key.args] ?? (name === OBJECT_TYPE ? implicitField(checker, key.args) : undefined);
      if (!fieldType) {
        const where = name === JSON_PATCH_TYPE ? 'JSONPatch has the fields op, path, from and value' : `in the resource's schema`;
        throw checker.createError('no_such_field', `${name} has no field '${key.args}' ${name === JSON_PATCH_TYPE ? `(${where})` : where}`, key);
      }
      if (!fits(valueType, fieldType)) throw checker.createError('type_mismatch', `field '${key.args}' of ${name} is ${fieldType.name}, got ${valueType.name}`, value);
    }
    return type;
  };
}

function evaluate(ev: Evaluator, macro: MessageMacro, ctx: unknown): Record<string | symbol, unknown> {
  const [nameNode, mapNode] = macro.args;
  const message: Record<string | symbol, unknown> = {};
  Object.defineProperty(message, MESSAGE_TYPE, { value: dottedName(nameNode), enumerable: false });
  for (const [key, value] of mapNode.args as [Node, Node][]) message[key.args as string] = ev.run(value, ctx);
  return message;
}

/** `jsonpatch.escapeKey(k)`: a map key as a JSON Pointer token (RFC 6901: `~` → `~0`, `/` → `~1`). */
export function escapeKey(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Declares the patch types, the message-construction macro and `jsonpatch.escapeKey` in `env`. */
export function declareMutationLibrary(env: Environment, options: MutationTypesOptions, evaluating: boolean): void {
  env.registerType(JSON_PATCH_TYPE, { fields: { op: 'string', path: 'string', from: 'string', value: 'dyn' } });
  const declared = new Set<string>([JSON_PATCH_TYPE]);
  if (!options.schemaTyped) {
    for (const name of [OBJECT_TYPE, ...options.typeNames]) {
      if (declared.has(name) || (name !== OBJECT_TYPE && !name.startsWith(`${OBJECT_TYPE}.`))) continue;
      declared.add(name);
      env.registerType(name, { fields: {} });
    }
  }
  // eslint-disable-next-line @typescript-eslint/no-extraneous-class -- cel-js registers a type by its constructor: the namespace needs a class of its own
  const Namespace = class {};
  Object.defineProperty(Namespace, 'name', { value: 'JsonPatchNamespace' });
  env.registerType('JsonPatchNamespace', Namespace).registerConstant('jsonpatch', 'JsonPatchNamespace', new Namespace());
  env.registerFunction('JsonPatchNamespace.escapeKey(string): string', evaluating ? (_: unknown, key: string) => escapeKey(key) : checkOnly);
  const check = typeCheck(options.schemaTyped);
  env.registerFunction(`${MESSAGE_MACRO}(ast, ast): dyn`, ({ args }: MessageMacro) => ({ args, typeCheck: check, evaluate, async: false }));
}
