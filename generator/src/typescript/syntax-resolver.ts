/**
 * Name lookup without a type checker, for the common shape of decorated code:
 * module files whose decorator arguments use top-level consts and enums, named
 * and namespace imports and re-exports. Files are parsed only when a lookup
 * reaches them, so shaper-gen's own sources or declarations are opened only as
 * far as the `Webhook` export, and no program is bound or checked.
 *
 * Where its answer could differ from the checker's, it gives none: it throws
 * NotSyntactic and the scan starts over with the checker (program.ts). That
 * covers every form it does not model: names not declared at a module's top
 * level (globals), scripts, merged or destructured declarations, `import x =`,
 * `export =`, type-only imports and exports, names found through more than one
 * `export *`, enum members whose value is not a literal or a literal's
 * successor, ambient enums, and imports that two resolution modes resolve
 * differently.
 *
 * Over 250 lines on purpose: the forms it models and the ones it refuses are
 * one boundary, read best in one file.
 */
import type { ts as TS } from 'ts-morph';
import type { Binding, NameResolver } from './evaluate.js';
import { isScannable, type ScanInput } from './program.js';

/** Thrown where the syntax-only lookup cannot be sure to answer as the checker would. */
export class NotSyntactic extends Error {
  constructor(reason: string) {
    super(`syntax-only scan: ${reason}`);
  }
}

/** A name in a module's scope. */
type Local =
  | { readonly kind: 'declared'; readonly declarations: TS.Declaration[] }
  | { readonly kind: 'import'; readonly specifier: TS.StringLiteral; readonly imported: string }
  | { readonly kind: 'unsupported' };

/** A name a module exports. */
type Export = { readonly kind: 'local'; readonly name: string } | { readonly kind: 'from'; readonly specifier: TS.StringLiteral; readonly imported: string } | { readonly kind: 'unsupported' };

interface ModuleScope {
  readonly sourceFile: TS.SourceFile;
  readonly locals: Map<string, Local>;
  readonly exports: Map<string, Export>;
  readonly stars: { readonly specifier: TS.StringLiteral; readonly typeOnly: boolean }[];
}

/** What a name resolves to: declarations in some module, or a module (a namespace import). */
type Target = { readonly kind: 'declared'; readonly declarations: readonly TS.Declaration[] } | { readonly kind: 'module'; readonly scope: ModuleScope };

/** Ancestors an evaluated identifier may have between itself and its file: none of them opens a scope. */
const EXPRESSION_CONTEXT = new Set<TS.SyntaxKind>();

export class SyntaxResolver implements NameResolver {
  private readonly ts: ScanInput['ts'];
  private readonly sourceFiles = new Map<string, TS.SourceFile>();
  private readonly scopes = new Map<string, ModuleScope>();
  /** `file\0name` of the exports being resolved, to refuse circular re-exports. */
  private readonly resolving = new Set<string>();
  private readonly modules = new Map<TS.StringLiteral, ModuleScope | undefined>();
  private readonly sourceFileOptions: (file: string) => TS.CreateSourceFileOptions;

  constructor(private readonly input: ScanInput) {
    const ts = (this.ts = input.ts);
    // Parsed as the program parses (target, module format, module detection); internal helpers, so checked.
    const { getEmitScriptTarget, getSetExternalModuleIndicator } = ts as unknown as {
      getEmitScriptTarget?: (options: TS.CompilerOptions) => TS.ScriptTarget;
      getSetExternalModuleIndicator?: (options: TS.CompilerOptions) => (file: TS.SourceFile) => void;
    };
    if (typeof getEmitScriptTarget !== 'function' || typeof getSetExternalModuleIndicator !== 'function') {
      throw new NotSyntactic('this TypeScript does not expose how the program parses');
    }
    const languageVersion = getEmitScriptTarget(input.options);
    const setExternalModuleIndicator = getSetExternalModuleIndicator(input.options);
    this.sourceFileOptions = (file) => ({
      languageVersion,
      impliedNodeFormat: ts.getImpliedNodeFormatForFile(file, input.packageJsonInfoCache, ts.sys, input.options),
      setExternalModuleIndicator,
    });
    if (EXPRESSION_CONTEXT.size === 0) {
      const k = ts.SyntaxKind;
      for (const kind of [
        k.ParenthesizedExpression,
        k.AsExpression,
        k.SatisfiesExpression,
        k.TypeAssertionExpression,
        k.NonNullExpression,
        k.PrefixUnaryExpression,
        k.TemplateExpression,
        k.TemplateSpan,
        k.ArrayLiteralExpression,
        k.SpreadElement,
        k.ObjectLiteralExpression,
        k.PropertyAssignment,
        k.ShorthandPropertyAssignment,
        k.SpreadAssignment,
        k.ComputedPropertyName,
        k.PropertyAccessExpression,
        k.ElementAccessExpression,
        k.CallExpression,
        k.Decorator,
        k.ClassDeclaration,
        k.VariableDeclaration,
        k.VariableDeclarationList,
        k.VariableStatement,
      ]) {
        EXPRESSION_CONTEXT.add(kind);
      }
    }
  }

  /** A file parsed as the program would parse it, once. */
  sourceFile(file: string): TS.SourceFile {
    let sourceFile = this.sourceFiles.get(file);
    if (!sourceFile) {
      sourceFile = this.ts.createSourceFile(file, this.input.read(file), this.sourceFileOptions(file), true);
      this.sourceFiles.set(file, sourceFile);
    }
    return sourceFile;
  }

  calleeDeclarations(callee: TS.Expression): readonly TS.Declaration[] {
    const { ts } = this;
    let target: Target | undefined;
    this.assertModuleScope(callee);
    if (ts.isIdentifier(callee)) {
      target = this.lookup(this.scopeOf(callee), callee.text, true);
    } else if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && ts.isIdentifier(callee.name)) {
      const namespace = this.lookup(this.scopeOf(callee), callee.expression.text, true);
      if (namespace === undefined) return [];
      if (namespace.kind !== 'module') throw new NotSyntactic(`${callee.expression.text} is not a namespace import`);
      target = this.exported(namespace.scope, callee.name.text, true);
      if (target === undefined) throw new NotSyntactic(`${callee.name.text} is not exported`);
    } else {
      throw new NotSyntactic('a decorator callee other than a name or namespace.name');
    }
    // An import the program cannot resolve: no declarations, as the checker says.
    if (target === undefined) return [];
    if (target.kind !== 'declared') throw new NotSyntactic('a decorator that is a module');
    return target.declarations;
  }

  identifier(node: TS.Identifier): Binding {
    this.assertModuleScope(node);
    return this.binding(this.lookup(this.scopeOf(node), node.text, false), node.text);
  }

  shorthand(node: TS.ShorthandPropertyAssignment): Binding {
    this.assertModuleScope(node);
    return this.binding(this.lookup(this.scopeOf(node), node.name.text, false), node.name.text);
  }

  enumMember(node: TS.PropertyAccessExpression | TS.ElementAccessExpression): Binding | undefined {
    const { ts } = this;
    // The checker finds no symbol at an element access itself, so neither does this.
    if (!ts.isPropertyAccessExpression(node)) return undefined;
    if (!ts.isIdentifier(node.name)) throw new NotSyntactic('a private name');
    let owner: Target | undefined;
    const base = node.expression;
    if (ts.isIdentifier(base)) {
      this.assertModuleScope(base);
      owner = this.lookup(this.scopeOf(base), base.text, false);
    } else if (ts.isPropertyAccessExpression(base) && ts.isIdentifier(base.expression) && ts.isIdentifier(base.name)) {
      this.assertModuleScope(base.expression);
      const namespace = this.lookup(this.scopeOf(base), base.expression.text, false);
      // `a.b.c` with `a` not a namespace: `a.b` is evaluated as a value, which settles it.
      if (namespace?.kind !== 'module') return undefined;
      owner = this.exported(namespace.scope, base.name.text, false);
    } else {
      // `(E).A` and the like: the evaluator reaches the enum itself and reports it, so the checker decides.
      throw new NotSyntactic('an enum access through an expression');
    }
    if (owner?.kind !== 'declared') return undefined;
    if (!owner.declarations.some((d) => ts.isEnumDeclaration(d))) return undefined;
    if (owner.declarations.length !== 1) throw new NotSyntactic('a merged enum');
    const enumDeclaration = owner.declarations[0] as TS.EnumDeclaration;
    const members = enumDeclaration.members.filter((member) => memberName(ts, member) === node.name.text);
    if (members.length === 0) return undefined;
    if (members.length > 1) throw new NotSyntactic('an enum with a repeated member');
    return { name: node.name.text, declaration: members[0], unresolved: false };
  }

  constantValue(member: TS.EnumMember): string | number {
    const { ts } = this;
    const enumDeclaration = member.parent;
    const ambient = enumDeclaration.getSourceFile().isDeclarationFile || enumDeclaration.modifiers?.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword);
    if (ambient) throw new NotSyntactic('an ambient enum');
    let previous: string | number | undefined;
    for (const current of enumDeclaration.members) {
      let value: string | number;
      if (current.initializer) {
        value = this.literal(current.initializer);
      } else if (previous === undefined) {
        value = 0;
      } else if (typeof previous === 'number') {
        value = previous + 1;
      } else {
        throw new NotSyntactic('an enum member after a string member without an initializer');
      }
      if (current === member) return value;
      previous = value;
    }
    throw new NotSyntactic('an enum member outside its enum');
  }

  private literal(node: TS.Expression): string | number {
    const { ts } = this;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isNumericLiteral(node)) return Number(node.text);
    if (ts.isPrefixUnaryExpression(node) && (node.operator === ts.SyntaxKind.MinusToken || node.operator === ts.SyntaxKind.PlusToken) && ts.isNumericLiteral(node.operand)) {
      const operand = Number(node.operand.text);
      return node.operator === ts.SyntaxKind.MinusToken ? -operand : operand;
    }
    throw new NotSyntactic('an enum initializer other than a literal');
  }

  private binding(target: Target | undefined, name: string): Binding {
    if (target === undefined) throw new NotSyntactic(`${name} is imported from outside the scanned files`);
    if (target.kind !== 'declared') throw new NotSyntactic(`${name} is a namespace import`);
    if (target.declarations.length !== 1) throw new NotSyntactic(`${name} has ${target.declarations.length} declarations`);
    return { name, declaration: target.declarations[0], unresolved: false };
  }

  /** Evaluated identifiers sit in top-level expressions; anything that opens a scope is left to the checker. */
  private assertModuleScope(node: TS.Node): void {
    for (let parent = node.parent; !this.ts.isSourceFile(parent); parent = parent.parent) {
      if (!EXPRESSION_CONTEXT.has(parent.kind)) throw new NotSyntactic(`a name inside ${this.ts.SyntaxKind[parent.kind]}`);
    }
  }

  private scopeOf(node: TS.Node): ModuleScope {
    return this.scope(node.getSourceFile().fileName);
  }

  /**
   * A name in a module's top-level scope. `undefined`: an import of a module
   * outside the scanned files, or that does not resolve (the checker's
   * unresolved alias). `forCallee`: the checker's answer for an unresolved
   * import is wanted rather than a refusal.
   */
  private lookup(scope: ModuleScope, name: string, forCallee: boolean): Target | undefined {
    const local = scope.locals.get(name);
    if (local === undefined) throw new NotSyntactic(`${name} is not declared in ${scope.sourceFile.fileName}`);
    if (local.kind === 'declared') return local;
    if (local.kind === 'unsupported') throw new NotSyntactic(`${name} is declared in a form this scan does not model`);
    const module = this.module(scope, local.specifier);
    if (module === undefined) {
      if (forCallee) return undefined;
      throw new NotSyntactic(`${name} is imported from outside the scanned files`);
    }
    if (local.imported === '*') return { kind: 'module', scope: module };
    const target = this.exported(module, local.imported, forCallee);
    if (target === undefined) throw new NotSyntactic(`${local.imported} is not exported by ${module.sourceFile.fileName}`);
    return target;
  }

  /** What `scope` exports as `name`; undefined when it exports no such name. */
  private exported(scope: ModuleScope, name: string, forCallee: boolean): Target | undefined {
    const key = `${scope.sourceFile.fileName}\0${name}`;
    if (this.resolving.has(key)) throw new NotSyntactic('circular re-exports');
    this.resolving.add(key);
    try {
      return this.exportedWorker(scope, name, forCallee);
    } finally {
      this.resolving.delete(key);
    }
  }

  private exportedWorker(scope: ModuleScope, name: string, forCallee: boolean): Target | undefined {
    const entry = scope.exports.get(name);
    if (entry?.kind === 'local') return this.lookup(scope, entry.name, forCallee);
    if (entry?.kind === 'unsupported') throw new NotSyntactic(`${name} is exported in a form this scan does not model`);
    if (entry?.kind === 'from') {
      const module = this.module(scope, entry.specifier);
      if (module === undefined) {
        if (forCallee) return undefined;
        throw new NotSyntactic(`${name} is re-exported from outside the scanned files`);
      }
      const target = this.exported(module, entry.imported, forCallee);
      if (target === undefined) throw new NotSyntactic(`${entry.imported} is not exported by ${module.sourceFile.fileName}`);
      return target;
    }
    if (name === 'default' || scope.stars.length === 0) return undefined;
    const found: Target[] = [];
    for (const star of scope.stars) {
      const module = this.module(scope, star.specifier);
      if (module === undefined) throw new NotSyntactic('export * from outside the scanned files');
      const target = this.exported(module, name, forCallee);
      if (target === undefined) continue;
      if (star.typeOnly) throw new NotSyntactic(`${name} comes through export type *`);
      found.push(target);
    }
    if (found.length > 1) throw new NotSyntactic(`${name} comes through more than one export *`);
    return found[0];
  }

  /**
   * The module an import or export specifier names, parsed; undefined where the
   * program has no such file (unresolved, or another library than shaper-gen).
   */
  private module(scope: ModuleScope, specifier: TS.StringLiteral): ModuleScope | undefined {
    if (this.modules.has(specifier)) return this.modules.get(specifier);
    const { ts, input } = this;
    const file = scope.sourceFile.fileName;
    // As the checker resolves this import (the mode of its position), and as the program's file list was built.
    const resolved = input.resolve(specifier.text, file, ts.getModeForUsageLocation(scope.sourceFile, specifier, input.options));
    let module: ModuleScope | undefined;
    if (resolved && isScannable(resolved)) {
      const listed = input.resolve(specifier.text, file);
      if (listed?.resolvedFileName !== resolved.resolvedFileName) throw new NotSyntactic(`${specifier.text} resolves differently by mode`);
      module = this.scope(resolved.resolvedFileName);
    }
    this.modules.set(specifier, module);
    return module;
  }

  private scope(file: string): ModuleScope {
    let scope = this.scopes.get(file);
    if (scope) return scope;
    scope = indexModule(this.ts, this.sourceFile(file));
    this.scopes.set(file, scope);
    return scope;
  }
}

function memberName(ts: ScanInput['ts'], member: TS.EnumMember): string | undefined {
  const name = member.name;
  return ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name) ? name.text : undefined;
}

/** The top-level names of a module file and what it exports. */
// eslint-disable-next-line complexity, max-statements -- one case per kind of top-level statement; to split by kind (follow-up)
function indexModule(ts: ScanInput['ts'], sourceFile: TS.SourceFile): ModuleScope {
  if (!ts.isExternalModule(sourceFile)) throw new NotSyntactic(`${sourceFile.fileName} is a script: its names are global`);
  const locals = new Map<string, Local>();
  const exports = new Map<string, Export>();
  const stars: ModuleScope['stars'] = [];
  const unsupported: Local = { kind: 'unsupported' };
  const setLocal = (name: string, local: Local) => locals.set(name, locals.has(name) ? unsupported : local);
  const declare = (name: string, declaration: TS.Declaration) => {
    const existing = locals.get(name);
    if (existing === undefined) locals.set(name, { kind: 'declared', declarations: [declaration] });
    // Overloads of one function are one symbol; any other merge is left to the checker.
    else if (existing.kind === 'declared' && ts.isFunctionDeclaration(declaration) && existing.declarations.every((d) => ts.isFunctionDeclaration(d))) {
      existing.declarations.push(declaration);
    } else locals.set(name, unsupported);
  };
  const setExport = (name: string, entry: Export) => {
    const existing = exports.get(name);
    // Exported overloads repeat the same local export.
    if (existing && !(existing.kind === 'local' && entry.kind === 'local' && existing.name === entry.name)) exports.set(name, { kind: 'unsupported' });
    else exports.set(name, entry);
  };
  const modifiers = (node: TS.Node) => {
    const flags = ts.canHaveModifiers(node) ? (ts.getModifiers(node) ?? []).map((m) => m.kind) : [];
    return { exported: flags.includes(ts.SyntaxKind.ExportKeyword), isDefault: flags.includes(ts.SyntaxKind.DefaultKeyword) };
  };
  const declareNamed = (node: TS.FunctionDeclaration | TS.ClassDeclaration | TS.EnumDeclaration | TS.ModuleDeclaration, name: TS.Identifier | undefined) => {
    const { exported, isDefault } = modifiers(node);
    if (name) declare(name.text, node);
    if (!exported) return;
    if (isDefault) setExport('default', name ? { kind: 'local', name: name.text } : { kind: 'unsupported' });
    else if (name) setExport(name.text, { kind: 'local', name: name.text });
  };
  const declareVariables = (statement: TS.VariableStatement) => {
    const { exported } = modifiers(statement);
    for (const declaration of statement.declarationList.declarations) {
      for (const name of boundNames(ts, declaration.name)) {
        if (ts.isIdentifier(declaration.name)) declare(name, declaration);
        else setLocal(name, unsupported);
        if (exported) setExport(name, { kind: 'local', name });
      }
    }
  };
  const exportNamed = (statement: TS.ExportDeclaration, clause: TS.NamedExports, specifier: TS.StringLiteral | undefined) => {
    for (const element of clause.elements) {
      const exported = element.name.text;
      const local = (element.propertyName ?? element.name).text;
      if (statement.isTypeOnly || element.isTypeOnly) setExport(exported, { kind: 'unsupported' });
      else setExport(exported, specifier ? { kind: 'from', specifier, imported: local } : { kind: 'local', name: local });
    }
  };

  for (const statement of sourceFile.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (!clause || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
      const specifier = statement.moduleSpecifier;
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- its replacement (phaseModifier) is TypeScript 6's; the TypeScript the generator runs with may be older
      const typeOnly = clause.isTypeOnly;
      if (clause.name) setLocal(clause.name.text, typeOnly ? unsupported : { kind: 'import', specifier, imported: 'default' });
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) {
        setLocal(bindings.name.text, typeOnly ? unsupported : { kind: 'import', specifier, imported: '*' });
      } else if (bindings) {
        for (const element of bindings.elements) {
          const imported = (element.propertyName ?? element.name).text;
          setLocal(element.name.text, typeOnly || element.isTypeOnly ? unsupported : { kind: 'import', specifier, imported });
        }
      }
    } else if (ts.isImportEqualsDeclaration(statement)) {
      setLocal(statement.name.text, unsupported);
      if (modifiers(statement).exported) setExport(statement.name.text, { kind: 'unsupported' });
    } else if (ts.isVariableStatement(statement)) {
      declareVariables(statement);
    } else if (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement)) {
      declareNamed(statement, statement.name);
    } else if (ts.isModuleDeclaration(statement)) {
      if (!ts.isIdentifier(statement.name)) throw new NotSyntactic(`${sourceFile.fileName} declares a module or globals`);
      declareNamed(statement, statement.name);
    } else if (ts.isExportDeclaration(statement)) {
      const specifier = statement.moduleSpecifier;
      if (specifier && !ts.isStringLiteral(specifier)) continue;
      const clause = statement.exportClause;
      if (!clause) {
        if (specifier) stars.push({ specifier, typeOnly: statement.isTypeOnly });
      } else if (ts.isNamespaceExport(clause)) {
        setExport(clause.name.text, { kind: 'unsupported' });
      } else {
        exportNamed(statement, clause, specifier);
      }
    } else if (ts.isExportAssignment(statement)) {
      if (statement.isExportEquals) throw new NotSyntactic(`${sourceFile.fileName} uses export =`);
      setExport('default', ts.isIdentifier(statement.expression) ? { kind: 'local', name: statement.expression.text } : { kind: 'unsupported' });
    }
    // Interfaces and type aliases have no value; other statements declare nothing.
  }
  return { sourceFile, locals, exports, stars };
}

function boundNames(ts: ScanInput['ts'], name: TS.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isOmittedExpression(element) ? [] : boundNames(ts, element.name)));
}
