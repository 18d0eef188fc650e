/**
 * The type-checked program the CRD scan reads types from: the files that
 * contain a `@shaper:` marker, the project files and the shaper-gen package
 * they import (transitively), and SCHEMA_LIB: the few global types the
 * checker needs to tell a list from a map and to expand Record and Readonly,
 * instead of TypeScript's library (which ts-morph keeps in memory, not on
 * disk, and which is 20 times the size). Other libraries and `@types` are not
 * loaded: a field typed from one resolves to nothing, and schema.ts says so at
 * the field.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ts } from 'ts-morph';
import { importClosure, prepareScan } from '../typescript/program.js';
import { MARKER_PREFIX } from './marker-syntax.js';

export interface CrdProgram {
  readonly checker: ts.TypeChecker;
  readonly program: ts.Program;
  /** The files with markers, in sorted order. */
  readonly candidates: readonly ts.SourceFile[];
  /** Resolves an import from a file as the program did. */
  readonly resolve: (specifier: string, containingFile: string) => ts.ResolvedModuleFull | undefined;
}

/** The global types a schema can meet, declared as TypeScript's library declares them, without their methods. */
const SCHEMA_LIB = `
interface Array<T> { length: number; [n: number]: T; }
interface ReadonlyArray<T> { readonly length: number; readonly [n: number]: T; }
interface TemplateStringsArray extends ReadonlyArray<string> { readonly raw: readonly string[]; }
interface Boolean {}
interface Function {}
interface CallableFunction extends Function {}
interface NewableFunction extends Function {}
interface IArguments {}
interface Number {}
interface Object {}
interface RegExp {}
interface String {}
interface Symbol {}
interface Date { getTime(): number; }
interface Map<K, V> { get(key: K): V | undefined; }
interface ReadonlyMap<K, V> { get(key: K): V | undefined; }
interface Set<T> { has(value: T): boolean; }
interface ReadonlySet<T> { has(value: T): boolean; }
interface Promise<T> { then(onfulfilled: (value: T) => unknown): unknown; }
type Partial<T> = { [P in keyof T]?: T[P] };
type Required<T> = { [P in keyof T]-?: T[P] };
type Readonly<T> = { readonly [P in keyof T]: T[P] };
type Pick<T, K extends keyof T> = { [P in K]: T[P] };
type Record<K extends keyof any, T> = { [P in K]: T };
type Exclude<T, U> = T extends U ? never : T;
type Extract<T, U> = T extends U ? T : never;
type Omit<T, K extends keyof any> = Pick<T, Exclude<keyof T, K>>;
type NonNullable<T> = T & {};
type Uppercase<S extends string> = intrinsic;
type Lowercase<S extends string> = intrinsic;
type Capitalize<S extends string> = intrinsic;
type Uncapitalize<S extends string> = intrinsic;
`;
const SCHEMA_LIB_NAME = '__shaper-gen-schema-lib__.d.ts';

/** Whether a declaration is one of SCHEMA_LIB's (a global type, not the project's). */
export function isSchemaLib(sourceFile: ts.SourceFile): boolean {
  return path.basename(sourceFile.fileName) === SCHEMA_LIB_NAME;
}

/** The files among `files` whose text has a marker (no parse: a text search). */
export function markerCandidates(files: readonly string[], read: (file: string) => string = (file) => readFileSync(file, 'utf8')): string[] {
  return files.filter((file) => read(file).includes(MARKER_PREFIX));
}

export function buildCrdProgram(tsconfigPath: string, candidates: readonly string[]): CrdProgram {
  // prepareScan reads the tsconfig and sets up module resolution; its decorator candidates are not used here.
  const input = prepareScan(tsconfigPath, []);
  const { ts: compiler, read, resolve } = input;
  const { options } = input;
  const schemaLib = path.join(path.dirname(path.resolve(tsconfigPath)), SCHEMA_LIB_NAME);
  const included = importClosure(input, candidates);
  const host = compiler.createCompilerHost(options, true);
  host.getSourceFile = (fileName, languageVersionOrOptions) => {
    if (fileName === schemaLib) return compiler.createSourceFile(fileName, SCHEMA_LIB, languageVersionOrOptions, true);
    return included.has(fileName) ? compiler.createSourceFile(fileName, read(fileName), languageVersionOrOptions, true) : undefined;
  };
  const program = compiler.createProgram({ rootNames: [...[...included].sort(), schemaLib], options, host });
  return {
    program,
    checker: program.getTypeChecker(),
    candidates: [...candidates]
      .sort()
      .map((file) => program.getSourceFile(file))
      .filter((sourceFile): sourceFile is ts.SourceFile => sourceFile !== undefined),
    resolve: (specifier, containingFile) => resolve(specifier, containingFile),
  };
}
