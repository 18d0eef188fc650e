/**
 * Builds the smallest type-checked program that can answer the generator's
 * questions: the files that contain a decorator call, plus the project files
 * (and the shaper-gen package) they import, transitively. Other libraries,
 * `lib.*.d.ts` and `@types` are never loaded: decorator arguments must be
 * computable from project sources, and the checker only has to resolve
 * symbols, consts and enums, so a full program of the repo would be wasted work.
 */
import { readFileSync } from 'node:fs';
import { Project, ts } from 'ts-morph';

/** A decorator call (`@Name(` or `@ns.Name(`) anywhere in the text. */
const DECORATOR_CALL = /@\s*[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*\s*\(/;
const DECORATOR_PACKAGE = 'shaper-gen';

export interface ScanProgram {
  readonly program: ts.Program;
  readonly checker: ts.TypeChecker;
  /** The files that passed the text prefilter, in sorted order. */
  readonly candidates: readonly ts.SourceFile[];
}

export function mayContainDecorators(text: string): boolean {
  return DECORATOR_CALL.test(text);
}

export function buildScanProgram(tsconfigPath: string, files: readonly string[]): ScanProgram {
  const project = new Project({
    tsConfigFilePath: tsconfigPath,
    skipAddingFilesFromTsConfig: true,
    skipFileDependencyResolution: true,
    compilerOptions: { noResolve: true, noLib: true, types: [], skipLibCheck: true },
  });
  const options = project.getCompilerOptions();
  const texts = new Map<string, string>();
  const read = (file: string) => {
    let text = texts.get(file);
    if (text === undefined) {
      text = readFileSync(file, 'utf8');
      texts.set(file, text);
    }
    return text;
  };

  const candidates = files.filter((file) => mayContainDecorators(read(file)));
  const included = new Set<string>();
  const queue = [...candidates];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (included.has(file)) continue;
    included.add(file);
    for (const imported of ts.preProcessFile(read(file), true, true).importedFiles) {
      const resolved = ts.resolveModuleName(imported.fileName, file, options, ts.sys).resolvedModule;
      if (resolved && isScannable(resolved) && !included.has(resolved.resolvedFileName)) queue.push(resolved.resolvedFileName);
    }
  }
  for (const file of [...included].sort()) project.createSourceFile(file, read(file), { overwrite: true });

  const program = project.getProgram().compilerObject;
  return {
    program,
    checker: program.getTypeChecker(),
    candidates: candidates.map((file) => program.getSourceFile(file)).filter((sf): sf is ts.SourceFile => sf !== undefined),
  };
}

function isScannable(resolved: ts.ResolvedModuleFull): boolean {
  if (!resolved.isExternalLibraryImport) return !resolved.resolvedFileName.endsWith('.json');
  return resolved.packageId?.name === DECORATOR_PACKAGE;
}
