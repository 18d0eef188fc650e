/**
 * Counting instructions with callgrind: the wrapper command, the counts zeroed
 * and dumped around the work counted, and a dump's instructions by function. Callgrind sees the code V8
 * generates as anonymous addresses; node's `--perf-basic-prof` writes a map
 * from those addresses to JavaScript function names (/tmp/perf-<pid>.map),
 * which names them here. The dump must be written with `--dump-instr=yes
 * --compress-pos=no --compress-strings=no --dump-line=no`, so that every
 * cost line starts with the absolute address of its instruction.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * valgrind's callgrind, writing `<pid>.out` files into `outputs`, one per thread, costs by instruction address (so
 * that V8's generated code can be named from node's perf map).
 */
export function callgrindWrapper(outputs: string): string[] {
  const dumpByAddress = ['--dump-instr=yes', '--compress-pos=no', '--compress-strings=no', '--dump-line=no'];
  return ['valgrind', '--tool=callgrind', '--separate-threads=yes', '--smc-check=all-non-file', ...dumpByAddress, `--callgrind-out-file=${outputs}/%p.out`];
}

/** Zeroes (-z) or dumps (-d) the counts of the process under callgrind. */
export function callgrindControl(command: '-z' | '-d', pid: number): void {
  const run = spawnSync('callgrind_control', [command, String(pid)], { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(`callgrind_control ${command} ${pid} failed: ${run.stderr || run.stdout}`);
}

/** The files of the first dump of `pid`, one per thread, the main thread's first (callgrind writes <pid>.out.1-NN). */
export function dumpedThreads(outputs: string, pid: number): string[] {
  const prefix = `${pid}.out.1-`;
  const files = readdirSync(outputs)
    .filter((name) => name.startsWith(prefix))
    .sort();
  if (files.length === 0) throw new Error(`callgrind wrote no dump for ${pid} in ${outputs}`);
  return files.map((name) => path.join(outputs, name));
}

/** A dump's total instructions (its summary line). */
export function dumpTotal(dump: string): number {
  return Number(/^summary: (\d+)/m.exec(readFileSync(dump, 'utf8'))?.[1] ?? 0);
}

/** Table rows of the functions whose instructions differ most between two counts: function, hand-written, serve, difference. */
export function largestDifferences(hand: Map<string, number>, serve: Map<string, number>, limit: number): string[][] {
  const names = new Set([...hand.keys(), ...serve.keys()]);
  return [...names]
    .map((name) => ({ name, hand: hand.get(name) ?? 0, serve: serve.get(name) ?? 0 }))
    .sort((a, b) => Math.abs(b.serve - b.hand) - Math.abs(a.serve - a.hand) || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map(({ name, hand, serve }) => [`\`${name.slice(0, 100)}\``, hand.toFixed(0), serve.toFixed(0), `${serve >= hand ? '+' : ''}${(serve - hand).toFixed(0)}`]);
}

/** An instruction count in thousands, as the reports print it. */
export function perThousand(n: number): string {
  return `${(n / 1000).toFixed(1)} k`;
}

interface CodeRange {
  readonly start: number;
  readonly end: number;
  readonly name: string;
  /** Its line in the map: a later entry for the same addresses is code that replaced an earlier one. */
  readonly order: number;
}

/** Self instructions (a call's cost goes to the callee) by function name, tiers of one JavaScript function merged. */
export function instructionsByFunction(dumpFile: string, perfMapFile: string, repo: string): Map<string, number> {
  const code = codeRanges(perfMapFile);
  const byName = new Map<string, number>();
  let fn = '';
  let callCost = false;
  for (const line of readFileSync(dumpFile, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) fn = line.slice(3);
    else if (line.startsWith('calls=')) callCost = true;
    else if (line.startsWith('0x')) {
      // The line after calls= is the call's inclusive cost, counted again in the callee's own lines.
      if (callCost) {
        callCost = false;
        continue;
      }
      const [address = '', instructions = '0'] = line.split(' ');
      const name = fn.startsWith('0x') ? (codeAt(code, Number.parseInt(address, 16))?.name ?? 'JIT code not in the perf map') : fn;
      const key = readableName(name, repo);
      byName.set(key, (byName.get(key) ?? 0) + Number(instructions));
    }
  }
  return byName;
}

function codeRanges(perfMapFile: string): CodeRange[] {
  const ranges: CodeRange[] = [];
  for (const [order, line] of readFileSync(perfMapFile, 'utf8').split('\n').entries()) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (!match) continue;
    const start = Number.parseInt(match[1]!, 16);
    ranges.push({ start, end: start + Number.parseInt(match[2]!, 16), name: match[3]!, order });
  }
  return ranges.sort((a, b) => a.start - b.start);
}

/** The latest code written over `address`. Ranges of code objects do not nest, so the candidates start just below it. */
function codeAt(ranges: readonly CodeRange[], address: number): CodeRange | undefined {
  let low = 0;
  let high = ranges.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (ranges[middle]!.start <= address) low = middle + 1;
    else high = middle;
  }
  let found: CodeRange | undefined;
  for (let index = low - 1; index >= 0 && index >= low - 8; index--) {
    const range = ranges[index]!;
    if (range.start <= address && address < range.end && (!found || range.order > found.order)) found = range;
  }
  return found;
}

/** `JS:*'name file:///repo/dist/chunks/chunk-HASH.js:12:3` as `name dist/chunks/chunk.js:12:3`: the tier marker and build hash dropped. */
function readableName(name: string, repo: string): string {
  return name
    .replace(/^JS:[*~+^]'?/, '')
    .replaceAll(`file://${repo}/`, '')
    .replace(/chunk-[A-Z0-9]+\.js/, 'chunk.js')
    .trim();
}
