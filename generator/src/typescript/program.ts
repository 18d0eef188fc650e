/**
 * What a scan starts from (compiler options, the candidate files, module
 * resolution), and, where the syntax-only scan cannot answer, the smallest
 * type-checked program that can: the files that contain a decorator call, plus
 * the project files (and the shaper-gen package) they import, transitively.
 * Other libraries, `lib.*.d.ts` and `@types` are never loaded: decorator
 * arguments must be computable from project sources, and the checker only has
 * to resolve symbols, consts and enums, so a full program of the repo would be
 * wasted work.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ts } from 'ts-morph';
import { loadTypeScript, type TypeScript } from './compiler.js';

/** A decorator call (`@Name(` or `@ns.Name(`) anywhere in the text. */
const DECORATOR_CALL = /@\s*[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*\s*\(/;
/** A module augmentation or global declaration: something the syntax-only scan does not model. */
const AUGMENTATION = /\bdeclare\s+(?:module|global)\b/;
const DECORATOR_PACKAGE = 'shaper-gen';

export interface ScanInput {
  readonly ts: TypeScript;
  /** The tsconfig's options, with resolution of other libraries, lib files and @types turned off. */
  readonly options: ts.CompilerOptions;
  /** The files that passed the text prefilter, in sorted order. */
  readonly candidates: readonly string[];
  /** Some source file declares a module augmentation or globals. */
  readonly augmentations: boolean;
  readonly read: (file: string) => string;
  /** Resolves an import as the program does (through one cache); `mode` as for that import's position. */
  readonly resolve: (specifier: string, containingFile: string, mode?: ts.ResolutionMode) => ts.ResolvedModuleFull | undefined;
  readonly packageJsonInfoCache: ts.PackageJsonInfoCache;
}

export interface ScanProgram {
  readonly program: ts.Program;
  readonly checker: ts.TypeChecker;
  /** The candidate files, in sorted order. */
  readonly candidates: readonly ts.SourceFile[];
}

export function mayContainDecorators(text: string): boolean {
  return DECORATOR_CALL.test(text);
}

/** `pending`: files this run will write (types from CRDs), read as they will be rather than as they are on disk. */
export function prepareScan(tsconfigPath: string, files: readonly string[], pending: ReadonlyMap<string, string> = new Map()): ScanInput {
  const ts = loadTypeScript();
  const options = readCompilerOptions(ts, tsconfigPath);
  const texts = new Map<string, string>(pending);
  const read = (file: string) => {
    let text = texts.get(file);
    if (text === undefined) {
      text = readFileSync(file, 'utf8');
      texts.set(file, text);
    }
    return text;
  };
  const candidates: string[] = [];
  let augmentations = false;
  for (const file of files) {
    // Read once: only candidates keep their text; imported files are read again when needed.
    const text = pending.get(file) ?? readFileSync(file, 'utf8');
    if (AUGMENTATION.test(text)) augmentations = true;
    if (!mayContainDecorators(text)) continue;
    candidates.push(file);
    texts.set(file, text);
  }
  const cache = ts.createModuleResolutionCache(ts.sys.getCurrentDirectory(), (name) => (ts.sys.useCaseSensitiveFileNames ? name : name.toLowerCase()), options);
  const host = pending.size === 0 ? ts.sys : withPendingFiles(ts.sys, pending);
  const resolve = (specifier: string, containingFile: string, mode?: ts.ResolutionMode) => ts.resolveModuleName(specifier, containingFile, options, host, cache, undefined, mode).resolvedModule;
  return { ts, options, candidates, augmentations, read, resolve, packageJsonInfoCache: cache.getPackageJsonInfoCache() };
}

/** Module resolution that finds the pending files, and their directories, as if they were written. */
function withPendingFiles(system: ts.System, pending: ReadonlyMap<string, string>): ts.ModuleResolutionHost {
  const directories = new Set([...pending.keys()].flatMap((file) => ancestors(path.dirname(file))));
  return {
    fileExists: (file) => pending.has(file) || system.fileExists(file),
    readFile: (file) => pending.get(file) ?? system.readFile(file),
    directoryExists: (directory) => directories.has(directory) || system.directoryExists(directory),
    realpath: system.realpath && ((file) => (pending.has(file) ? file : system.realpath!(file))),
    getCurrentDirectory: () => system.getCurrentDirectory(),
    getDirectories: (directory) => system.getDirectories(directory),
    useCaseSensitiveFileNames: system.useCaseSensitiveFileNames,
  };
}

function ancestors(directory: string): string[] {
  const parent = path.dirname(directory);
  return parent === directory ? [directory] : [directory, ...ancestors(parent)];
}

/**
 * The tsconfig's compiler options, `extends` followed. Its file list is not
 * wanted, so its include patterns are not expanded (no directory walk).
 */
function readCompilerOptions(ts: TypeScript, tsconfigPath: string): ts.CompilerOptions {
  let text: string;
  try {
    text = readFileSync(tsconfigPath, 'utf8');
  } catch (error) {
    // eslint-disable-next-line preserve-caught-error -- the message is all of it; a cause would add the fs error's stack to what the CLI prints
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`File not found: ${tsconfigPath}`);
    throw error;
  }
  const json = ts.parseConfigFileTextToJson(tsconfigPath, text);
  if (json.error) throw new Error(ts.flattenDiagnosticMessageText(json.error.messageText, '\n'));
  const host: ts.ParseConfigHost = {
    useCaseSensitiveFileNames: ts.sys.useCaseSensitiveFileNames,
    readDirectory: () => [],
    fileExists: (file) => ts.sys.fileExists(file),
    readFile: (file) => ts.sys.readFile(file),
  };
  const parsed = ts.parseJsonConfigFileContent(json.config, host, path.dirname(tsconfigPath), undefined, tsconfigPath);
  return { ...parsed.options, noResolve: true, noLib: true, types: [], skipLibCheck: true };
}

/** `candidates` and every scannable file they import, directly or not: what a program over them needs. */
export function importClosure(input: Pick<ScanInput, 'ts' | 'read' | 'resolve'>, candidates: readonly string[]): Set<string> {
  const { ts, read, resolve } = input;
  const included = new Set<string>();
  const queue = [...candidates];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (included.has(file)) continue;
    included.add(file);
    for (const imported of ts.preProcessFile(read(file), true, true).importedFiles) {
      const resolved = resolve(imported.fileName, file);
      if (resolved && isScannable(resolved) && !included.has(resolved.resolvedFileName)) queue.push(resolved.resolvedFileName);
    }
  }
  return included;
}

export function buildScanProgram(input: ScanInput): ScanProgram {
  const { ts, options, candidates, read } = input;
  const included = importClosure(input, candidates);
  const host = ts.createCompilerHost(options, true);
  host.getSourceFile = (fileName, languageVersionOrOptions) => (included.has(fileName) ? ts.createSourceFile(fileName, read(fileName), languageVersionOrOptions, true) : undefined);
  const program = ts.createProgram({ rootNames: [...included].sort(), options, host });
  return {
    program,
    checker: program.getTypeChecker(),
    candidates: candidates.map((file) => program.getSourceFile(file)).filter((sf): sf is ts.SourceFile => sf !== undefined),
  };
}

/** Project sources and the shaper-gen package are scanned; other libraries never are. */
export function isScannable(resolved: ts.ResolvedModuleFull): boolean {
  if (!resolved.isExternalLibraryImport) return !resolved.resolvedFileName.endsWith('.json');
  return resolved.packageId?.name === DECORATOR_PACKAGE;
}
