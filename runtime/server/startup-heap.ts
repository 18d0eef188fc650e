/**
 * Gives back the heap that loading the server took. Loading the handlers and
 * the server's modules fills V8's young generation to its maximum (the chart's
 * `--max-semi-space-size`, 4 MiB for each of its two halves), and V8 keeps it
 * committed while the process idles: about 6 MiB of RSS holding nothing. One
 * memory-reducing collection once the server listens shrinks it back (5 MiB of
 * idle RSS, `npm run bench -- admission`); under load it grows again as
 * throughput needs.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

type GarbageCollect = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** A best effort: another thread of the process (the probe worker does the same) may have turned the flag off meanwhile. */
export function releaseStartupHeap(): void {
  // V8 installs `gc` only in contexts made while --expose-gc is set: one context, then the flag is off again.
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('typeof gc === "function" ? gc : undefined') as GarbageCollect | undefined;
  v8.setFlagsFromString('--no-expose-gc');
  // 'last-resort' is V8's memory-reducing full collection, the one that also shrinks the young generation.
  gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
