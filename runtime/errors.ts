/**
 * Explicit denials a handler throws. Anything else a handler throws is a bug:
 * the server denies with code 500 and logs it.
 */

/** apimachinery's field error types (metav1.CauseType values). */
export type CauseType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueForbidden'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueNotFound';

export interface FieldError {
  /** Field path, like `spec.profileRef.name` or `spec.containers[0].image`. */
  field: string;
  type: CauseType;
  message: string;
  /** The offending value, quoted into the message like apimachinery does. */
  value?: unknown;
}

export class AdmissionDenial extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly reason: string,
    readonly causes: readonly FieldError[] = [],
  ) {
    super(message);
    this.name = 'AdmissionDenial';
  }
}

/** Denies the request with a message (code 403 unless given). */
export function Denied(message: string, code = 403): AdmissionDenial {
  return new AdmissionDenial(message, code, reasonFor(code) ?? '');
}

/** metav1.StatusReason for an HTTP status code, as apimachinery pairs them. */
export function reasonFor(code: number): string | undefined {
  return STATUS_REASONS[code];
}

const STATUS_REASONS: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Expired',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** Denies as Forbidden (403). */
export function Forbidden(message: string): AdmissionDenial {
  return new AdmissionDenial(message, 403, 'Forbidden');
}

/**
 * Denies as Invalid (422) with one cause per field error, like apimachinery's
 * NewInvalid; the server adds the kind and name to the message.
 */
export function Invalid(errors: FieldError | readonly FieldError[]): AdmissionDenial {
  const list = Array.isArray(errors) ? (errors as readonly FieldError[]) : [errors as FieldError];
  if (list.length === 0) throw new TypeError('Invalid() needs at least one field error');
  return new AdmissionDenial(list.map(describeFieldError).join(', '), 422, 'Invalid', list);
}

/** Throws Invalid(errors) when there are any: collect every field error first, then call this once. */
export function assertValid(errors: readonly FieldError[]): void {
  if (errors.length > 0) throw Invalid(errors);
}

/** Field error constructors, after k8s.io/apimachinery/pkg/util/validation/field. */
export const field = {
  required: (path: string, detail = ''): FieldError => ({ field: path, type: 'FieldValueRequired', message: detail }),
  invalid: (path: string, value: unknown, detail: string): FieldError => ({ field: path, type: 'FieldValueInvalid', value, message: detail }),
  forbidden: (path: string, detail: string): FieldError => ({ field: path, type: 'FieldValueForbidden', message: detail }),
  notSupported: (path: string, value: unknown, supported: readonly string[]): FieldError => ({
    field: path,
    type: 'FieldValueNotSupported',
    value,
    message: `supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
  }),
  notFound: (path: string, value: unknown, detail = ''): FieldError => ({ field: path, type: 'FieldValueNotFound', value, message: detail }),
};

const TYPE_WORDS: Record<CauseType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueForbidden: 'Forbidden',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueNotFound: 'Not found',
};

/** `spec.tier: Invalid value: "gold": field is immutable`, as apimachinery prints it. */
export function describeFieldError(error: FieldError): string {
  return `${error.field}: ${causeMessage(error)}`;
}

/** The cause message without the field, as in `status.details.causes[].message`. */
export function causeMessage(error: FieldError): string {
  const parts = [TYPE_WORDS[error.type]];
  if (error.value !== undefined && error.type !== 'FieldValueRequired' && error.type !== 'FieldValueForbidden') {
    parts.push(typeof error.value === 'string' ? JSON.stringify(error.value) : JSON.stringify(error.value) ?? String(error.value));
  }
  if (error.message) parts.push(error.message);
  return parts.join(': ');
}
