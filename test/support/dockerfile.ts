/**
 * A Dockerfile's stages replayed on this machine, without an image builder:
 * each stage gets a directory standing for its root file system; COPY copies
 * from the build context (less what .dockerignore excludes) or from an earlier
 * stage, RUN runs its shell command in the stage's WORKDIR, ENV sets the
 * environment of later RUNs. The base image is this machine (its Node and
 * npm). Enough for this project's Dockerfiles, whose stages only copy files
 * and run npm and node: any other instruction that would change the file
 * system is refused rather than skipped.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

interface Stage {
  readonly name: string | undefined;
  readonly instructions: Instruction[];
}

export interface ReplayedStage {
  readonly name: string | undefined;
  /** The directory standing for the stage's `/`. */
  readonly root: string;
  /** Its last WORKDIR, inside `root`. */
  readonly workdir: string;
  readonly env: Readonly<Record<string, string>>;
  /** ENTRYPOINT's exec form, with absolute paths that exist in the stage mapped into `root`. */
  readonly entrypoint: readonly string[] | undefined;
}

export interface ReplayOptions {
  readonly dockerfile: string;
  readonly context: string;
  /** Where the stages' directories are made (one per stage). */
  readonly workDir: string;
  /** Replay this stage and the stages it copies from only (as BuildKit builds a --target); default: all. */
  readonly target?: string;
  /** The environment of every RUN, before the Dockerfile's ENV. */
  readonly env?: NodeJS.ProcessEnv;
}

/** Replays the stages; returns them by name (unnamed stages by index). */
export async function replayDockerfile(options: ReplayOptions): Promise<Map<string, ReplayedStage>> {
  const stages = parseDockerfile(readFileSync(options.dockerfile, 'utf8'));
  const wanted = options.target === undefined ? new Set(stages.map((_, i) => i)) : stagesFor(stages, options.target);
  const ignored = dockerignore(options.context);
  const replayed = new Map<string, ReplayedStage>();
  for (const [index, stage] of stages.entries()) {
    if (!wanted.has(index)) continue;
    const root = path.join(options.workDir, `stage-${index}${stage.name ? `-${stage.name}` : ''}`);
    mkdirSync(root, { recursive: true });
    let workdir = root;
    let entrypoint: string[] | undefined;
    const env: Record<string, string> = {};
    const inStage = (target: string) => (path.isAbsolute(target) ? path.join(root, target) : path.join(workdir, target));
    for (const { keyword, args } of stage.instructions) {
      switch (keyword) {
        case 'WORKDIR':
          workdir = inStage(args);
          mkdirSync(workdir, { recursive: true });
          break;
        case 'COPY': {
          const from = /^--from=(\S+)\s+/.exec(args);
          const sources = (from ? args.slice(from[0].length) : args).split(/\s+/);
          const destination = sources.pop()!;
          if (sources.length === 0 || args.startsWith('[')) throw new Error(`COPY ${args}: only the shell form with sources and a destination is replayed`);
          const stageSource = from ? replayed.get(from[1]!) : undefined;
          if (from && !stageSource) throw new Error(`COPY ${args}: stage ${from[1]} was not replayed`);
          const keep = stageSource ? () => true : (file: string) => !ignored(path.relative(options.context, file));
          for (const source of sources) {
            const origin = stageSource ? path.join(stageSource.root, source) : path.join(options.context, source);
            copyInto(origin, inStage(destination), sources.length > 1 || destination.endsWith('/'), keep);
          }
          break;
        }
        case 'RUN':
          if (args.startsWith('[')) throw new Error(`RUN ${args}: only the shell form is replayed`);
          await run('sh', ['-c', args], { cwd: workdir, env: { ...options.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
          break;
        case 'ENV': {
          const assignment = /^(\w+)=(.*)$/.exec(args);
          if (!assignment) throw new Error(`ENV ${args}: only NAME=value is replayed`);
          env[assignment[1]!] = assignment[2]!;
          break;
        }
        case 'ENTRYPOINT':
          entrypoint = (JSON.parse(args) as string[]).map((arg) => (path.isAbsolute(arg) && existsSync(path.join(root, arg)) ? path.join(root, arg) : arg));
          break;
        case 'ARG':
        case 'USER':
        case 'EXPOSE':
        case 'CMD':
        case 'LABEL':
          break;
        default:
          throw new Error(`${keyword} ${args}: not replayed`);
      }
    }
    replayed.set(stage.name ?? String(index), { name: stage.name, root, workdir, env, entrypoint });
  }
  return replayed;
}

function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  for (const line of lines) {
    const [, keyword, args] = /^(\w+)\s+(.*)$/.exec(line) ?? [];
    if (!keyword || args === undefined) throw new Error(`cannot read the Dockerfile line: ${line}`);
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') stages.push({ name: /\s+AS\s+(\S+)$/i.exec(args)?.[1], instructions: [] });
    else if (stages.length > 0) stages.at(-1)!.instructions.push({ keyword: upper, args });
    else if (upper !== 'ARG') throw new Error(`${upper} before the first FROM`);
  }
  return stages;
}

/** The indexes of `target` and of the stages it copies from, transitively. */
function stagesFor(stages: readonly Stage[], target: string): Set<number> {
  const wanted = new Set<number>();
  const visit = (name: string) => {
    const index = stages.findIndex((stage, i) => stage.name === name || String(i) === name);
    if (index < 0) throw new Error(`no stage ${name}`);
    if (wanted.has(index)) return;
    wanted.add(index);
    for (const { keyword, args } of stages[index]!.instructions) {
      const from = keyword === 'COPY' ? /^--from=(\S+)/.exec(args) : null;
      if (from) visit(from[1]!);
    }
  };
  visit(target);
  return wanted;
}

/** Copies a file or a directory's contents as COPY does: a directory's contents into the destination, a file into it when it is a directory. */
function copyInto(source: string, destination: string, intoDirectory: boolean, keep: (file: string) => boolean): void {
  if (!existsSync(source)) throw new Error(`COPY: ${source} does not exist`);
  if (!keep(source)) throw new Error(`COPY: ${source} is excluded by .dockerignore`);
  if (statSync(source).isDirectory()) {
    cpSync(source, destination, { recursive: true, verbatimSymlinks: true, filter: keep });
    return;
  }
  const target = intoDirectory ? path.join(destination, path.basename(source)) : destination;
  mkdirSync(path.dirname(target), { recursive: true });
  cpSync(source, target);
}

/** .dockerignore's exclusions as a test of a context-relative path; plain paths only (no wildcards or exceptions). */
function dockerignore(context: string): (relative: string) => boolean {
  const file = path.join(context, '.dockerignore');
  const patterns = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '' && !line.startsWith('#'))
    : [];
  const unsupported = patterns.find((pattern) => /[*?[\]!]/.test(pattern));
  if (unsupported !== undefined) throw new Error(`.dockerignore pattern ${unsupported}: only plain paths are replayed`);
  const excluded = patterns.map((pattern) => pattern.replace(/^\/+|\/+$/g, ''));
  return (relative) => {
    const normal = relative.split(path.sep).join('/');
    return excluded.some((pattern) => normal === pattern || normal.startsWith(`${pattern}/`));
  };
}
