/**
 * A callgrind dump's instructions by function. Callgrind sees the code V8
 * generates as anonymous addresses; node's `--perf-basic-prof` writes a map
 * from those addresses to JavaScript function names (/tmp/perf-<pid>.map),
 * which names them here. The dump must be written with `--dump-instr=yes
 * --compress-pos=no --compress-strings=no --dump-line=no`, so that every
 * cost line starts with the absolute address of its instruction.
 */
import { readFileSync } from 'node:fs';

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
