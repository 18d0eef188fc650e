/**
 * Explicit denials a handler throws. Anything else a handler throws is a bug:
 * the server denies with code 500 and logs it.
 */
import { goJson, goNumber, goQuote } from '../go-format.js';

/** apimachinery's field error types (metav1.CauseType values, sent as `causes[].reason`). */
export type CauseType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueTypeInvalid'
  | 'FieldValueForbidden'
  | 'FieldValueNotSupported'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueNotFound'
  | 'InternalError';

export interface FieldError {
  /** Field path, like `spec.profileRef.name` or `spec.containers[0].image`. */
  field: string;
  type: CauseType;
  message: string;
  /**
   * The offending value, printed into the message as apimachinery prints a
   * field.Error's BadValue (strings quoted, numbers as Go prints them, the
   * rest as JSON); left out of the message when undefined.
   */
  value?: unknown;
}

/** A refusal's metav1.StatusDetails. */
export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly causes?: readonly { readonly reason?: string; readonly message?: string; readonly field?: string }[];
}

/**
 * Carried by every denial, under a registered symbol: the `shaper-gen` a handler imports can be another install than
 * the server's (a global CLI, a second version in node_modules), and its AdmissionDenial another class.
 */
const DENIAL = Symbol.for('shaper-gen.admission-denial');

export class AdmissionDenial extends Error {
  static {
    // On the prototype, not enumerable: a denial's own fields stay what a handler's test spreads and compares.
    Object.defineProperty(this.prototype, DENIAL, { value: true });
  }

  /** True for a denial made by any copy of this package, where `instanceof` sees only this copy's class. */
  static isDenial(value: unknown): value is AdmissionDenial {
    return typeof value === 'object' && value !== null && (value as { [DENIAL]?: unknown })[DENIAL] === true;
  }

  constructor(
    message: string,
    readonly code: number,
    readonly reason: string,
    readonly causes: readonly FieldError[] = [],
    /** The Status's details exactly as given, message untouched (a refusal the API server's own code worded): `causes` is then unused. */
    readonly details?: StatusDetails,
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
  return new AdmissionDenial(aggregateMessage(list.map(describeFieldError)), 422, 'Invalid', list);
}

/**
 * utilerrors.NewAggregate(errs).Error(): one message as it is, several
 * de-duplicated, comma-separated and in brackets.
 */
export function aggregateMessage(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

/** Throws Invalid(errors) when there are any: collect every field error first, then call this once. */
export function assertValid(errors: readonly FieldError[]): void {
  if (errors.length > 0) throw Invalid(errors);
}

/** Field error constructors, after k8s.io/apimachinery/pkg/util/validation/field (same types, details and wording). */
export const field = {
  required: (path: string, detail = ''): FieldError => ({ field: path, type: 'FieldValueRequired', message: detail }),
  invalid: (path: string, value: unknown, detail: string): FieldError => ({ field: path, type: 'FieldValueInvalid', value, message: detail }),
  forbidden: (path: string, detail: string): FieldError => ({ field: path, type: 'FieldValueForbidden', message: detail }),
  notSupported: (path: string, value: unknown, supported: readonly string[]): FieldError => ({
    field: path,
    type: 'FieldValueNotSupported',
    value,
    message: supported.length > 0 ? `supported values: ${supported.map(goQuote).join(', ')}` : '',
  }),
  notFound: (path: string, value: unknown, detail = ''): FieldError => ({ field: path, type: 'FieldValueNotFound', value, message: detail }),
  duplicate: (path: string, value: unknown): FieldError => ({ field: path, type: 'FieldValueDuplicate', value, message: '' }),
  tooLong: (path: string, maxLength: number): FieldError => ({
    field: path,
    type: 'FieldValueTooLong',
    message: maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}` : 'value is too long',
  }),
  tooMany: (path: string, actual: number, max: number): FieldError => ({
    field: path,
    type: 'FieldValueTooMany',
    ...(actual >= 0 ? { value: actual } : {}),
    message: max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items',
  }),
};

const TYPE_WORDS: Record<CauseType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueForbidden: 'Forbidden',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueNotFound: 'Not found',
  InternalError: 'Internal error',
};

/** The types whose message never shows the value (field.Error.ErrorBody). */
const VALUELESS: ReadonlySet<CauseType> = new Set(['FieldValueRequired', 'FieldValueForbidden', 'FieldValueTooLong', 'InternalError']);

/** `spec.tier: Invalid value: "gold": field is immutable`, as apimachinery prints it. */
export function describeFieldError(error: FieldError): string {
  return `${error.field}: ${causeMessage(error)}`;
}

/** field.Error.ErrorBody(): the cause message without the field, as in `status.details.causes[].message`. */
export function causeMessage(error: FieldError): string {
  // A cause type from plain JavaScript may be none of CauseType's.
  let body = (TYPE_WORDS as Partial<Record<string, string>>)[error.type] ?? `<unknown error ${goQuote(error.type)}>`;
  if (!VALUELESS.has(error.type) && error.value !== undefined) body += `: ${formatBadValue(error.value)}`;
  return error.message ? `${body}: ${error.message}` : body;
}

function formatBadValue(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return String(value);
  return goJson(value);
}
