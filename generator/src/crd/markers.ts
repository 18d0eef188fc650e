/**
 * Every `@shaper:` tag read once: its name looked up, its place checked, its
 * argument parsed (consts behind `{@link NAME}` evaluated statically). A tag
 * with a problem is reported once, at its `file:line:col`, and is left out of
 * what the schema and the kinds are built from; generation then stops anyway.
 */
import type { ts as TS } from 'ts-morph';
import { didYouMean } from 'shaper-gen/internal/generator';
import type { Diagnostic } from '../diagnostics.js';
import { checkerResolver, evaluateStatically } from '../typescript/evaluate.js';
import { loadTypeScript } from '../typescript/compiler.js';
import { readArgument, type MarkerArgument } from './marker-arguments.js';
import { MARKER_NAMES, markerDefinition, PLACE_WORDS, type MarkerDefinition, type MarkerPlace } from './marker-definitions.js';
import { diagnosticAtPosition, linkNodeAt, markerTagsIn, readMarker, TokenError, type MarkerTag, type Token } from './marker-syntax.js';
import type { AppliedMarker } from './schema-markers.js';

const ts = loadTypeScript();

export class MarkerReader {
  private readonly read = new Map<TS.JSDocTag, AppliedMarker | undefined>();

  constructor(
    private readonly checker: TS.TypeChecker,
    readonly diagnostics: Diagnostic[],
  ) {}

  /** Reads every marker of a file, so that misspelt and misplaced ones are reported even where nothing reads them. */
  readFile(sourceFile: TS.SourceFile): void {
    for (const tag of markerTagsIn(sourceFile)) this.tag(tag);
  }

  /** The valid markers on a declaration, in source order. */
  markersOf(node: TS.Node, place?: MarkerPlace): AppliedMarker[] {
    const tags = ts.getJSDocTags(node);
    return tags.map((tag) => this.tag(tag)).filter((marker): marker is AppliedMarker => marker !== undefined && (place === undefined || marker.definition.place === place));
  }

  /** A problem at a marker. */
  report(marker: MarkerTag, message: string, position = marker.start): void {
    this.diagnostics.push(diagnosticAtPosition(marker.sourceFile, position, message));
  }

  private tag(tag: TS.JSDocTag): AppliedMarker | undefined {
    if (this.read.has(tag)) return this.read.get(tag);
    const marker = readMarker(tag, this.diagnostics);
    const applied = marker && this.apply(marker);
    this.read.set(tag, applied);
    return applied;
  }

  private apply(marker: MarkerTag): AppliedMarker | undefined {
    const definition = markerDefinition(marker.name);
    if (!definition) {
      this.report(marker, `unknown marker @shaper:${marker.name}; ${didYouMean(marker.name, MARKER_NAMES)}see docs/reference/crd-markers.md for the markers`);
      return undefined;
    }
    const misplaced = placementProblem(marker, definition);
    if (misplaced) {
      this.report(marker, misplaced);
      return undefined;
    }
    let argument: MarkerArgument;
    try {
      argument = readArgument(marker, definition, (m, token) => this.constant(m, token));
    } catch (error) {
      if (!(error instanceof TokenError)) throw error;
      this.report(marker, error.message, error.position);
      return undefined;
    }
    return { marker, definition, argument };
  }

  /** The value of the const a `{@link NAME}` names. */
  private constant(marker: MarkerTag, token: Token): unknown {
    const link = linkNodeAt(marker, token.valueStart);
    const name = link?.name;
    if (!name || !ts.isIdentifier(name)) throw new TokenError(token.valueStart, `{@link ${token.value}}: name a const of this project`);
    const evaluation = evaluateStatically(name, checkerResolver(this.checker));
    if (evaluation.diagnostics.length > 0) throw new TokenError(token.valueStart, evaluation.diagnostics[0]!.message);
    return evaluation.value;
  }
}

/** Where a marker was written, against where its definition says it belongs. */
function placementProblem(marker: MarkerTag, definition: MarkerDefinition): string | undefined {
  const owner = marker.tag.parent.parent;
  const wrong = `@shaper:${definition.name} belongs ${PLACE_WORDS[definition.place]}`;
  switch (definition.place) {
    case 'package':
      return ts.isVariableStatement(owner) && owner.declarationList.flags & ts.NodeFlags.Const && owner.declarationList.declarations.length === 1 && isExported(owner) ? undefined : wrong;
    case 'kind':
      if (!ts.isInterfaceDeclaration(owner) && !ts.isTypeAliasDeclaration(owner)) return wrong;
      if (definition.name !== 'resource' && !ts.getJSDocTags(owner).some((tag) => tag.tagName.text === 'shaper' && readMarker(tag, [])?.name === 'resource')) {
        return `@shaper:${definition.name} needs @shaper:resource on the same interface: only a kind has a CRD`;
      }
      return undefined;
    case 'schema':
      return ts.isPropertySignature(owner) ||
        ts.isPropertyDeclaration(owner) ||
        ts.isInterfaceDeclaration(owner) ||
        ts.isTypeAliasDeclaration(owner) ||
        ts.isEnumDeclaration(owner) ||
        ts.isIndexSignatureDeclaration(owner)
        ? undefined
        : wrong;
  }
}

function isExported(statement: TS.VariableStatement): boolean {
  return statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword) ?? false;
}
