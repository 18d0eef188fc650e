/**
 * Kubernetes resource quantities ("500m", "1.5Gi", "2e3"), checked with the
 * grammar of k8s.io/apimachinery/pkg/api/resource: a signed decimal number and
 * at most one binary-SI, decimal-SI or exponent suffix.
 */
const QUANTITY = /^[+-]?(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

export function isQuantity(value: unknown): value is string | number {
  if (typeof value === 'number') return Number.isFinite(value);
  return typeof value === 'string' && QUANTITY.test(value);
}

/** Whether a well-formed quantity is below zero (never meaningful for a request or limit). */
export function isNegativeQuantity(value: string | number): boolean {
  return (typeof value === 'number' ? value : Number.parseFloat(value)) < 0;
}
