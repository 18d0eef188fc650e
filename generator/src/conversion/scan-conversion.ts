/**
 * Reads `@Conversion({...})` from a class as the scan reads `@Webhook`, and
 * checks it against the CRDs generated from the project's types: the kind must
 * be one of them, the hub one of its versions, and the class's `spokes` (when
 * written as an object literal) exactly its other versions.
 */
import type { ts as TS } from 'ts-morph';
import { resolveConversionOptions, type ResolvedConversion } from 'shaper-gen/internal/generator';
import type { Crd } from '../crd/types.js';
import { decoratorArgument, exportedClassName } from '../typescript/decorator-argument.js';
import { diagnosticAt, type Diagnostic } from '../diagnostics.js';
import type { NameResolver } from '../typescript/evaluate.js';
import { loadTypeScript } from '../typescript/compiler.js';

const ts = loadTypeScript();
const DECORATOR = '@Conversion';

export interface DecoratedConversion {
  readonly className: string;
  readonly file: string;
  readonly conversion: ResolvedConversion;
}

export interface FoundConversion extends DecoratedConversion {
  readonly classNode: TS.ClassDeclaration;
}

export function readConversionDecorator(
  classNode: TS.ClassDeclaration,
  decorator: TS.Decorator,
  resolver: NameResolver,
  diagnostics: Diagnostic[],
  crds: readonly Crd[],
): FoundConversion | undefined {
  const argument = decoratorArgument(decorator, `${DECORATOR} must be called with exactly one options object: ${DECORATOR}({ group, kind, hub })`, resolver, diagnostics);
  if (!argument) return undefined;
  const { conversion, problems } = resolveConversionOptions(argument.value);
  for (const problem of problems) argument.report(classNode, DECORATOR, problem.path, problem.message);
  if (!conversion) return undefined;
  const className = exportedClassName(classNode, DECORATOR, 'so the server can register it', diagnostics);
  if (!className) return undefined;
  const crd = crds.find((candidate) => candidate.group === conversion.group && candidate.names.kind === conversion.kind);
  if (!crd) {
    const declared = crds.map((candidate) => `${candidate.names.kind} (${candidate.group})`).join(', ') || 'none';
    argument.report(
      classNode,
      DECORATOR,
      ['kind'],
      `no CRD for ${conversion.kind} in group ${conversion.group} is generated from this project's types (kinds: ${declared}); declare its versions with @shaper:resource`,
    );
    return undefined;
  }
  const versions = crd.versions.map((version) => version.name);
  if (!versions.includes(conversion.hub)) {
    argument.report(classNode, DECORATOR, ['hub'], `hub ${conversion.hub} is not a version of ${crd.name} (versions: ${versions.join(', ')})`);
    return undefined;
  }
  if (versions.length < 2) {
    argument.report(classNode, DECORATOR, ['kind'], `${crd.name} has one version (${versions[0]}): there is nothing to convert until a second version is declared`);
    return undefined;
  }
  const spokeProblem = spokesProblem(classNode, conversion, versions);
  if (spokeProblem) {
    diagnostics.push(diagnosticAt(spokeProblem.node, spokeProblem.message));
    return undefined;
  }
  return { className, file: decorator.getSourceFile().fileName, conversion, classNode };
}

/** The spokes an object-literal `spokes` initializer lists against the CRD's versions; other shapes are checked when `serve` constructs the class. */
function spokesProblem(classNode: TS.ClassDeclaration, conversion: ResolvedConversion, versions: readonly string[]): { node: TS.Node; message: string } | undefined {
  const property = classNode.members.find((member) => ts.isPropertyDeclaration(member) && ts.isIdentifier(member.name) && member.name.text === 'spokes') as TS.PropertyDeclaration | undefined;
  if (!property)
    return {
      node: classNode.name ?? classNode,
      message: `${DECORATOR} class needs \`readonly spokes = { <version>: { toHub, fromHub } }\` for ${versions.filter((v) => v !== conversion.hub).join(', ')}`,
    };
  const literal = property.initializer;
  if (!literal || !ts.isObjectLiteralExpression(literal)) return undefined;
  const names: string[] = [];
  for (const element of literal.properties) {
    const name = element.name && (ts.isIdentifier(element.name) || ts.isStringLiteral(element.name)) ? element.name.text : undefined;
    if (name === undefined) return undefined; // a spread or a computed key: the server checks it
    names.push(name);
    if (name === conversion.hub) return { node: element, message: `spokes.${name}: ${name} is the hub; list only the other versions` };
    if (!versions.includes(name)) return { node: element, message: `spokes.${name}: ${name} is not a version of ${conversion.kind} (versions: ${versions.join(', ')})` };
  }
  const missing = versions.filter((version) => version !== conversion.hub && !names.includes(version));
  if (missing.length > 0)
    return { node: literal, message: `spokes has no ${missing.join(', ')}: every version of ${conversion.kind} other than the hub ${conversion.hub} needs { toHub, fromHub }` };
  return undefined;
}

/** One converter per kind. */
export function conversionSetDiagnostics(conversions: readonly FoundConversion[]): Diagnostic[] {
  const seen = new Map<string, FoundConversion>();
  const diagnostics: Diagnostic[] = [];
  for (const found of conversions) {
    const key = `${found.conversion.group}/${found.conversion.kind}`;
    const first = seen.get(key);
    if (first)
      diagnostics.push(diagnosticAt(found.classNode.name ?? found.classNode, `${found.conversion.kind} (${found.conversion.group}) already has a converter, ${first.className}: a kind has one`));
    else seen.set(key, found);
  }
  return diagnostics;
}
