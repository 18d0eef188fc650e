/**
 * The conversion path `serve` and `shaper-gen/testing`'s convert() share: spoke
 * → hub → spoke, what the result is made into, and the one-line message the
 * API server shows for each way a conversion fails.
 */
import { describe, expect, it } from 'vitest';
import { Conversion, type KubernetesObject } from 'shaper-gen';
import { ConversionFailure, convert } from 'shaper-gen/testing';
import { answerConversionReview } from '../../../../runtime/conversion/answer.js';
import { registerConversions } from '../../../../runtime/server/registry.js';

type Gadget = KubernetesObject & { spec?: Record<string, unknown> };

const calls: string[] = [];
const recorded =
  (name: string, change: (object: Gadget) => unknown = (object) => object) =>
  (object: Gadget) => {
    calls.push(`${name} ${object.apiVersion}`);
    return change(object) as Gadget;
  };

/** Three versions, v2 the hub: v1 → v3 goes through it. */
@Conversion({ group: 'example.io', kind: 'Gadget', hub: 'v2' })
class GadgetConversion {
  readonly spokes = {
    v1: {
      toHub: recorded('v1.toHub', ({ spec, ...rest }) => ({ ...rest, spec: { size: spec?.legacySize } })),
      fromHub: recorded('v1.fromHub', ({ spec, ...rest }) => ({ ...rest, spec: { legacySize: spec?.size } })),
    },
    v3: {
      toHub: recorded('v3.toHub', ({ spec, ...rest }) => ({ ...rest, spec: { size: (spec?.dimensions as { size?: number } | undefined)?.size } })),
      fromHub: recorded('v3.fromHub', ({ spec, ...rest }) => ({ ...rest, spec: { dimensions: { size: spec?.size } } })),
    },
  };
}

/** A converter whose v1.toHub does what `fault` says. */
function faulty(fault: (object: Gadget) => unknown) {
  @Conversion({ group: 'example.io', kind: 'Gadget', hub: 'v2' })
  class FaultyConversion {
    readonly spokes = { v1: { toHub: fault as (object: Gadget) => Gadget, fromHub: (object: Gadget) => object } };
  }
  return FaultyConversion;
}

const gadget = (apiVersion: string, spec: Record<string, unknown>): Gadget => ({ apiVersion, kind: 'Gadget', metadata: { name: 'g', namespace: 'lab', uid: 'u1' }, spec });

/** The ConversionFailure convert() throws, as [message, thrown]. */
function failure(run: () => unknown): [string, unknown] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConversionFailure);
    return [(error as ConversionFailure).message, (error as ConversionFailure).thrown];
  }
  throw new Error('expected a ConversionFailure');
}

describe('converting', () => {
  it('goes spoke → hub → spoke, sets apiVersion and kind, and leaves the caller’s object as it was', () => {
    calls.length = 0;
    const input = gadget('example.io/v1', { legacySize: 3 });
    const before = structuredClone(input);
    expect(convert(GadgetConversion, input, 'example.io/v3')).toEqual({ ...gadget('example.io/v3', { dimensions: { size: 3 } }) });
    expect(calls).toEqual(['v1.toHub example.io/v1', 'v3.fromHub example.io/v2']);
    expect(input).toEqual(before);
    calls.length = 0;
    expect(convert(new GadgetConversion(), gadget('example.io/v2', { size: 4 }), 'example.io/v1')).toEqual(gadget('example.io/v1', { legacySize: 4 }));
    expect(calls).toEqual(['v1.fromHub example.io/v2']);
  });

  it('returns an object already in the desired version as it is, calling no converter', () => {
    calls.length = 0;
    const odd = { ...gadget('example.io/v3', { anything: [1, 2] }), extra: true };
    expect(convert(GadgetConversion, odd, 'example.io/v3')).toEqual(odd);
    expect(calls).toEqual([]);
  });

  it('gives a result without metadata the input’s, a result with a wrong apiVersion or kind the right ones, and takes a frozen result', () => {
    const noMetadata = faulty(({ metadata: _metadata, ...rest }) => rest);
    expect(convert(noMetadata, gadget('example.io/v1', { a: 1 }), 'example.io/v2')).toEqual(gadget('example.io/v2', { a: 1 }));
    const mislabelled = faulty((object) => ({ ...object, apiVersion: 'other.io/v9', kind: 'Widget' }));
    expect(convert(mislabelled, gadget('example.io/v1', { a: 1 }), 'example.io/v2')).toEqual(gadget('example.io/v2', { a: 1 }));
    // As immer's produce returns them.
    const frozen = faulty(({ metadata: _metadata, ...rest }) => Object.freeze({ ...rest, spec: Object.freeze({ a: 2 }) }));
    expect(convert(frozen, gadget('example.io/v1', { a: 1 }), 'example.io/v2')).toEqual(gadget('example.io/v2', { a: 2 }));
  });
});

describe('a conversion that fails, with the message the API server shows', () => {
  const to = (converter: ReturnType<typeof faulty> | typeof GadgetConversion, object: unknown = gadget('example.io/v1', {}), desired = 'example.io/v2') =>
    failure(() => convert(converter, object as Gadget, desired));
  const toHubFailed = 'converting Gadget lab/g from example.io/v1 to example.io/v2: spokes.v1.toHub failed: ';

  it('anything a converter throws, described without throwing, and kept for the log', () => {
    const error = new RangeError('size out of range');
    const nullPrototype = Object.create(null) as object;
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const hostile = new (class HostileError extends Error {
      override get message(): string {
        throw new Error('no');
      }
    })();
    const throwing = (value: unknown) =>
      faulty(() => {
        throw value;
      });
    const thrownValues = [error, 'plain', null, nullPrototype, hostile, proxy];
    // The thrown value itself goes to the log (compared by identity: a revoked Proxy cannot be inspected).
    expect(thrownValues.map((value) => to(throwing(value))).map(([message, thrown], i) => [message, thrown === thrownValues[i]])).toEqual([
      [`${toHubFailed}size out of range`, true],
      [`${toHubFailed}plain`, true],
      [`${toHubFailed}null`, true],
      [`${toHubFailed}a null-prototype object`, true],
      [`${toHubFailed}a thrown HostileError that cannot be described`, true],
      [`${toHubFailed}a thrown object that cannot be described`, true],
    ]);
  });

  it('a result that is not a JSON object: a Promise, a primitive, null, an array, a BigInt, a cycle, NaN', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const returning = (value: (object: Gadget) => unknown) => to(faulty(value))[0];
    expect([
      returning(async (object) => object),
      returning(() => 'text'),
      returning(() => null),
      returning(() => []),
      returning((object) => ({ ...object, spec: { big: 1n } })),
      returning((object) => ({ ...object, spec: cycle })),
      returning((object) => ({ ...object, spec: { ratio: Number.NaN } })),
    ]).toEqual([
      'FaultyConversion spokes.v1.toHub returned a Promise; conversions must be synchronous',
      'FaultyConversion spokes.v1.toHub returned string, not an object',
      'FaultyConversion spokes.v1.toHub returned null, not an object',
      'FaultyConversion spokes.v1.toHub returned an array, not an object',
      'FaultyConversion spokes.v1.toHub returned an object JSON cannot carry: spec.big: a BigInt is not representable in JSON',
      'FaultyConversion spokes.v1.toHub returned an object JSON cannot carry: spec.self: a reference to an enclosing object (a cycle) is not representable in JSON',
      'FaultyConversion spokes.v1.toHub returned an object JSON cannot carry: spec.ratio: NaN is not representable in JSON',
    ]);
  });

  it('an object or a desired version the converter cannot take', () => {
    expect([
      to(GadgetConversion, gadget('example.io/v1', {}), 'example.io/v4')[0],
      to(GadgetConversion, gadget('example.io/v0', {}), 'example.io/v2')[0],
      to(GadgetConversion, gadget('example.io/v1', {}), 'other.io/v2')[0],
      to(GadgetConversion, gadget('example.io/v1', {}), 'v2')[0],
      to(GadgetConversion, { ...gadget('example.io/v1', {}), kind: 'Widget' })[0],
      to(GadgetConversion, { ...gadget('example.io/v1', {}), kind: undefined })[0],
      to(GadgetConversion, { ...gadget('v1', {}) })[0],
      // A review's metadata is whatever its JSON held: a name that is not a string is not shown.
      to(GadgetConversion, { ...gadget('example.io/v1', {}), metadata: { name: { toString: 1 }, namespace: 'lab' } }, 'other.io/v2')[0],
    ]).toEqual([
      'GadgetConversion cannot convert Gadget v4: it converts v2, v1, v3 (hub v2); add spokes.v4',
      'GadgetConversion cannot convert Gadget v0: it converts v2, v1, v3 (hub v2); add spokes.v0',
      'Gadget lab/g is in group example.io; it cannot be converted to other.io/v2',
      'desiredAPIVersion "v2" is not group/version',
      'no conversion for Widget in group example.io is served here (converters: example.io/Gadget)',
      'objects[0] has no kind',
      'objects[0] has no apiVersion of the form group/version',
      'Gadget lab/(no name) is in group example.io; it cannot be converted to other.io/v2',
    ]);
  });

  it('fails the whole review for one object, converting none, and names the object by its index', () => {
    const conversions = registerConversions([GadgetConversion], 'handlers.js').get('/convert')!;
    const body = (objects: unknown[]) => JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'r1', desiredAPIVersion: 'example.io/v2', objects } });
    const answer = answerConversionReview(conversions, body([gadget('example.io/v1', { legacySize: 1 }), 7]));
    expect(answer).toEqual({
      review: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        response: { uid: 'r1', convertedObjects: [], result: { status: 'Failure', message: 'objects[1] is not an object' } },
      },
      uid: 'r1',
      steps: [],
      failure: { message: 'objects[1] is not an object', malformed: false, thrown: undefined },
    });
    expect(answerConversionReview(conversions, body([gadget('example.io/v1', { legacySize: 1 }), gadget('example.io/v2', {})])).steps).toEqual([
      { kind: 'example.io/Gadget', from: 'v1', to: 'v2' },
    ]);
  });
});
