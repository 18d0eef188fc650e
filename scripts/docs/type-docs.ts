/**
 * Interfaces, their properties' types and JSDoc, and list-derived type
 * aliases (`type Scope = (typeof SCOPES)[number]`), read from TypeScript
 * sources with the compiler's parser: what the decorator options page
 * says about each option's type and meaning, in the sources' own words.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { paragraph } from './markdown.ts';

export interface PropertyDoc {
  readonly name: string;
  readonly optional: boolean;
  /** The declared type, without `readonly`. */
  readonly type: string;
  readonly doc: string;
}

export interface InterfaceDoc {
  readonly name: string;
  /** Repository-relative path of the declaring file. */
  readonly file: string;
  readonly doc: string;
  readonly properties: readonly PropertyDoc[];
}

export interface TypeDocs {
  readonly interfaces: ReadonlyMap<string, InterfaceDoc>;
  /** Alias name → the name of the const list its values come from. */
  readonly listAliases: ReadonlyMap<string, string>;
}

function jsDocOf(node: ts.Node): string {
  return paragraph(
    ts
      .getJSDocCommentsAndTags(node)
      .filter(ts.isJSDoc)
      .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? ''),
  );
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
}

/**
 * Reads `entry` (repository-relative) and the files it imports types from
 * with a relative `import type`, one level deep.
 */
export function readTypeDocs(root: string, entry: string): TypeDocs {
  const interfaces = new Map<string, InterfaceDoc>();
  const listAliases = new Map<string, string>();
  const heritage = new Map<string, string[]>();
  const entryFile = parse(path.join(root, entry));
  const files = [entryFile];
  for (const statement of entryFile.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const specifier = statement.moduleSpecifier.text;
    if (!specifier.startsWith('.') || statement.importClause?.phaseModifier !== ts.SyntaxKind.TypeKeyword) continue;
    files.push(parse(path.join(root, path.dirname(entry), specifier.replace(/\.js$/, '.ts'))));
  }
  for (const source of files) {
    const file = path.relative(root, source.fileName).split(path.sep).join('/');
    for (const statement of source.statements) {
      if (ts.isInterfaceDeclaration(statement)) {
        const properties = statement.members.filter(ts.isPropertySignature).map((member) => ({
          name: member.name.getText(source),
          optional: member.questionToken !== undefined,
          type: (member.type?.getText(source) ?? 'unknown').replace(/\breadonly\s+/g, '').replace(/\s+/g, ' '),
          doc: jsDocOf(member),
        }));
        interfaces.set(statement.name.text, { name: statement.name.text, file, doc: jsDocOf(statement), properties });
        const parents = (statement.heritageClauses ?? []).flatMap((clause) => clause.types.map((type) => type.expression.getText(source)));
        if (parents.length > 0) heritage.set(statement.name.text, parents);
      } else if (ts.isTypeAliasDeclaration(statement)) {
        const list = /^\(typeof (\w+)\)\[number\]$/.exec(statement.type.getText(source));
        if (list) listAliases.set(statement.name.text, list[1]!);
      }
    }
  }
  // Properties of the interfaces it extends (in the files read) come first, as an editor lists them.
  const inherited = (name: string): PropertyDoc[] => [...(heritage.get(name) ?? []).flatMap(inherited), ...(interfaces.get(name)?.properties ?? [])];
  for (const name of heritage.keys()) interfaces.set(name, { ...interfaces.get(name)!, properties: inherited(name) });
  return { interfaces, listAliases };
}

/** The identifiers a type text names: `readonly RuleOptions[]` → RuleOptions. */
export function typeNames(type: string): string[] {
  return [...type.matchAll(/\b[A-Z]\w*/g)].map((match) => match[0]);
}
