/**
 * shaper-gen's own object types, which the schema treats as controller-gen
 * treats apimachinery's: `KubernetesObject` (TypeMeta and ObjectMeta: a kind's
 * apiVersion, kind and metadata, and an index signature that lets a webhook
 * read any object) and `ObjectMeta` (written `type: object`, left to the API
 * server). Found by what the `shaper-gen` module exports, so that they are
 * recognised in this repository's sources and in an installed package alike.
 */
import type { ts } from 'ts-morph';
import { loadTypeScript } from '../typescript/compiler.js';
import type { CrdProgram } from './program.js';

const RUNTIME_PACKAGE = 'shaper-gen';

export interface KnownTypes {
  /** The declarations of shaper-gen's KubernetesObject. */
  readonly kubernetesObject: ReadonlySet<ts.Declaration>;
  /** The declarations of shaper-gen's ObjectMeta. */
  readonly objectMeta: ReadonlySet<ts.Declaration>;
}

export function findKnownTypes(crdProgram: CrdProgram): KnownTypes {
  const compiler = loadTypeScript();
  const { checker, program } = crdProgram;
  const known = { kubernetesObject: new Set<ts.Declaration>(), objectMeta: new Set<ts.Declaration>() };
  const seen = new Set<string>();
  for (const candidate of crdProgram.candidates) {
    const resolved = crdProgram.resolve(RUNTIME_PACKAGE, candidate.fileName);
    if (!resolved || seen.has(resolved.resolvedFileName)) continue;
    seen.add(resolved.resolvedFileName);
    const moduleFile = program.getSourceFile(resolved.resolvedFileName);
    const moduleSymbol = moduleFile && checker.getSymbolAtLocation(moduleFile);
    if (!moduleSymbol) continue;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = exported.flags & compiler.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const into = exported.name === 'KubernetesObject' ? known.kubernetesObject : exported.name === 'ObjectMeta' ? known.objectMeta : undefined;
      for (const declaration of into ? (target.declarations ?? []) : []) into!.add(declaration);
    }
  }
  return known;
}

/** Whether a symbol is declared (only) by one of the given declarations. */
export function isKnown(symbol: ts.Symbol | undefined, declarations: ReadonlySet<ts.Declaration>): boolean {
  return !!symbol?.declarations?.length && symbol.declarations.every((declaration) => declarations.has(declaration));
}
