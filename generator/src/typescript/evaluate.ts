/**
 * Static evaluation of decorator arguments. Only forms whose value is certain
 * at build time are accepted; anything else is a diagnostic naming the
 * expression, never a guess. Names are looked up through a NameResolver: the
 * type checker's, or the syntax-only one (syntax-resolver.ts) that gives the
 * same answers where it answers at all.
 *
 * Over 250 lines on purpose: one recursion over the expression kinds, whose
 * cases share the diagnostic wording.
 */
import type { ts as TS } from 'ts-morph';
import { formatProblemPath, type ProblemPath } from 'shaper-gen/internal/generator';
import { diagnosticAt, type Diagnostic } from '../diagnostics.js';
import { loadTypeScript } from './compiler.js';

const ts = loadTypeScript();

/** What a name refers to once imports and re-exports are followed (a symbol, as far as evaluation cares). */
export interface Binding {
  /** The symbol's name, for messages. */
  readonly name: string;
  /** Its value declaration, else its first declaration. */
  readonly declaration: TS.Declaration | undefined;
  /** An import whose target is not among the scanned files. */
  readonly unresolved: boolean;
}

export interface NameResolver {
  /** The declarations of what a decorator's callee (`Webhook`, `shaper.Webhook`) refers to. */
  calleeDeclarations(callee: TS.Expression): readonly TS.Declaration[];
  /** What an identifier in an expression refers to. */
  identifier(node: TS.Identifier): Binding | undefined;
  /** What a shorthand property (`{ path }`) takes its value from. */
  shorthand(node: TS.ShorthandPropertyAssignment): Binding | undefined;
  /** The enum member a property or element access reads, if it reads one. */
  enumMember(node: TS.PropertyAccessExpression | TS.ElementAccessExpression): Binding | undefined;
  /** An enum member's constant value; undefined when it has none. */
  constantValue(member: TS.EnumMember): string | number | undefined;
}

/** The type checker's answers: getSymbolAtLocation and friends, aliases followed. */
export function checkerResolver(checker: TS.TypeChecker): NameResolver {
  const bind = (symbol: TS.Symbol | undefined): Binding | undefined => {
    if (!symbol) return undefined;
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    return { name: symbol.name, declaration: symbol.valueDeclaration ?? symbol.declarations?.[0], unresolved: (symbol.flags & ts.SymbolFlags.Alias) !== 0 };
  };
  return {
    calleeDeclarations(callee) {
      let symbol = checker.getSymbolAtLocation(callee);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      return symbol?.declarations ?? [];
    },
    identifier: (node) => bind(checker.getSymbolAtLocation(node)),
    shorthand: (node) => bind(checker.getShorthandAssignmentValueSymbol(node)),
    enumMember(node) {
      const symbol = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(node) ? node.name : node);
      return symbol && symbol.flags & ts.SymbolFlags.EnumMember ? bind(symbol) : undefined;
    },
    constantValue: (member) => checker.getConstantValue(member),
  };
}

export type StaticValue = string | number | boolean | null | undefined | StaticValue[] | { [key: string]: StaticValue };

export interface Evaluation {
  readonly value: StaticValue;
  /** The node each value came from, by option path (`rules[0].operations`). */
  readonly locations: ReadonlyMap<string, TS.Node>;
  readonly diagnostics: readonly Diagnostic[];
}

class NotStatic extends Error {
  constructor(
    readonly node: TS.Node,
    readonly reason: string,
  ) {
    super(reason);
  }
}

export function evaluateStatically(node: TS.Expression, resolver: NameResolver): Evaluation {
  const locations = new Map<string, TS.Node>();
  const diagnostics: Diagnostic[] = [];
  const evaluator = new Evaluator(resolver, locations, diagnostics);
  const value = evaluator.evaluate(node, []);
  return { value, locations, diagnostics };
}

class Evaluator {
  private readonly resolving = new Set<TS.Node>();

  constructor(
    private readonly resolver: NameResolver,
    private readonly locations: Map<string, TS.Node>,
    private readonly diagnostics: Diagnostic[],
  ) {}

  /** Evaluates one value; a failure is recorded and yields undefined so siblings are still checked. */
  evaluate(node: TS.Expression, path: ProblemPath): StaticValue {
    try {
      return this.value(node, path);
    } catch (error) {
      if (!(error instanceof NotStatic)) throw error;
      this.diagnostics.push(diagnosticAt(error.node, `cannot evaluate ${quoteSource(error.node)} statically: ${error.reason}`));
      return undefined;
    }
  }

  private value(node: TS.Expression, path: ProblemPath): StaticValue {
    const key = formatProblemPath(path);
    if (!this.locations.has(key)) this.locations.set(key, node);

    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isNumericLiteral(node)) return Number(node.text);
    if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
    if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
    if (node.kind === ts.SyntaxKind.NullKeyword) return null;
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isTypeAssertionExpression(node) || ts.isNonNullExpression(node)) {
      return this.value(node.expression, path);
    }
    if (ts.isPrefixUnaryExpression(node)) return this.prefixUnary(node, path);
    if (ts.isTemplateExpression(node)) return this.template(node, path);
    if (ts.isArrayLiteralExpression(node)) return this.array(node, path);
    if (ts.isObjectLiteralExpression(node)) return this.object(node, path);
    if (ts.isIdentifier(node)) return this.identifier(node, path);
    if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) return this.member(node, path);
    throw new NotStatic(node, `${describeKind(node)} is not supported; use literals, consts, enums, spreads or template literals`);
  }

  private prefixUnary(node: TS.PrefixUnaryExpression, path: ProblemPath): StaticValue {
    const operand = this.value(node.operand, path);
    if (typeof operand !== 'number') throw new NotStatic(node, 'a unary operator needs a number');
    if (node.operator === ts.SyntaxKind.MinusToken) return -operand;
    if (node.operator === ts.SyntaxKind.PlusToken) return operand;
    throw new NotStatic(node, `operator ${ts.tokenToString(node.operator)} is not supported`);
  }

  private template(node: TS.TemplateExpression, path: ProblemPath): string {
    let text = node.head.text;
    for (const span of node.templateSpans) {
      const part = this.value(span.expression, path);
      if (typeof part !== 'string' && typeof part !== 'number' && typeof part !== 'boolean') {
        throw new NotStatic(span.expression, 'a template substitution must be a string, number or boolean');
      }
      text += String(part) + span.literal.text;
    }
    return text;
  }

  private array(node: TS.ArrayLiteralExpression, path: ProblemPath): StaticValue[] {
    const result: StaticValue[] = [];
    for (const element of node.elements) {
      if (ts.isSpreadElement(element)) {
        const spread = this.value(element.expression, [...path, result.length]);
        if (!Array.isArray(spread)) throw new NotStatic(element, 'only arrays can be spread into an array');
        spread.forEach((item, i) => {
          this.locations.set(formatProblemPath([...path, result.length + i]), element);
          result.push(item);
        });
      } else if (ts.isOmittedExpression(element)) {
        throw new NotStatic(node, 'arrays must not have holes');
      } else {
        result.push(this.evaluate(element, [...path, result.length]));
      }
    }
    return result;
  }

  private object(node: TS.ObjectLiteralExpression, path: ProblemPath): Record<string, StaticValue> {
    const result: Record<string, StaticValue> = {};
    for (const property of node.properties) {
      if (ts.isPropertyAssignment(property)) {
        const name = this.propertyName(property.name, path);
        this.locations.set(formatProblemPath([...path, name]), property.initializer);
        result[name] = this.evaluate(property.initializer, [...path, name]);
      } else if (ts.isShorthandPropertyAssignment(property)) {
        const name = property.name.text;
        this.locations.set(formatProblemPath([...path, name]), property);
        const binding = this.resolver.shorthand(property);
        result[name] = this.guard(property, () => this.bindingValue(binding, property.name, [...path, name]));
      } else if (ts.isSpreadAssignment(property)) {
        const spread = this.guard(property, () => this.value(property.expression, path));
        if (spread === undefined) continue;
        if (typeof spread !== 'object' || spread === null || Array.isArray(spread)) {
          this.fail(property, 'only objects can be spread into an object');
          continue;
        }
        for (const [key, value] of Object.entries(spread)) {
          this.locations.set(formatProblemPath([...path, key]), property);
          result[key] = value;
        }
      } else {
        this.fail(property, `${describeKind(property)} is not supported in decorator options; use a plain property`);
      }
    }
    return result;
  }

  private propertyName(name: TS.PropertyName, path: ProblemPath): string {
    if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) {
      return name.text;
    }
    if (ts.isComputedPropertyName(name)) {
      const key = this.value(name.expression, path);
      if (typeof key === 'string' || typeof key === 'number') return String(key);
    }
    throw new NotStatic(name, 'property names must be identifiers, strings or constant computed names');
  }

  private identifier(node: TS.Identifier, path: ProblemPath): StaticValue {
    if (node.text === 'undefined') return undefined;
    return this.bindingValue(this.resolver.identifier(node), node, path);
  }

  private member(node: TS.PropertyAccessExpression | TS.ElementAccessExpression, path: ProblemPath): StaticValue {
    const enumMember = this.resolver.enumMember(node);
    if (enumMember) return this.bindingValue(enumMember, node, path);
    const target = this.value(node.expression, path);
    const key = ts.isPropertyAccessExpression(node) ? node.name.text : this.value(node.argumentExpression, path);
    if (typeof key !== 'string' && typeof key !== 'number') throw new NotStatic(node, 'the index must be a string or number');
    if (target === null || typeof target !== 'object') throw new NotStatic(node, `${quoteSource(node.expression)} is not an object or array`);
    if (!Object.prototype.hasOwnProperty.call(target, key)) throw new NotStatic(node, `it has no property ${JSON.stringify(String(key))}`);
    return (target as Record<string, StaticValue>)[key];
  }

  private bindingValue(binding: Binding | undefined, at: TS.Node, path: ProblemPath): StaticValue {
    const declaration = binding?.declaration;
    if (!binding || !declaration || binding.unresolved) {
      throw new NotStatic(at, 'its declaration could not be found (imports must resolve to project sources)');
    }
    if (ts.isEnumMember(declaration)) {
      const constant = this.resolver.constantValue(declaration);
      if (constant === undefined) throw new NotStatic(at, 'the enum member has no constant value');
      return constant;
    }
    if (ts.isVariableDeclaration(declaration)) {
      const list = declaration.parent;
      if (!ts.isVariableDeclarationList(list) || !(list.flags & ts.NodeFlags.Const)) {
        throw new NotStatic(at, `${binding.name} is not a const; only const declarations have a value known at build time`);
      }
      if (!declaration.initializer) throw new NotStatic(at, `${binding.name} has no initializer`);
      if (!ts.isIdentifier(declaration.name)) throw new NotStatic(at, 'destructured consts are not supported');
      if (this.resolving.has(declaration)) throw new NotStatic(at, `${binding.name} refers to itself`);
      this.resolving.add(declaration);
      try {
        return this.value(declaration.initializer, path);
      } finally {
        this.resolving.delete(declaration);
      }
    }
    throw new NotStatic(at, `${binding.name} is ${describeKind(declaration)}, not a const or enum member`);
  }

  private guard(node: TS.Node, run: () => StaticValue): StaticValue {
    try {
      return run();
    } catch (error) {
      if (!(error instanceof NotStatic)) throw error;
      this.fail(error.node, error.reason);
      return undefined;
    }
  }

  private fail(node: TS.Node, reason: string): void {
    this.diagnostics.push(diagnosticAt(node, `cannot evaluate ${quoteSource(node)} statically: ${reason}`));
  }
}

function quoteSource(node: TS.Node): string {
  const text = node.getText().replace(/\s+/g, ' ');
  return `\`${text.length > 60 ? `${text.slice(0, 57)}...` : text}\``;
}

function describeKind(node: TS.Node): string {
  const words = ts.SyntaxKind[node.kind].replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return /^[aeiou]/.test(words) ? `an ${words}` : `a ${words}`;
}
