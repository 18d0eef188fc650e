/**
 * What a benchmark found, as markdown: printed as it goes, and written by
 * bench/run.ts to bench/results/<name>.md once the benchmark has finished
 * (a run that fails leaves the previous report alone). bench/results/ is
 * git-ignored: figures belong to one run on one machine.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Cell = string | number;

export class Report {
  readonly title: string;
  private readonly lines: string[] = [];

  constructor(title: string) {
    this.title = title;
  }

  /** Prints a line and keeps it for the report. */
  line(text = ''): void {
    console.log(text);
    this.lines.push(text);
  }

  /** A markdown table; numbers are right-aligned. */
  table(headers: readonly string[], rows: readonly (readonly Cell[])[]): void {
    const isNumber = (cell: Cell | undefined) => typeof cell === 'number' || /^[\d.,–-]*$/.test(String(cell));
    const numeric = headers.map((_, i) => rows.some((row) => row[i] !== '') && rows.every((row) => isNumber(row[i])));
    this.line(`| ${headers.join(' | ')} |`);
    this.line(`|${numeric.map((right) => (right ? '---:' : '---')).join('|')}|`);
    for (const row of rows) this.line(`| ${row.map(String).join(' | ')} |`);
  }

  /** Writes bench/results/<name>.md under `repo`: a header saying how, when and where it was measured, then every line. */
  write(repo: string, name: string, command: string, seconds: number): string {
    const cpus = os.cpus();
    const file = path.join(repo, 'bench/results', `${name}.md`);
    mkdirSync(path.dirname(file), { recursive: true });
    const header = [
      `# ${this.title}`,
      '',
      `<!-- Written by bench/run.ts; bench/results/ is git-ignored. -->`,
      '',
      `\`${command}\`, ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}, ${seconds.toFixed(0)} s; Node ${process.version}, ` +
        `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${os.type()} ${os.release()}.`,
      '',
    ];
    writeFileSync(file, `${[...header, ...this.lines].join('\n').trimEnd()}\n`);
    return file;
  }
}
