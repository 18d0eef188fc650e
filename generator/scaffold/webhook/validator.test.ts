import { runWebhook } from 'shaper-gen/testing';
import { describe, expect, it } from 'vitest';
import type { __KIND__ } from '__KINDMODULE__';
import { __KIND__Validator } from './__FILE__-validator.js';

const example = (spec: __KIND__['spec']): __KIND__ => ({
  apiVersion: '__GROUP__/__VERSION__',
  kind: '__KIND__',
  metadata: __METADATA__,
  spec,
});

describe('/validate-__PATHNAME__', () => {
  it('admits a __KIND__ whose spec is valid', async () => {
    const decision = await runWebhook(__KIND__Validator, { object: example({ foo: 'bar' }) });
    expect(decision.response).toEqual({ uid: decision.response.uid, allowed: true });
  });

  it('denies one that breaks a rule, with the field the API server reports', async () => {
    const decision = await runWebhook(__KIND__Validator, { object: example({ foo: '' }) });
    expect(decision.allowed).toBe(false);
    expect(decision.code).toBe(422);
    expect(decision.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.foo', message: 'Invalid value: "": must not be empty when set' }]);
  });
});
