import { runWebhook } from 'shaper-gen/testing';
import { describe, expect, it } from 'vitest';
import type { __KIND__ } from '__KINDMODULE__';
import { DEFAULT_FOO, __KIND__Defaulter } from './__FILE__-defaulter.js';

const example = (spec: __KIND__['spec']): __KIND__ => ({
  apiVersion: '__GROUP__/__VERSION__',
  kind: '__KIND__',
  metadata: __METADATA__,
  spec,
});

describe('/mutate-__PATHNAME__', () => {
  it('fills in what is unset', async () => {
    const decision = await runWebhook(__KIND__Defaulter, { object: example({}) });
    expect(decision.patch).toEqual([{ op: 'add', path: '/spec/foo', value: DEFAULT_FOO }]);
  });

  it('keeps what is set, and is idempotent', async () => {
    expect((await runWebhook(__KIND__Defaulter, { object: example({ foo: 'bar' }) })).patch).toEqual([]);
    const first = await runWebhook(__KIND__Defaulter, { object: example({}) });
    expect((await runWebhook(__KIND__Defaulter, { object: first.patched! })).patch).toEqual([]);
  });
});
