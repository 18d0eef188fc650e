/**
 * TypeScript types to a structural openAPIV3Schema, through the type checker.
 *
 * - `string`, `number` (`integer` unless `@shaper:type number`), `boolean`;
 *   unions of literals and enums → `enum`, in the order written;
 *   `string | number` → `x-kubernetes-int-or-string`; `T | null` → `nullable`.
 * - `T[]`, `readonly T[]`, `Array<T>` → `array` with `items`.
 * - interfaces and object types → `object` with `properties` (sorted) and
 *   `required` (the properties without `?`); nested types are inlined.
 * - `Record<string, T>` and index signatures → `additionalProperties`; of
 *   `unknown`, and `unknown`/`any`/`object` themselves →
 *   `x-kubernetes-preserve-unknown-fields`.
 * - shaper-gen's `ObjectMeta` → `type: object`, as controller-gen writes
 *   metav1.ObjectMeta; a kind's apiVersion, kind and metadata likewise.
 * - models of @kubernetes/client-node (`V1PodTemplateSpec`, `V1Condition`…)
 *   → the full schema of the Kubernetes type, inlined as controller-gen
 *   inlines it (kubernetes/structural.ts).
 * - JSDoc text → `description`; `@shaper:` schema markers on the property and
 *   on the named types it goes through (innermost first, the property's last).
 *
 * What has no structural schema (unions of objects, tuples, functions,
 * recursive types, Date, Map, types of other libraries the scan does not load) is a
 * diagnostic at the field, never a guess.
 */
import type { ts as TS } from 'ts-morph';
import { diagnosticAt } from '../diagnostics.js';
import { loadTypeScript } from '../typescript/compiler.js';
import { clientNodeDefinition, KUBERNETES_MINOR } from '../kubernetes/api-schemas.js';
import { expandDefinition } from '../kubernetes/structural.js';
import { isKnown, type KnownTypes } from './known-types.js';
import { readDocumentation } from './marker-syntax.js';
import type { MarkerReader } from './markers.js';
import { isSchemaLib } from './program.js';
import { applySchemaMarkers } from './schema-markers.js';
import { importedFrom, itemNode, mapValueNode, namedDeclarations, orderLiterals, unresolvedReference, unwrapNode, type NamedReference } from './type-nodes.js';
import type { Schema } from './types.js';

const ts = loadTypeScript();

const STANDARD_FIELDS = ['apiVersion', 'kind', 'metadata'];
const CLIENT_NODE = '@kubernetes/client-node';

type ScalarKind = 'string' | 'number' | 'boolean' | 'other';

export class SchemaBuilder {
  private readonly stack: TS.Type[] = [];

  constructor(
    private readonly checker: TS.TypeChecker,
    private readonly known: KnownTypes,
    private readonly markers: MarkerReader,
  ) {}

  /** A kind's openAPIV3Schema: apiVersion, kind and metadata as controller-gen writes them, then the kind's own properties. */
  kindSchema(declaration: TS.InterfaceDeclaration | TS.TypeAliasDeclaration, apiVersion: string): Schema {
    const type = this.checker.getTypeAtLocation(declaration.name);
    const own = this.object(type, undefined, declaration.name, true);
    const schema: Schema = { type: 'object' };
    const description = this.describe(declaration);
    if (description) schema.description = description;
    schema.properties = sortKeys({
      ...own.properties,
      apiVersion: { type: 'string', description: `The API group and version of this object: ${apiVersion}.` },
      kind: { type: 'string', description: `The kind of this object: ${declaration.name.text}.` },
      metadata: { type: 'object' },
    });
    const required = own.required?.filter((name) => !STANDARD_FIELDS.includes(name));
    if (required?.length) schema.required = required;
    for (const key of ['additionalProperties', 'x-kubernetes-preserve-unknown-fields'] as const) if (own[key] !== undefined) Object.assign(schema, { [key]: own[key] });
    applySchemaMarkers(schema, this.markers.markersOf(declaration, 'schema'), (marker, message, position) => this.markers.report(marker, message, position));
    // The kind's own metadata stays the API server's, whatever a marker on the kind (embeddedObjectMeta) did below it.
    schema.properties.metadata = { type: 'object' };
    return schema;
  }

  /** A field's schema: its type's shape, with the markers and description of the named types it goes through and of the field itself. */
  private usage(type: TS.Type, node: TS.TypeNode | undefined, at: TS.Node, field: TS.Node | undefined): Schema {
    const nullable = type.isUnion() && type.types.some((member) => member.flags & ts.TypeFlags.Null);
    // NonNullable<unknown> is `{}`: unknown and any stay what they are.
    const bare = type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown) ? type : this.checker.getNonNullableType(type);
    const named = namedDeclarations(this.checker, node, node ? undefined : bare);
    const schema = this.shape(bare, node, at);
    const description = (field && this.describe(field)) ?? named.map((declaration) => this.describe(declaration)).find((text) => text !== undefined);
    const markers = [...named].reverse().flatMap((declaration) => this.markers.markersOf(declaration, 'schema'));
    if (field) markers.push(...this.markers.markersOf(field, 'schema'));
    if (nullable) schema.nullable = true;
    if (description) schema.description = description;
    applySchemaMarkers(schema, markers, (marker, message, position) => this.markers.report(marker, message, position));
    return schema;
  }

  private describe(node: TS.Node): string | undefined {
    // Marker problems are reported by the MarkerReader; this reads the text only.
    return readDocumentation(node, []).description;
  }

  private shape(type: TS.Type, node: TS.TypeNode | undefined, at: TS.Node): Schema {
    const unresolved = unresolvedReference(this.checker, node);
    if (unresolved) return this.kubernetesType(unresolved) ?? this.fail(unresolved, this.unresolvedMessage(unresolved));
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return { 'x-kubernetes-preserve-unknown-fields': true };
    if (type.flags & ts.TypeFlags.NonPrimitive) return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    if (isKnown(type.getSymbol(), this.known.objectMeta)) return { type: 'object' };
    const scalar = this.scalar(type, node, unwrapNode(node) ?? at);
    if (scalar) return scalar;
    const where = unwrapNode(node) ?? at;
    if (type.isUnion())
      return this.fail(
        where,
        `${this.show(type)}: a union of object types has no structural schema; use one interface with optional fields (and a @shaper:validation rule for which may be set together)`,
      );
    if (this.checker.isTupleType(type)) return this.fail(where, `${this.show(type)}: a tuple has no structural schema; use a list (T[]) or an object`);
    if (this.checker.isArrayType(type)) return this.array(type, node, at);
    if (type.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection)) return this.object(type, node, where, false);
    return this.fail(where, `${this.show(type)} is not JSON data: a CRD field is a string, number, boolean, list or object`);
  }

  /** A string, number or boolean type (or a union of them); undefined when the type is none of these. */
  private scalar(type: TS.Type, node: TS.TypeNode | undefined, where: TS.Node): Schema | undefined {
    const members = type.isUnion() ? type.types : [type];
    const kinds = new Set(members.map(scalarKind));
    if (kinds.has('other')) {
      if (kinds.size === 1) return undefined;
      return this.fail(where, `${this.show(type)}: a union of scalars and objects has no structural schema`);
    }
    if (kinds.size === 2 && kinds.has('string') && kinds.has('number')) return { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true };
    if (kinds.size > 1) return this.fail(where, `${this.show(type)}: only string | number (int-or-string) may mix scalar types`);
    const literals = members.flatMap((member) => (member.isStringLiteral() || member.isNumberLiteral() ? [member.value] : []));
    if (kinds.has('boolean')) return { type: 'boolean' };
    if (kinds.has('string')) return literals.length === members.length ? { type: 'string', enum: orderLiterals(this.checker, node, literals) } : { type: 'string' };
    const numberType = literals.length > 0 && literals.every((value) => Number.isInteger(value)) ? 'integer' : literals.length > 0 ? 'number' : 'integer';
    return literals.length === members.length ? { type: numberType, enum: orderLiterals(this.checker, node, literals) } : { type: numberType };
  }

  private array(type: TS.Type, node: TS.TypeNode | undefined, at: TS.Node): Schema {
    const item = this.checker.getTypeArguments(type as TS.TypeReference)[0];
    if (!item) return this.fail(unwrapNode(node) ?? at, `${this.show(type)}: the list's item type is unknown`);
    return { type: 'array', items: this.usage(item, itemNode(this.checker, node), unwrapNode(node) ?? at, undefined) };
  }

  private object(type: TS.Type, node: TS.TypeNode | undefined, where: TS.Node, root: boolean): Schema {
    const problem = this.notData(type);
    if (problem) return this.fail(where, problem);
    if (this.stack.includes(type)) return this.fail(where, `${this.show(type)} contains itself: a CRD schema cannot be recursive; type the inner occurrence \`unknown\``);
    this.stack.push(type);
    try {
      const schema: Schema = { type: 'object' };
      this.properties(type, where, root, schema);
      this.indexSignature(type, node, where, root, schema);
      return schema;
    } finally {
      this.stack.pop();
    }
  }

  /** Why an object type is not JSON data (a function, a class of TypeScript's library), if it is not. */
  private notData(type: TS.Type): string | undefined {
    if (type.getCallSignatures().length > 0 || type.getConstructSignatures().length > 0) return `${this.show(type)} is a function, not JSON data`;
    const declarations = type.getSymbol()?.declarations ?? [];
    // The library's mapped types (Record, Readonly…) are data; its interfaces other than lists (Date, Map…) are not.
    if (declarations.length === 0 || !declarations.every((declaration) => isSchemaLib(declaration.getSourceFile()) && ts.isInterfaceDeclaration(declaration))) return undefined;
    const name = type.getSymbol()!.name;
    if (name === 'Date') return 'Date is not JSON: the API server stores a string; type the field `string` with `@shaper:format date-time`';
    if (name === 'Map' || name === 'Set') return `${name} is not JSON: use Record<string, T> for a map, or T[] with \`@shaper:listType set\` for a set`;
    return `${name} (from TypeScript's library) is not JSON data`;
  }

  private properties(type: TS.Type, where: TS.Node, root: boolean, schema: Schema): void {
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const property of this.checker.getPropertiesOfType(type)) {
      const name = property.getName();
      if (root && STANDARD_FIELDS.includes(name)) continue;
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      if (property.flags & ts.SymbolFlags.Method) {
        this.fail(declaration ?? where, `${name} is a method, not JSON data`);
        continue;
      }
      const node = declaration && (ts.isPropertySignature(declaration) || ts.isPropertyDeclaration(declaration)) ? declaration.type : undefined;
      properties[name] = this.usage(this.checker.getTypeOfSymbol(property), node, declaration ?? where, declaration);
      if (!(property.flags & ts.SymbolFlags.Optional)) required.push(name);
    }
    if (Object.keys(properties).length > 0) schema.properties = sortKeys(properties);
    if (required.length > 0) schema.required = required.sort(compareCodePoints);
  }

  private indexSignature(type: TS.Type, node: TS.TypeNode | undefined, where: TS.Node, root: boolean, schema: Schema): void {
    for (const info of this.checker.getIndexInfosOfType(type)) {
      const declaration = info.declaration;
      if (root && declaration && isKnown(this.checker.getSymbolAtLocation((declaration.parent as TS.InterfaceDeclaration).name), this.known.kubernetesObject)) continue;
      const at = declaration ?? where;
      if (!(info.keyType.flags & ts.TypeFlags.String)) {
        this.fail(at, `an index signature with ${this.show(info.keyType)} keys has no JSON schema; a map's keys are strings`);
        continue;
      }
      const valueNode = declaration ? declaration.type : mapValueNode(this.checker, node);
      // A value type that did not resolve (a Kubernetes model, a typo) is any to the checker, not unknown.
      if (info.type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown) && !unresolvedReference(this.checker, valueNode)) {
        schema['x-kubernetes-preserve-unknown-fields'] = true;
        continue;
      }
      if (schema.properties) {
        this.fail(
          at,
          'an object with properties cannot also be a map of typed values (properties and additionalProperties exclude each other); index it with `unknown`, or move the map into a property of its own',
        );
        continue;
      }
      schema.additionalProperties = this.usage(info.type, valueNode, at, declaration);
    }
  }

  /** A model of @kubernetes/client-node (`V1PodSpec`) as the full schema of the Kubernetes type it is generated from, as controller-gen inlines it. */
  private kubernetesType(reference: NamedReference): Schema | undefined {
    if (importedFrom(this.checker, reference) !== CLIENT_NODE) return undefined;
    const definition = clientNodeDefinition(modelName(reference));
    const schema = definition === undefined ? undefined : expandDefinition(definition, { descriptions: true, objectMeta: 'object' });
    // The expansion is shared between fields; markers change the field's copy.
    return schema && structuredClone(schema);
  }

  private unresolvedMessage(reference: NamedReference): string {
    const name = (ts.isTypeReferenceNode(reference) ? reference.typeName : reference.qualifier).getText();
    const from = importedFrom(this.checker, reference);
    if (from === CLIENT_NODE) {
      return `${name} from ${CLIENT_NODE} is not a model of Kubernetes ${KUBERNETES_MINOR}'s GA API (the schemas of beta and alpha APIs are not shipped): use a GA type (V1…), declare the fields you need in an interface of your own, or type the field \`unknown\` (kept as is, with x-kubernetes-preserve-unknown-fields)`;
    }
    if (from !== undefined && !from.startsWith('.')) return `${name} from ${from}: the CRD scan reads the types of the project's sources and of shaper-gen, not of other packages`;
    return `cannot find the type ${name}`;
  }

  private show(type: TS.Type): string {
    return `\`${this.checker.typeToString(type)}\``;
  }

  private fail(node: TS.Node, message: string): Schema {
    this.markers.diagnostics.push(diagnosticAt(node, message));
    return {};
  }
}

/** The model a reference names: `V1PodSpec`, also written `k8s.V1PodSpec` or `import('@kubernetes/client-node').V1PodSpec`. */
function modelName(reference: NamedReference): string {
  const name = ts.isTypeReferenceNode(reference) ? reference.typeName : reference.qualifier;
  return ts.isQualifiedName(name) ? name.right.text : name.text;
}

function scalarKind(type: TS.Type): ScalarKind {
  if (type.flags & ts.TypeFlags.StringLike) return 'string';
  if (type.flags & ts.TypeFlags.NumberLike) return 'number';
  if (type.flags & ts.TypeFlags.BooleanLike) return 'boolean';
  return 'other';
}

function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compareCodePoints(a, b)));
}
