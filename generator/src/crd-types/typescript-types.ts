/**
 * One version of a kind's structural schema as TypeScript interfaces, as
 * kube-rs's kopium writes Rust structs: each object with properties an
 * interface (type-names.ts), `required` fields required and the others
 * optional, arrays `T[]`, `additionalProperties` maps, enums string-literal
 * unions, `nullable` `| null`, `x-kubernetes-int-or-string` `number | string`,
 * `x-kubernetes-preserve-unknown-fields` an index signature of `unknown`, an
 * `x-kubernetes-embedded-resource` an object with apiVersion, kind and
 * ObjectMeta; descriptions and list types as JSDoc.
 */
import type { CrdSchema } from './crd-files.js';
import { type NameAllocator, pascalCase } from './type-names.js';

/** How `metadata` is typed: the runtime's ObjectMeta, imported by the module. */
export const OBJECT_META = 'ObjectMeta';

export interface KindTypes {
  /** The kind's own type name (the kind, unless taken). */
  readonly name: string;
  /** Its interfaces, root first, each with its JSDoc. */
  readonly declarations: readonly string[];
}

interface Named {
  readonly name: string;
  readonly schema: CrdSchema;
  readonly root: boolean;
  readonly children: Named[];
}

/**
 * The interfaces of `kind` from its version's `schema`; names come from
 * `names`, which the kind's own name was already claimed from (`kindName`).
 * `about` is JSDoc for the kind's type, after the schema's description.
 */
export function kindTypes(kindName: string, schema: CrdSchema | undefined, names: NameAllocator, about: readonly string[]): KindTypes {
  const root: CrdSchema = schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  // Named breadth first, so that a shallower path keeps the plain name when two paths spell the same one;
  // declared depth first, each interface followed by those of its fields.
  const queue: Named[] = [{ name: kindName, schema: root, root: true, children: [] }];
  const nameOf = new Map<CrdSchema, string>();
  // for-of visits what is pushed while it runs.
  for (const parent of queue) {
    for (const [field, child] of Object.entries(parent.schema.properties ?? {})) {
      const object = namedObjectIn(child);
      if (!object || nameOf.has(object) || (field === 'metadata' && hasObjectMeta(parent.schema, parent.root))) continue;
      const named: Named = { name: names.claim(`${parent.name}${pascalCase(field)}`), schema: object, root: false, children: [] };
      nameOf.set(object, named.name);
      parent.children.push(named);
      queue.push(named);
    }
  }
  const declare = ({ name, schema: node, root: isRoot, children }: Named): string[] => [
    interfaceText(name, node, isRoot, (child) => typeOf(child, nameOf), isRoot ? [...describe(node), ...(about.length > 0 && node.description ? [''] : []), ...about] : describe(node)),
    ...children.flatMap(declare),
  ];
  const declarations = declare(queue[0]!);
  return { name: kindName, declarations };
}

/** A kind's root, or an embedded resource: an object with apiVersion, kind and ObjectMeta. */
function hasObjectMeta(schema: CrdSchema, isRoot: boolean): boolean {
  return isRoot || schema['x-kubernetes-embedded-resource'] === true;
}

/** The object an interface is declared for at this field: the field's own, or its array items' or map values', at any depth. */
function namedObjectIn(schema: CrdSchema): CrdSchema | undefined {
  if (schema.type === 'array') return schema.items && namedObjectIn(schema.items);
  if (schema.type !== 'object') return undefined;
  if (schema.properties !== undefined || schema['x-kubernetes-embedded-resource']) return schema;
  return typeof schema.additionalProperties === 'object' ? namedObjectIn(schema.additionalProperties) : undefined;
}

function interfaceText(name: string, schema: CrdSchema, isRoot: boolean, typeOfChild: (schema: CrdSchema) => string, doc: readonly string[]): string {
  const properties = new Map<string, { child: CrdSchema; type: string }>();
  if (hasObjectMeta(schema, isRoot)) {
    // The type meta and ObjectMeta every object has, first, whether or not the schema spells them out.
    for (const field of ['apiVersion', 'kind']) properties.set(field, { child: schema.properties?.[field] ?? { type: 'string' }, type: 'string' });
    const metadata = schema.properties?.metadata ?? { type: 'object' };
    properties.set('metadata', { child: metadata, type: metadata.nullable ? `${OBJECT_META} | null` : OBJECT_META });
  }
  for (const [field, child] of Object.entries(schema.properties ?? {})) if (!properties.has(field)) properties.set(field, { child, type: typeOfChild(child) });
  const required = new Set(schema.required ?? []);
  const members = [...properties].map(([field, { child, type }]) => `${jsDoc(describe(child), '  ')}  ${propertyName(field)}${required.has(field) ? '' : '?'}: ${type};\n`);
  if (schema['x-kubernetes-preserve-unknown-fields'])
    members.push('  /** Fields the schema does not declare are kept (`x-kubernetes-preserve-unknown-fields`). */\n  [field: string]: unknown;\n');
  return `${jsDoc(doc, '')}export interface ${name} {\n${members.join('')}}\n`;
}

function typeOf(schema: CrdSchema, nameOf: ReadonlyMap<CrdSchema, string>): string {
  const type = baseTypeOf(schema, nameOf);
  return schema.nullable && type !== 'unknown' ? `${type} | null` : type;
}

function baseTypeOf(schema: CrdSchema, nameOf: ReadonlyMap<CrdSchema, string>): string {
  if (schema['x-kubernetes-int-or-string']) return 'number | string';
  if (schema.enum !== undefined && schema.enum.length > 0) return [...new Set(schema.enum.map(literal))].join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array':
      return `${grouped(schema.items ? typeOf(schema.items, nameOf) : 'unknown')}[]`;
    case 'object': {
      const name = nameOf.get(schema);
      if (name !== undefined) return name;
      const { additionalProperties } = schema;
      if (typeof additionalProperties === 'object') return `{ [key: string]: ${typeOf(additionalProperties, nameOf)} }`;
      // Without properties, only preserved unknown fields survive the API server's pruning.
      return additionalProperties === true || schema['x-kubernetes-preserve-unknown-fields'] ? '{ [key: string]: unknown }' : '{ [key: string]: never }';
    }
    default:
      return 'unknown';
  }
}

/** A union in parentheses, where `[]` would otherwise bind to its last member. */
function grouped(type: string): string {
  return type.includes(' | ') ? `(${type})` : type;
}

function literal(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return 'unknown';
}

/** A TypeScript string literal as prettier writes it: single-quoted, unless the text holds more single quotes than double ones. */
export function quote(text: string): string {
  const json = JSON.stringify(text);
  if (text.split("'").length > text.split('"').length) return json;
  return `'${json.slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;
}

function propertyName(field: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(field) ? field : quote(field);
}

/** The JSDoc of a field or an object: its description, then what its list type means. */
function describe(schema: CrdSchema): string[] {
  const lines = schema.description === undefined ? [] : schema.description.split('\n');
  const listType = schema['x-kubernetes-list-type'];
  const notes: string[] = [];
  if (listType === 'map') {
    const keys = (schema['x-kubernetes-list-map-keys'] ?? []).map((key) => `\`${key}\``).join(', ');
    notes.push(`A list map (\`x-kubernetes-list-type: map\`) keyed by ${keys}: no two items have the same key, and server-side apply merges items by it.`);
  } else if (listType === 'set') {
    notes.push('A set (`x-kubernetes-list-type: set`): no item appears twice.');
  }
  return notes.length > 0 && lines.length > 0 ? [...lines, '', ...notes] : [...lines, ...notes];
}

/** `lines` as a JSDoc comment at `indent`; nothing when there are none. */
export function jsDoc(lines: readonly string[], indent: string): string {
  const trimmed = lines.map((line) => line.trimEnd().replaceAll('*/', '*\\/'));
  while (trimmed.length > 0 && trimmed.at(-1) === '') trimmed.pop();
  while (trimmed.length > 0 && trimmed[0] === '') trimmed.shift();
  if (trimmed.length === 0) return '';
  if (trimmed.length === 1) return `${indent}/** ${trimmed[0]} */\n`;
  return `${indent}/**\n${trimmed.map((line) => (line === '' ? `${indent} *\n` : `${indent} * ${line}\n`)).join('')}${indent} */\n`;
}
