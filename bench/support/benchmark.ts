/**
 * What a benchmark module exports (as its default): its options, an optional
 * preparation that runs before its time limit starts (building a peer or a
 * tool), and its main. Importing a benchmark module does nothing else:
 * bench/run.ts imports it and calls main.
 */
import type { OptionSpecs, OptionValues } from './options.ts';
import type { Report } from './report.ts';

export interface Benchmark<S extends OptionSpecs = OptionSpecs> {
  readonly options: S;
  /** Work that does not count against the time limit (a first build can take minutes). */
  readonly prepare?: (options: OptionValues<S>) => void | Promise<void>;
  /** Measures, printing through `report`; a failure that still has figures to report sets process.exitCode. */
  readonly main: (options: OptionValues<S>, report: Report) => Promise<void>;
}

/** Declares a benchmark, typing its main's options from its option specs. */
export function defineBenchmark<const S extends OptionSpecs>(benchmark: Benchmark<S>): Benchmark<S> {
  return benchmark;
}
