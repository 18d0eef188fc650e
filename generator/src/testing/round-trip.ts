/**
 * `roundTrip(ConversionClass)`: a conversion's round-trip property, with
 * objects generated from the kind's own schemas, read from the project's
 * sources as `shaper-gen manifests` reads them (so the test follows every
 * change to the types). For each version other than the hub: objects of that
 * version to the hub and back, and objects of the hub to that version and
 * back, each compared whole with what went in. A converter that drops or
 * changes a field fails with the smallest object that shows it.
 */
import fc from 'fast-check';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { conversionOf } from 'shaper-gen';
import { convert } from 'shaper-gen/testing';
import type { Converter } from 'shaper-gen';
import { loadGeneratorConfig } from '../config.js';
import { sources } from '../create/run-create-api.js';
import { scanCustomResources } from '../crd/generate.js';
import { formatDiagnostic } from '../diagnostics.js';
import { arbitraryObject } from './arbitrary.js';

export interface RoundTripOptions {
  /** The project (where its shaper.yaml is); default: the working directory. */
  readonly root?: string;
  /** Generated objects per direction and version; default 200. */
  readonly runs?: number;
  /** fast-check's seed, to replay a failure it printed. */
  readonly seed?: number;
}

/** One direction: `v1alpha1 → v1beta1 → v1alpha1`, and how many objects went through it. */
export interface RoundTripRun {
  readonly path: string;
  readonly cases: number;
}

const DEFAULT_RUNS = 200;

/** Runs every round trip of the conversion; throws fast-check's report of the first object that does not come back whole. */
export async function roundTrip(converter: new () => Converter, options: RoundTripOptions = {}): Promise<RoundTripRun[]> {
  const conversion = conversionOf(converter);
  if (!conversion) throw new Error(`${converter.name} has no @Conversion decorator`);
  const { group, kind, hub } = conversion;
  const root = path.resolve(options.root ?? process.cwd());
  const config = loadGeneratorConfig(undefined, root);
  const scan = scanCustomResources(config.tsconfig, await sources(config), config.root);
  if (scan.diagnostics.length > 0) throw new Error(scan.diagnostics.map((d) => formatDiagnostic(d, root)).join('\n'));
  const crd = scan.crds.find((c) => c.group === group && c.names.kind === kind);
  if (!crd) throw new Error(`${converter.name} converts ${kind} in ${group}, which the sources of ${root} do not declare`);
  const schemas = new Map(crd.versions.map((version) => [version.name, version.schema]));
  if (!schemas.has(hub)) throw new Error(`${converter.name}'s hub ${hub} is not a version of ${kind} (versions: ${[...schemas.keys()].join(', ')})`);
  const runs: RoundTripRun[] = [];
  for (const spoke of [...schemas.keys()].filter((version) => version !== hub)) {
    for (const [from, via] of [
      [spoke, hub],
      [hub, spoke],
    ] as const) {
      let cases = 0;
      const objects = arbitraryObject(schemas.get(from)!, `${group}/${from}`, kind);
      fc.assert(
        fc.property(objects, (object) => {
          cases++;
          // As the API server sends it: JSON (no -0, no undefined).
          const sent = JSON.parse(JSON.stringify(object)) as Record<string, unknown>;
          const back = convert(converter, convert(converter, sent, `${group}/${via}`), `${group}/${from}`);
          if (!isDeepStrictEqual(back, sent)) throw new Error(`${from} → ${via} → ${from} came back as ${JSON.stringify(back)}`);
        }),
        { numRuns: options.runs ?? DEFAULT_RUNS, includeErrorInReport: true, ...(options.seed !== undefined && { seed: options.seed }) },
      );
      const run = { path: `${from} → ${via} → ${from}`, cases };
      console.log(`${converter.name}: round trip ${run.path}: ${cases} generated ${kind}s, each back whole`);
      runs.push(run);
    }
  }
  return runs;
}
