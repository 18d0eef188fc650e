/** The denial helpers and field errors, worded as apimachinery words them (the Go oracle checks the same in test/e2e/wire). */
import { describe, expect, it } from 'vitest';
import {
  AdmissionDenial,
  Denied,
  Forbidden,
  Invalid,
  aggregateMessage,
  assertValid,
  causeMessage,
  describeFieldError,
  field,
  reasonFor,
  type FieldError,
} from '../../../../runtime/webhook/errors.js';

const denial = (error: AdmissionDenial) => ({ name: error.name, message: error.message, code: error.code, reason: error.reason, causes: error.causes });

describe('denials', () => {
  it('Denied: 403 unless given, with the reason apimachinery pairs with the code, or none', () => {
    expect(denial(Denied('no'))).toEqual({ name: 'AdmissionDenial', message: 'no', code: 403, reason: 'Forbidden', causes: [] });
    expect(denial(Denied('gone', 404))).toEqual({ name: 'AdmissionDenial', message: 'gone', code: 404, reason: 'NotFound', causes: [] });
    expect(denial(Denied('tea', 418))).toEqual({ name: 'AdmissionDenial', message: 'tea', code: 418, reason: '', causes: [] });
    expect(denial(Forbidden('not you'))).toEqual({ name: 'AdmissionDenial', message: 'not you', code: 403, reason: 'Forbidden', causes: [] });
    expect(Denied('x')).toBeInstanceOf(Error);
  });

  it('Invalid: 422 with the aggregate message and the field errors as causes; at least one', () => {
    const one = field.required('spec.a');
    expect(denial(Invalid(one))).toEqual({ name: 'AdmissionDenial', message: 'spec.a: Required value', code: 422, reason: 'Invalid', causes: [one] });
    const two = [field.required('spec.a'), field.forbidden('spec.b', 'no')];
    expect(denial(Invalid(two))).toEqual({ name: 'AdmissionDenial', message: '[spec.a: Required value, spec.b: Forbidden: no]', code: 422, reason: 'Invalid', causes: two });
    expect(() => Invalid([])).toThrow(new TypeError('Invalid() needs at least one field error'));
  });

  it('assertValid throws Invalid only when there are errors', () => {
    expect(() => assertValid([])).not.toThrow();
    expect(() => assertValid([field.required('x')])).toThrow(AdmissionDenial);
  });

  it('aggregateMessage: one as it is, several de-duplicated in brackets', () => {
    expect(aggregateMessage(['a'])).toBe('a');
    expect(aggregateMessage(['a', 'a'])).toBe('a');
    expect(aggregateMessage(['a', 'b', 'a'])).toBe('[a, b]');
  });

  it.each([
    [400, 'BadRequest'],
    [401, 'Unauthorized'],
    [403, 'Forbidden'],
    [404, 'NotFound'],
    [405, 'MethodNotAllowed'],
    [409, 'Conflict'],
    [410, 'Expired'],
    [413, 'RequestEntityTooLarge'],
    [415, 'UnsupportedMediaType'],
    [422, 'Invalid'],
    [429, 'TooManyRequests'],
    [500, 'InternalError'],
    [503, 'ServiceUnavailable'],
    [504, 'Timeout'],
    [418, undefined],
    [200, undefined],
  ])('reasonFor(%i) = %s', (code, reason) => {
    expect(reasonFor(code)).toBe(reason);
  });
});

describe('field errors', () => {
  it.each<[string, FieldError, FieldError, string]>([
    ['required', field.required('spec.a'), { field: 'spec.a', type: 'FieldValueRequired', message: '' }, 'spec.a: Required value'],
    ['required with detail', field.required('spec.a', 'needed'), { field: 'spec.a', type: 'FieldValueRequired', message: 'needed' }, 'spec.a: Required value: needed'],
    ['invalid string', field.invalid('spec.a', 'x"y', 'bad'), { field: 'spec.a', type: 'FieldValueInvalid', value: 'x"y', message: 'bad' }, 'spec.a: Invalid value: "x\\"y": bad'],
    ['invalid number', field.invalid('spec.a', 1.5e-7, 'bad'), { field: 'spec.a', type: 'FieldValueInvalid', value: 1.5e-7, message: 'bad' }, 'spec.a: Invalid value: 1.5e-07: bad'],
    ['invalid boolean', field.invalid('spec.a', false, 'bad'), { field: 'spec.a', type: 'FieldValueInvalid', value: false, message: 'bad' }, 'spec.a: Invalid value: false: bad'],
    [
      'invalid object',
      field.invalid('spec.a', { b: 1, a: '<' }, 'bad'),
      { field: 'spec.a', type: 'FieldValueInvalid', value: { b: 1, a: '<' }, message: 'bad' },
      'spec.a: Invalid value: {"a":"\\u003c","b":1}: bad',
    ],
    ['forbidden', field.forbidden('spec.a', 'no'), { field: 'spec.a', type: 'FieldValueForbidden', message: 'no' }, 'spec.a: Forbidden: no'],
    [
      'notSupported',
      field.notSupported('spec.a', 'x', ['a', 'b']),
      { field: 'spec.a', type: 'FieldValueNotSupported', value: 'x', message: 'supported values: "a", "b"' },
      'spec.a: Unsupported value: "x": supported values: "a", "b"',
    ],
    ['notSupported, none listed', field.notSupported('spec.a', 'x', []), { field: 'spec.a', type: 'FieldValueNotSupported', value: 'x', message: '' }, 'spec.a: Unsupported value: "x"'],
    ['notFound', field.notFound('spec.a', 'x'), { field: 'spec.a', type: 'FieldValueNotFound', value: 'x', message: '' }, 'spec.a: Not found: "x"'],
    ['duplicate', field.duplicate('spec.a', 2), { field: 'spec.a', type: 'FieldValueDuplicate', value: 2, message: '' }, 'spec.a: Duplicate value: 2'],
    ['tooLong', field.tooLong('spec.a', 1), { field: 'spec.a', type: 'FieldValueTooLong', message: 'may not be more than 1 byte' }, 'spec.a: Too long: may not be more than 1 byte'],
    ['tooLong, no limit', field.tooLong('spec.a', -1), { field: 'spec.a', type: 'FieldValueTooLong', message: 'value is too long' }, 'spec.a: Too long: value is too long'],
    ['tooMany', field.tooMany('spec.a', 3, 2), { field: 'spec.a', type: 'FieldValueTooMany', value: 3, message: 'must have at most 2 items' }, 'spec.a: Too many: 3: must have at most 2 items'],
    ['tooMany, counts unknown', field.tooMany('spec.a', -1, -1), { field: 'spec.a', type: 'FieldValueTooMany', message: 'has too many items' }, 'spec.a: Too many: has too many items'],
    ['an unknown type', { field: 'spec.a', type: 'Weird' as never, message: 'm' }, { field: 'spec.a', type: 'Weird' as never, message: 'm' }, 'spec.a: <unknown error "Weird">: m'],
  ])('%s', (_name, error, expected, described) => {
    expect(error).toEqual(expected);
    expect(describeFieldError(error)).toBe(described);
    expect(causeMessage(error)).toBe(described.slice('spec.a: '.length));
  });
});
