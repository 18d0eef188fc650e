/**
 * API packages: a directory is one, like a Go package in kubebuilder, and
 * declares its group and version once, as kubebuilder's groupversion_info.go
 * does with `+groupName`:
 *
 *     /** The API group of the kinds in this directory. @shaper:groupName *\/
 *     export const GROUP = 'shaper.io';
 *     /** @shaper:versionName *\/
 *     export const VERSION = 'v1alpha1';
 *
 * The consts stay ordinary code (webhooks' rules use them); their values are
 * evaluated statically, as `@Webhook` options are. Every kind declared in that
 * directory (not in its subdirectories) gets that group and version.
 */
import path from 'node:path';
import type { ts as TS } from 'ts-morph';
import { checkerResolver, evaluateStatically } from '../typescript/evaluate.js';
import { loadTypeScript } from '../typescript/compiler.js';
import { groupProblem, versionProblem } from './api-names.js';
import type { MarkerTag } from './marker-syntax.js';
import type { MarkerReader } from './markers.js';

const ts = loadTypeScript();

export interface Declared {
  readonly value: string;
  readonly marker: MarkerTag;
}

export interface ApiPackage {
  readonly directory: string;
  group?: Declared;
  version?: Declared;
}

export function readApiPackages(candidates: readonly TS.SourceFile[], reader: MarkerReader, checker: TS.TypeChecker, root: string): Map<string, ApiPackage> {
  const packages = new Map<string, ApiPackage>();
  for (const sourceFile of candidates) {
    const directory = path.dirname(sourceFile.fileName);
    for (const statement of sourceFile.statements) {
      if (!ts.isVariableStatement(statement)) continue;
      for (const { marker, definition } of reader.markersOf(statement, 'package')) {
        const value = constValue(statement, checker, reader, marker);
        if (value === undefined) continue;
        const entry = packages.get(directory) ?? { directory };
        packages.set(directory, entry);
        const key = definition.name === 'groupName' ? 'group' : 'version';
        const earlier = entry[key];
        if (earlier) {
          reader.report(marker, `the API ${key} of ${relativeDirectory(root, directory)} is already declared at ${where(root, earlier.marker)}; declare it once per directory`);
          continue;
        }
        const problem = key === 'group' ? groupProblem(value) : versionProblem(value);
        if (problem) reader.report(marker, problem);
        else entry[key] = { value, marker };
      }
    }
  }
  return packages;
}

/** The const's string value; a problem is reported at the marker. */
function constValue(statement: TS.VariableStatement, checker: TS.TypeChecker, reader: MarkerReader, marker: MarkerTag): string | undefined {
  const declaration = statement.declarationList.declarations[0]!;
  if (!declaration.initializer) {
    reader.report(marker, `@shaper:${marker.name} needs the const to have a value`);
    return undefined;
  }
  const evaluation = evaluateStatically(declaration.initializer, checkerResolver(checker));
  if (evaluation.diagnostics.length > 0) {
    reader.diagnostics.push(...evaluation.diagnostics);
    return undefined;
  }
  if (typeof evaluation.value !== 'string') {
    reader.report(marker, `@shaper:${marker.name} needs a string const, and ${declaration.name.getText()} is ${JSON.stringify(evaluation.value)}`);
    return undefined;
  }
  return evaluation.value;
}

export function relativeDirectory(root: string, directory: string): string {
  return `${path.relative(root, directory) || '.'}/`;
}

/** `file:line:col` of a marker, relative to the project root. */
export function where(root: string, marker: MarkerTag): string {
  const { line, character } = marker.sourceFile.getLineAndCharacterOfPosition(marker.start);
  return `${path.relative(root, marker.sourceFile.fileName)}:${line + 1}:${character + 1}`;
}
