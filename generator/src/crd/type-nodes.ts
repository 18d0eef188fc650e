/**
 * What the type checker forgets and a schema wants, read from the type
 * nodes as written: the named types a field's type goes through (their JSDoc
 * holds type-level markers and descriptions), the order of an enumeration's
 * values, the item node of a list and the value node of a map, and whether a
 * name resolved at all.
 */
import type { ts as TS } from 'ts-morph';
import { loadTypeScript } from '../typescript/compiler.js';
import { isSchemaLib } from './program.js';

const ts = loadTypeScript();

/** Parentheses, `readonly`, and `| undefined` / `| null` taken off a node. */
export function unwrapNode(node: TS.TypeNode | undefined): TS.TypeNode | undefined {
  let current = node;
  for (;;) {
    if (!current) return undefined;
    if (ts.isParenthesizedTypeNode(current)) current = current.type;
    else if (ts.isTypeOperatorNode(current) && current.operator === ts.SyntaxKind.ReadonlyKeyword) current = current.type;
    else if (ts.isUnionTypeNode(current)) {
      const rest = current.types.filter((member) => !isNullish(member));
      if (rest.length !== 1 || rest.length === current.types.length) return current;
      current = rest[0];
    } else return current;
  }
}

function isNullish(node: TS.TypeNode): boolean {
  if (node.kind === ts.SyntaxKind.UndefinedKeyword) return true;
  return ts.isLiteralTypeNode(node) && node.literal.kind === ts.SyntaxKind.NullKeyword;
}

/** The symbol a name refers to, imports followed; undefined when it resolves to nothing. */
export function resolvedSymbol(checker: TS.TypeChecker, name: TS.Node): TS.Symbol | undefined {
  let symbol = checker.getSymbolAtLocation(name);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol?.declarations?.length ? symbol : undefined;
}

/** A named type reference: `Name`, `ns.Name` or `import('module').Name`. */
export type NamedReference = TS.TypeReferenceNode | (TS.ImportTypeNode & { readonly qualifier: TS.EntityName });

/** The node's name, when the node names a type. */
export function referenceName(node: TS.TypeNode | undefined): TS.EntityName | undefined {
  if (!node) return undefined;
  if (ts.isTypeReferenceNode(node)) return node.typeName;
  return ts.isImportTypeNode(node) ? node.qualifier : undefined;
}

/** A type reference whose name resolves to nothing: an import from a library the scan does not load, or a typo. */
export function unresolvedReference(checker: TS.TypeChecker, node: TS.TypeNode | undefined): NamedReference | undefined {
  const reference = unwrapNode(node);
  const name = referenceName(reference);
  if (!name) return undefined;
  return resolvedSymbol(checker, name) ? undefined : (reference as NamedReference);
}

/** The module an unresolved name was imported from, if it was imported. */
export function importedFrom(checker: TS.TypeChecker, reference: NamedReference): string | undefined {
  if (ts.isImportTypeNode(reference)) {
    const argument = reference.argument;
    return ts.isLiteralTypeNode(argument) && ts.isStringLiteral(argument.literal) ? argument.literal.text : undefined;
  }
  const name = ts.isQualifiedName(reference.typeName) ? leftmost(reference.typeName) : reference.typeName;
  const symbol = checker.getSymbolAtLocation(name);
  for (const declaration of symbol?.declarations ?? []) {
    let node: TS.Node = declaration;
    while (!ts.isImportDeclaration(node) && !ts.isSourceFile(node)) node = node.parent;
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) return node.moduleSpecifier.text;
  }
  return undefined;
}

function leftmost(name: TS.QualifiedName): TS.Identifier {
  let current: TS.EntityName = name;
  while (ts.isQualifiedName(current)) current = current.left;
  return current;
}

/**
 * The named types a type node goes through, outermost first: `Tier` → its
 * type alias, then what that alias names, down to an interface or enum.
 * Only declarations of project sources and shaper-gen count, not the library's.
 */
export function namedDeclarations(checker: TS.TypeChecker, node: TS.TypeNode | undefined, fallback: TS.Type | undefined): TS.Declaration[] {
  const found: TS.Declaration[] = [];
  let current = unwrapNode(node);
  for (let depth = 0; referenceName(current) && depth < 20; depth++) {
    const declarations = projectDeclarations(checker, current);
    found.push(...declarations.filter(isNamedTypeDeclaration));
    const alias = declarations.find(ts.isTypeAliasDeclaration);
    current = alias ? unwrapNode(alias.type) : undefined;
  }
  if (found.length === 0 && fallback && !node) {
    const symbol = fallback.aliasSymbol ?? fallback.getSymbol();
    found.push(...(symbol?.declarations ?? []).filter((d) => isNamedTypeDeclaration(d) && !isSchemaLib(d.getSourceFile())));
  }
  return found;
}

/** The declarations of the type a node names, those of project sources and shaper-gen, not the library's. */
function projectDeclarations(checker: TS.TypeChecker, node: TS.TypeNode | undefined): TS.Declaration[] {
  const name = referenceName(node);
  const symbol = name && resolvedSymbol(checker, name);
  return (symbol?.declarations ?? []).filter((declaration) => !isSchemaLib(declaration.getSourceFile()));
}

function isNamedTypeDeclaration(node: TS.Node): node is TS.InterfaceDeclaration | TS.TypeAliasDeclaration | TS.EnumDeclaration | TS.ClassDeclaration {
  return ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isEnumDeclaration(node) || ts.isClassDeclaration(node);
}

/** What the type parameters of the generic aliases a walk went through stand for: the arguments written at their use. */
type Bindings = ReadonlyMap<TS.TypeParameterDeclaration, TS.TypeNode>;

const NO_BINDINGS: Bindings = new Map();

/** A node spelled out through aliases, with the arguments its type parameters stand for. */
interface Spelled {
  readonly node: TS.TypeNode | undefined;
  readonly bindings: Bindings;
}

/**
 * The node a type node spells out, through the project's type aliases: `Names` for `type Names = Name[]` is
 * `Name[]`, so that a list's items and a map's values keep the named types (and their markers) written in it.
 * Through a generic alias (`type List<T> = T[]`, used as `List<Name>`), `T` stands for the `Name` written at the use.
 */
function spelledNode(checker: TS.TypeChecker, node: TS.TypeNode | undefined, outer: Bindings = NO_BINDINGS): Spelled {
  let current = boundNode(checker, unwrapNode(node), outer);
  let bindings = outer;
  for (let depth = 0; depth < 20; depth++) {
    const alias = projectDeclarations(checker, current).find(ts.isTypeAliasDeclaration);
    if (!alias) break;
    const written = ts.isTypeReferenceNode(current!) ? (current.typeArguments ?? []) : [];
    const next = new Map<TS.TypeParameterDeclaration, TS.TypeNode>();
    alias.typeParameters?.forEach((parameter, index) => {
      const argument = written[index] ?? parameter.default;
      // An argument is written where the outer alias's parameters are in scope.
      if (argument) next.set(parameter, boundNode(checker, argument, bindings)!);
    });
    bindings = next;
    current = boundNode(checker, unwrapNode(alias.type), bindings);
  }
  return { node: current, bindings };
}

/** `node`, or the argument it stands for when it names a bound type parameter. */
function boundNode(checker: TS.TypeChecker, node: TS.TypeNode | undefined, bindings: Bindings): TS.TypeNode | undefined {
  if (bindings.size === 0 || !node || !ts.isTypeReferenceNode(node) || node.typeArguments) return node;
  const parameter = resolvedSymbol(checker, node.typeName)?.declarations?.find(ts.isTypeParameterDeclaration);
  return (parameter && unwrapNode(bindings.get(parameter))) ?? node;
}

/** The item node of a list type node (`T[]`, `readonly T[]`, `Array<T>`, `ReadonlyArray<T>`), through type aliases. */
export function itemNode(checker: TS.TypeChecker, node: TS.TypeNode | undefined): TS.TypeNode | undefined {
  const { node: list, bindings } = spelledNode(checker, node);
  if (!list) return undefined;
  if (ts.isArrayTypeNode(list)) return boundNode(checker, list.elementType, bindings);
  if (ts.isTypeReferenceNode(list) && list.typeArguments?.length === 1 && /^(Readonly)?Array$/.test(list.typeName.getText())) return boundNode(checker, list.typeArguments[0], bindings);
  return undefined;
}

/** The value node of a map type node (`Record<string, T>`, `Readonly<Record<string, T>>`, `{ [key: string]: T }`), through type aliases. */
export function mapValueNode(checker: TS.TypeChecker, node: TS.TypeNode | undefined, outer: Bindings = NO_BINDINGS): TS.TypeNode | undefined {
  const { node: map, bindings } = spelledNode(checker, node, outer);
  if (!map) return undefined;
  if (ts.isTypeReferenceNode(map)) {
    const name = map.typeName.getText();
    if (name === 'Readonly' && map.typeArguments?.length === 1) return mapValueNode(checker, map.typeArguments[0], bindings);
    if (name === 'Record' && map.typeArguments?.length === 2) return boundNode(checker, map.typeArguments[1], bindings);
  }
  if (ts.isTypeLiteralNode(map) && map.members.length === 1 && ts.isIndexSignatureDeclaration(map.members[0]!)) return boundNode(checker, map.members[0].type, bindings);
  return undefined;
}

type Literal = string | number | boolean;

/**
 * The literal values a type node spells, in the order written: unions of
 * literals, enums, `(typeof LIST)[number]` of an `as const` array, through
 * type aliases. Values the checker found that the nodes do not show are
 * appended sorted, so that the order never depends on the checker's.
 */
export function orderLiterals(checker: TS.TypeChecker, node: TS.TypeNode | undefined, values: readonly Literal[]): Literal[] {
  const written = node ? literalsOf(checker, node, 0) : [];
  const wanted = new Set(values);
  const ordered = [...new Set(written.filter((value) => wanted.has(value)))];
  const rest = values.filter((value) => !ordered.includes(value)).sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
  return [...ordered, ...rest];
}

function literalsOf(checker: TS.TypeChecker, node: TS.Node, depth: number): Literal[] {
  if (depth > 20) return [];
  if (ts.isLiteralTypeNode(node)) return literalExpression(node.literal);
  if (ts.isUnionTypeNode(node)) return node.types.flatMap((member) => literalsOf(checker, member, depth + 1));
  if (ts.isParenthesizedTypeNode(node) || (ts.isTypeOperatorNode(node) && node.operator === ts.SyntaxKind.ReadonlyKeyword)) return literalsOf(checker, node.type, depth + 1);
  if (ts.isIndexedAccessTypeNode(node)) return elementsOfTypeQuery(checker, node);
  if (ts.isTypeReferenceNode(node) || ts.isImportTypeNode(node)) {
    const name = referenceName(node);
    const symbol = name && resolvedSymbol(checker, name);
    const declaration = symbol?.declarations?.[0];
    if (!declaration) return [];
    if (ts.isTypeAliasDeclaration(declaration)) return literalsOf(checker, declaration.type, depth + 1);
    if (ts.isEnumDeclaration(declaration)) return declaration.members.flatMap((member) => constant(checker.getConstantValue(member)));
    if (ts.isEnumMember(declaration)) return constant(checker.getConstantValue(declaration));
  }
  return [];
}

function constant(value: string | number | undefined): Literal[] {
  return value === undefined ? [] : [value];
}

function literalExpression(literal: TS.LiteralTypeNode['literal']): Literal[] {
  if (ts.isStringLiteral(literal) || ts.isNoSubstitutionTemplateLiteral(literal)) return [literal.text];
  if (ts.isNumericLiteral(literal)) return [Number(literal.text)];
  if (ts.isPrefixUnaryExpression(literal) && literal.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(literal.operand)) return [-Number(literal.operand.text)];
  if (literal.kind === ts.SyntaxKind.TrueKeyword) return [true];
  if (literal.kind === ts.SyntaxKind.FalseKeyword) return [false];
  return [];
}

/** `(typeof LIST)[number]`: the elements of LIST's `as const` array literal, in order. */
function elementsOfTypeQuery(checker: TS.TypeChecker, node: TS.IndexedAccessTypeNode): Literal[] {
  let object: TS.TypeNode = node.objectType;
  while (ts.isParenthesizedTypeNode(object)) object = object.type;
  if (!ts.isTypeQueryNode(object) || node.indexType.kind !== ts.SyntaxKind.NumberKeyword) return [];
  const declaration = resolvedSymbol(checker, object.exprName)?.valueDeclaration;
  if (!declaration || !ts.isVariableDeclaration(declaration)) return [];
  // In a .d.ts: `declare const LIST: readonly ["a", "b"]`.
  const tuple = unwrapNode(declaration.type);
  if (tuple && ts.isTupleTypeNode(tuple)) return tuple.elements.flatMap((element) => literalsOf(checker, element, 0));
  if (!declaration.initializer) return [];
  let initializer: TS.Expression = declaration.initializer;
  while (ts.isAsExpression(initializer) || ts.isSatisfiesExpression(initializer) || ts.isParenthesizedExpression(initializer)) initializer = initializer.expression;
  if (!ts.isArrayLiteralExpression(initializer)) return [];
  return initializer.elements.flatMap((element): Literal[] => {
    if (ts.isStringLiteral(element) || ts.isNoSubstitutionTemplateLiteral(element)) return [element.text];
    if (ts.isNumericLiteral(element)) return [Number(element.text)];
    return [];
  });
}
