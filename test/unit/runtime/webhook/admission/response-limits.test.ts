/** The bounds on handler text in a response, rule by rule (k8s.io/apiserver's warning recorder numbers: 4096 runes in total, 256 per item). */
import { describe, expect, it } from 'vitest';
import { limitResponse } from '../../../../../runtime/webhook/admission/response-limits.js';

const status = (message: string, causes?: { reason: string; message: string; field: string }[]) => ({
  metadata: {},
  status: 'Failure' as const,
  code: 422,
  reason: 'Invalid',
  message,
  ...(causes ? { details: { name: 'w', kind: 'Widget', causes } } : {}),
});

describe('limitResponse', () => {
  it('leaves a response within the bounds as it is', () => {
    const response = { uid: 'u', allowed: false, warnings: ['a', 'b'], status: status('short', [{ reason: 'FieldValueInvalid', message: 'bad', field: 'spec.a' }]) };
    expect(limitResponse(structuredClone(response))).toEqual(response);
  });

  it('cuts the message at 4096 code points, never inside a surrogate pair', () => {
    const response = limitResponse({ uid: 'u', allowed: false, status: status('😀'.repeat(5000)) });
    expect(response).toEqual({ uid: 'u', allowed: false, status: status('😀'.repeat(4096)) });
  });

  it('drops empty and repeated warnings, as the API server does', () => {
    expect(limitResponse({ uid: 'u', allowed: true, warnings: ['same', '', 'same', 'other'] })).toEqual({ uid: 'u', allowed: true, warnings: ['same', 'other'] });
  });

  it('keeps causes like warnings: whole while they fit, then cut to 256 runes (message and field) until 4096 are written', () => {
    const cause = (i: number) => ({ reason: 'FieldValueInvalid', message: `${i}`.padEnd(1000, 'm'), field: `spec.items[${i}]`.padEnd(300, 'f') });
    const causes = Array.from({ length: 30 }, (_, i) => cause(i));
    const cut = (i: number) => ({ reason: 'FieldValueInvalid', message: cause(i).message.slice(0, 256), field: cause(i).field.slice(0, 256) });
    // Four 1000-rune messages fit; the fifth overflows: five replayed at 256 (1280), then eleven more until 4096 are written.
    expect(limitResponse({ uid: 'u', allowed: false, status: status('m', causes) })).toEqual({
      uid: 'u',
      allowed: false,
      status: status(
        'm',
        Array.from({ length: 16 }, (_, i) => cut(i)),
      ),
    });
  });
});
