/**
 * Converter classes made ready to serve, and refused in one line saying the fix
 * when they cannot be: `@Conversion` options at decoration, `spokes` once
 * constructed, one converter per kind across paths; and ConversionReview
 * decoding where the e2e test does not reach.
 */
import { describe, expect, it } from 'vitest';
import { Conversion, conversionOf, type KubernetesObject } from 'shaper-gen';
import { decodeConversionReview } from '../../../../runtime/conversion/review.js';
import { registerConversions, RegistrationError } from '../../../../runtime/server/registry.js';

const same = (object: KubernetesObject) => object;
const SPOKE = { toHub: same, fromHub: same };

@Conversion({ group: 'example.io', kind: 'Gadget', hub: 'v2' })
class GadgetConversion {
  readonly spokes = { v1: SPOKE };
}

@Conversion({ group: 'example.io', kind: 'Widget', hub: 'v1', path: '/convert-widgets' })
class WidgetConversion {
  readonly spokes = { v1beta1: SPOKE };
}

@Conversion({ group: 'other.io', kind: 'Gadget', hub: 'v1' })
class OtherGadgetConversion {
  readonly spokes = { v0: SPOKE };
}

/** A converter of example.io Gadget (hub v2) whose instance has these `spokes`. */
function withSpokes(spokes: unknown, path?: string) {
  @Conversion({ group: 'example.io', kind: 'Gadget', hub: 'v2', ...(path && { path }) })
  class Converter {
    readonly spokes = spokes as never;
  }
  return Converter;
}

describe('registerConversions', () => {
  it('groups converters by path, each kind by group and Kind, named module#ClassName', () => {
    const byPath = registerConversions([GadgetConversion, WidgetConversion, new OtherGadgetConversion()], 'dist/handlers.js');
    expect([...byPath].map(([path, kinds]) => [path, [...kinds].map(([key, registered]) => [key, registered.source, registered.conversion, [...registered.spokes.keys()]])])).toEqual([
      [
        '/convert',
        [
          ['example.io/Gadget', 'dist/handlers.js#GadgetConversion', { group: 'example.io', kind: 'Gadget', hub: 'v2', path: '/convert' }, ['v1']],
          ['other.io/Gadget', 'dist/handlers.js#OtherGadgetConversion', { group: 'other.io', kind: 'Gadget', hub: 'v1', path: '/convert' }, ['v0']],
        ],
      ],
      ['/convert-widgets', [['example.io/Widget', 'dist/handlers.js#WidgetConversion', { group: 'example.io', kind: 'Widget', hub: 'v1', path: '/convert-widgets' }, ['v1beta1']]]],
    ]);
  });

  it('refuses, in one line saying the fix, each class it cannot serve', () => {
    const refusal = (classes: unknown[]) => {
      try {
        registerConversions(classes, 'h.js');
      } catch (error) {
        expect(error).toBeInstanceOf(RegistrationError);
        return (error as Error).message;
      }
      return 'registered';
    };
    @Conversion({ group: 'example.io', kind: 'Gadget', hub: 'v2' })
    class NeedsArguments {
      readonly spokes = { v1: SPOKE };
      constructor(readonly settings: { strict: boolean }) {}
    }
    @Conversion({ group: 'example.io', kind: 'Gadget', hub: 'v2' })
    class Throws {
      readonly spokes = { v1: SPOKE };
      constructor() {
        throw new Error('no settings file');
      }
    }
    expect([
      refusal([class Plain {}]),
      refusal([NeedsArguments]),
      refusal([Throws]),
      refusal([withSpokes(undefined)]),
      refusal([withSpokes([SPOKE])]),
      refusal([withSpokes({})]),
      refusal([withSpokes({ v2: SPOKE })]),
      refusal([withSpokes({ V1: SPOKE })]),
      refusal([withSpokes({ v1: { toHub: same } })]),
      refusal([withSpokes({ v1: null })]),
      refusal([GadgetConversion, withSpokes({ v1: SPOKE }, '/convert-gadgets')]),
    ]).toEqual([
      'h.js#Plain is not decorated with @Conversion',
      'NeedsArguments declares constructor parameters, which new NeedsArguments() would leave undefined: give them defaults',
      'constructing Throws failed: no settings file',
      'Converter.spokes must be an object of spoke versions, e.g. readonly spokes = { v1alpha1: { toHub, fromHub } }',
      'Converter.spokes must be an object of spoke versions, e.g. readonly spokes = { v1alpha1: { toHub, fromHub } }',
      'Converter.spokes is empty: a conversion needs a version besides the hub v2, e.g. readonly spokes = { v1alpha1: { toHub, fromHub } }',
      'Converter.spokes.v2: v2 is the hub; list only the other versions',
      'Converter.spokes: "V1" is not a version name (a DNS label such as v1alpha1)',
      'Converter.spokes.v1.fromHub must be a function',
      'Converter.spokes.v1.toHub must be a function',
      // A CRD names one conversion webhook: two converters of a kind conflict on different paths too.
      'h.js#Converter and h.js#GadgetConversion both convert Gadget in group example.io: a kind has one converter',
    ]);
  });
});

describe('@Conversion', () => {
  it('refuses bad options when the class is decorated, every problem at once', () => {
    expect(() => Conversion({ group: 'Example', kind: 'gadget', hub: 'V2', path: '/conversion', hubVersion: 'v2' } as never)(class Bad {} as never)).toThrow(
      [
        'invalid @Conversion options of Bad:',
        '  hubVersion: unknown option "hubVersion"; known options: group, kind, hub, path',
        '  group: group "Example" must be a DNS subdomain such as example.com: conversion webhooks are for custom resources',
        '  kind: kind "gadget" must be the kind\'s name in UpperCamelCase, e.g. "Profile"',
        '  hub: "V2" is not a version name: a DNS label such as v1, v1beta1',
        '  path: path "/conversion" must be "/convert" or "/convert-<name>"',
      ].join('\n'),
    );
  });

  it('keeps the resolved options on the class itself, not on a subclass', () => {
    expect(conversionOf(GadgetConversion)).toEqual({ group: 'example.io', kind: 'Gadget', hub: 'v2', path: '/convert' });
    expect(conversionOf(class Sub extends GadgetConversion {})).toBeUndefined();
    expect(conversionOf(new GadgetConversion())).toBeUndefined();
  });
});

describe('decodeConversionReview', () => {
  const review = (request: unknown, apiVersion = 'apiextensions.k8s.io/v1') => JSON.stringify({ apiVersion, kind: 'ConversionReview', request });

  it('reads a review of either version, objects as sent', () => {
    const objects = [{ apiVersion: 'example.io/v1', kind: 'Gadget' }, 'not an object'];
    expect(decodeConversionReview(review({ uid: 'u1', desiredAPIVersion: 'example.io/v2', objects }, 'apiextensions.k8s.io/v1beta1'))).toEqual({
      ok: true,
      apiVersion: 'apiextensions.k8s.io/v1beta1',
      request: { uid: 'u1', desiredAPIVersion: 'example.io/v2', objects },
    });
  });

  it('names what is wrong, with the apiVersion and uid to answer with when they can be read', () => {
    expect([
      decodeConversionReview(review({ uid: 'u1', desiredAPIVersion: '', objects: [] })),
      decodeConversionReview(review({ uid: 'u1', desiredAPIVersion: 'example.io/v2' }, 'apiextensions.k8s.io/v1beta1')),
      decodeConversionReview(review({ uid: 'u1', desiredAPIVersion: 'example.io/v2', objects: null })),
      decodeConversionReview(review({ uid: '', desiredAPIVersion: 'example.io/v2', objects: [] })),
      decodeConversionReview(JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v2', kind: 'ConversionReview', request: { uid: 'u2' } })),
      decodeConversionReview('{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","request":{"uid":"u3",'),
    ]).toEqual([
      { ok: false, apiVersion: 'apiextensions.k8s.io/v1', uid: 'u1', error: 'request.desiredAPIVersion must be a group/version string, got ""' },
      { ok: false, apiVersion: 'apiextensions.k8s.io/v1beta1', uid: 'u1', error: 'request.objects must be an array, got undefined' },
      { ok: false, apiVersion: 'apiextensions.k8s.io/v1', uid: 'u1', error: 'request.objects must be an array, got null' },
      { ok: false, apiVersion: 'apiextensions.k8s.io/v1', uid: '', error: 'ConversionReview request has no uid' },
      {
        ok: false,
        apiVersion: 'apiextensions.k8s.io/v1',
        uid: 'u2',
        error: 'unsupported apiVersion "apiextensions.k8s.io/v2"; expected one of apiextensions.k8s.io/v1, apiextensions.k8s.io/v1beta1',
      },
      // Not JSON, but its apiVersion and uid can still be read, so that the API server matches the answer to its request.
      { ok: false, apiVersion: 'apiextensions.k8s.io/v1beta1', uid: 'u3', error: expect.stringMatching(/^request body is not valid JSON: /) },
    ]);
  });
});
