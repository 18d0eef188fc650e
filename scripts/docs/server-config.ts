/**
 * docs/reference/server-config.md: the ServerConfig file `shaper-gen serve
 * --config` reads, from its schema (SERVER_CONFIG_SCHEMA: every key, its type
 * and allowed values), its defaults (DEFAULT_SERVER_CONFIG) and the JSDoc on
 * the schema's keys in runtime/config/server-config.ts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { Schema } from '../../runtime/config/schema.ts';
import { DEFAULT_SERVER_CONFIG, SERVER_CONFIG_API_VERSION, SERVER_CONFIG_KIND, SERVER_CONFIG_SCHEMA } from '../../runtime/config/server-config.ts';
import { code, generatedHeader, literal, paragraph, table } from './markdown.ts';

const SOURCE = 'runtime/config/server-config.ts';

/** `webhook.certDir` → its JSDoc, following `...listener` spreads and `certName: fileName` to their consts. */
function schemaComments(root: string): Map<string, string> {
  const file = path.join(root, SOURCE);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const consts = new Map<string, ts.Expression>();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.initializer) consts.set(declaration.name.text, declaration.initializer);
    }
  }
  const unwrap = (node: ts.Expression): ts.Expression => {
    let current = node;
    while (ts.isAsExpression(current) || ts.isSatisfiesExpression(current) || ts.isParenthesizedExpression(current)) current = current.expression;
    if (ts.isIdentifier(current) && consts.has(current.text)) return unwrap(consts.get(current.text)!);
    return current;
  };
  const doc = (node: ts.Node) =>
    paragraph(
      ts
        .getJSDocCommentsAndTags(node)
        .filter(ts.isJSDoc)
        .map((jsDoc) => ts.getTextOfJSDocComment(jsDoc.comment) ?? ''),
    );
  const comments = new Map<string, string>();
  const visit = (object: ts.Expression, prefix: string) => {
    const literalObject = unwrap(object);
    if (!ts.isObjectLiteralExpression(literalObject)) return;
    for (const property of literalObject.properties) {
      if (ts.isSpreadAssignment(property)) {
        visit(property.expression, prefix);
        continue;
      }
      if (!ts.isPropertyAssignment(property)) continue;
      const name = property.name.getText(source);
      const key = prefix ? `${prefix}.${name}` : name;
      const text = doc(property);
      if (text) comments.set(key, text);
      const value = unwrap(property.initializer);
      if (!ts.isObjectLiteralExpression(value)) continue;
      const fields = value.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText(source) === 'fields');
      if (fields) visit(fields.initializer, key);
    }
  };
  const schema = consts.get('SERVER_CONFIG_SCHEMA');
  if (!schema) throw new Error(`scripts/docs: no SERVER_CONFIG_SCHEMA in ${SOURCE}`);
  const fields = (unwrap(schema) as ts.ObjectLiteralExpression).properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText(source) === 'fields');
  if (fields) visit(fields.initializer, '');
  return comments;
}

function typeText(schema: Schema): string {
  switch (schema.type) {
    case 'list':
      return `list of ${typeText(schema.items)}`;
    case 'enum':
      return schema.values.length > 12 ? `one of ${schema.values.length} names (below)` : `one of ${schema.values.map((v) => code(v)).join(', ')}`;
    case 'integer':
    case 'number':
      return `${schema.type}${schema.min !== undefined ? ` ≥ ${schema.min}` : ''}${schema.max !== undefined ? `, ≤ ${schema.max}` : ''}`;
    case 'string':
      return schema.hint ? `string (${schema.hint})` : 'string';
    default:
      return schema.type;
  }
}

function defaultAt(key: string): unknown {
  return key.split('.').reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], DEFAULT_SERVER_CONFIG);
}

export function serverConfigPage(root: string): string {
  const comments = schemaComments(root);
  const rows: string[][] = [];
  const long: { key: string; values: readonly string[] }[] = [];
  const walk = (schema: Schema, prefix: string) => {
    if (schema.type !== 'object') return;
    for (const [name, child] of Object.entries(schema.fields)) {
      const key = prefix ? `${prefix}.${name}` : name;
      if (child.type === 'object') {
        walk(child, key);
        continue;
      }
      const items = child.type === 'list' ? child.items : child;
      if (items.type === 'enum' && items.values.length > 12) long.push({ key, values: items.values });
      rows.push([code(key), typeText(child), code(literal(defaultAt(key))), comments.get(key) ?? '—']);
    }
  };
  walk(SERVER_CONFIG_SCHEMA, '');
  const out = [
    generatedHeader('Server configuration (ServerConfig)', [SOURCE]),
    '',
    paragraph(`${code('shaper-gen serve --config <file>')} reads a YAML document of ${code(`apiVersion: ${SERVER_CONFIG_API_VERSION}`)},
      ${code(`kind: ${SERVER_CONFIG_KIND}`)}; every other key is optional, and a key the schema does not know is an error
      with its line and column. The chart writes this file into its ConfigMap from its values (see
      [chart-values.md](chart-values.md)). Flags of ${code('serve')} override the file and are checked by the same schema
      (see [cli.md](cli.md)). Precedence: the defaults below, then the file, then the flags.`),
    '',
    table(['key', 'type', 'default', 'meaning'], rows),
  ];
  for (const { key, values } of long) out.push('', `${code(key)} accepts: ${values.map((v) => code(v)).join(', ')}.`);
  return `${out.join('\n')}\n`;
}
