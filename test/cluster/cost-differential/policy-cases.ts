/**
 * ValidatingAdmissionPolicy expressions whose runtime cost straddles the API
 * server's limits: 1,000,000 per expression call, 10,000,000 per binding
 * (validations, then messageExpressions on what is left; audit annotations
 * with a budget of their own), 2,500,000 for a policy's matchConditions.
 * The cost grows with the length n of a list of integers in the object
 * (`spec.n` of a Load): each body is a nested comprehension whose actual cost
 * is a quadratic a·n² + b·n + c, read from the API server's evaluator at three
 * lengths; the cases put n, or the number of expressions, just under, at and
 * just over each limit by arithmetic.
 */
import { costFunction, largestWithin, type CostOf } from './crd-cases.js';

export const PER_CALL = 1_000_000n;
export const PER_BINDING = 10_000_000n;
export const MATCH_CONDITIONS = 2_500_000n;

export const BODIES = [
  'object.spec.n.all(a, object.spec.n.all(b, a + b >= 0))',
  'object.spec.n.all(a, object.spec.n.exists(b, b == a))',
  'object.spec.n.map(a, object.spec.n.filter(b, b > a).size()).size() >= 0',
] as const;

/** The last validation of every case: a request labelled `probe` is denied once the policy is in force. */
export const PROBE = { expression: "!('probe' in object.metadata.labels)", message: 'probe' };

export interface PolicyCase {
  readonly id: string;
  readonly family: string;
  readonly n: number;
  readonly failurePolicy: 'Fail' | 'Ignore';
  readonly validations: readonly { expression: string; message?: string; messageExpression?: string }[];
  readonly variables?: readonly { name: string; expression: string }[];
  readonly matchConditions?: readonly { name: string; expression: string }[];
  readonly auditAnnotations?: readonly { key: string; valueExpression: string }[];
}

/** The sample lengths each body's cost is read at; the fourth checks the quadratic. */
export const SAMPLES = [1n, 2n, 3n, 40n] as const;

export { costFunction };

/** The cases, from each body's cost function, and the cost of the probe validation on a list of length n (`probeCost`). */
export function policyCases(costs: readonly CostOf[], probeCost: bigint): PolicyCase[] {
  const cases: PolicyCase[] = [];
  const add = (c: Omit<PolicyCase, 'id'>) => cases.push({ id: `v${cases.length}`, ...c });
  const around = (n: bigint) => [n - 1n, n, n + 1n, n + 2n].map(Number);
  for (const [b, body] of BODIES.entries()) {
    const n = largestWithin(costs[b]!, PER_CALL);
    for (const length of around(n)) {
      for (const failurePolicy of b === 0 ? (['Fail', 'Ignore'] as const) : (['Fail'] as const))
        add({ family: 'per call: validation', n: length, failurePolicy, validations: [{ expression: body }, PROBE] });
      add({ family: 'per call: variable', n: length, failurePolicy: 'Fail', variables: [{ name: 'v', expression: body }], validations: [{ expression: 'variables.v' }, PROBE] });
      if (b === 0) {
        add({
          family: 'per call: messageExpression',
          n: length,
          failurePolicy: 'Fail',
          validations: [{ expression: 'object.spec.n.size() < 0', message: 'static', messageExpression: `string(${body})` }, PROBE],
        });
        add({
          family: 'per call: matchCondition',
          n: length,
          failurePolicy: 'Fail',
          matchConditions: [{ name: 'c', expression: body }],
          validations: [{ expression: 'false', message: 'matched' }, PROBE],
        });
      }
    }
  }
  // The per-binding budget: K copies of the first body at the longest list within the per-call limit; the probe runs last.
  // (Local evaluation runs about 100,000 cost units a second in WebAssembly on this loaded machine: one length, not several.)
  {
    const length = largestWithin(costs[0]!, PER_CALL);
    const each = costs[0]!(length);
    const k = (PER_BINDING - probeCost) / each;
    for (const count of [k, k + 1n]) {
      for (const failurePolicy of count === k + 1n ? (['Fail', 'Ignore'] as const) : (['Fail'] as const))
        add({ family: 'per binding: validations', n: Number(length), failurePolicy, validations: [...Array.from({ length: Number(count) }, () => ({ expression: BODIES[0] })), PROBE] });
    }
    // matchConditions share 2,500,000.
    const m = MATCH_CONDITIONS / each;
    for (const count of [m - 1n, m, m + 1n]) {
      if (count < 1n) continue;
      for (const failurePolicy of ['Fail', 'Ignore'] as const)
        add({
          family: 'matchConditions budget',
          n: Number(length),
          failurePolicy,
          matchConditions: Array.from({ length: Number(count) }, (_, i) => ({ name: `c${i}`, expression: BODIES[0] })),
          validations: [{ expression: 'false', message: 'matched' }, PROBE],
        });
    }
    // Audit annotations have a budget of their own: with failurePolicy Fail, running out denies.
    for (const count of [k, k + 1n])
      add({
        family: 'per binding: audit annotations',
        n: Number(length),
        failurePolicy: 'Fail',
        validations: [PROBE],
        auditAnnotations: Array.from({ length: Number(count) }, (_, i) => ({ key: `a${i}`, valueExpression: `${BODIES[0]} ? 'yes' : 'no'` })),
      });
  }
  return cases;
}

export const policyNameOf = (c: { id: string }) => `cost-${c.id}.shaper-gen.io`;
export const bindingNameOf = (c: { id: string }) => `cost-${c.id}-binding`;
