/**
 * CRD schemas `manifests` never writes but the API server's estimator treats
 * specially (1.37): `metadata.name` bounded to 253 characters (also with a
 * smaller maxLength declared, as the engine estimates it), and bounds that
 * stand only inside `allOf` ignored. They
 * are compared between the API server and the engine's validation of the CRD
 * (what `manifests` runs), each just under and just over the per-rule limit.
 */
import type { CostOf } from './crd-cases.js';

export interface SchemaCase {
  readonly id: string;
  readonly family: string;
  readonly crd: object;
}

const crd = (id: string, openAPIV3Schema: object) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `schema${id}s.cost.shaper-gen.io` },
  spec: {
    group: 'cost.shaper-gen.io',
    names: { kind: `Schema${id}`, plural: `schema${id}s`, singular: `schema${id}`, listKind: `Schema${id}List` },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }],
  },
});

/** A root rule comparing every item with the object's name: its cost grows with maxItems and with the name's bound. */
export const NAME_RULE = 'self.spec.items.all(i, self.metadata.name.contains(i))';

export function nameSchema(maxItems: bigint, declareName: boolean): object {
  return {
    type: 'object',
    'x-kubernetes-validations': [{ rule: NAME_RULE }],
    properties: {
      metadata: declareName ? { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } } : { type: 'object' },
      spec: { type: 'object', properties: { items: { type: 'array', maxItems: Number(maxItems), items: { type: 'string', maxLength: 300 } } } },
    },
  };
}

/** Every pair of items compared; maxItems on the list itself, or only inside allOf. */
export const PAIR_RULE = 'self.all(a, self.all(b, a == b || a != b))';

export function pairSchema(maxItems: bigint, inAllOf: boolean): object {
  const bound = inAllOf ? { allOf: [{ maxItems: Number(maxItems) }] } : { maxItems: Number(maxItems) };
  return {
    type: 'object',
    properties: { spec: { type: 'object', properties: { names: { type: 'array', items: { type: 'string', maxLength: 16 }, ...bound, 'x-kubernetes-validations': [{ rule: PAIR_RULE }] } } } },
  };
}

/** The cases: each family's parameter around the per-rule limit by its cost function, and the same schemas with the estimator's special case in effect. */
export function schemaCases(nameCost: CostOf, pairCost: CostOf, largestWithin: (cost: CostOf) => bigint): SchemaCase[] {
  const cases: SchemaCase[] = [];
  const add = (family: string, schema: object) => {
    const id = `s${cases.length}`;
    cases.push({ id, family, crd: crd(id, schema) });
  };
  const names = largestWithin(nameCost);
  for (const n of [names - 1n, names, names + 1n]) add('metadata.name bounded to 253', nameSchema(n, false));
  // The same rule with metadata.name declared with maxLength 10 in the schema (the estimator's bound for it is the API server's to say).
  for (const n of [names, names + 1n]) add('metadata.name declared with maxLength 10', nameSchema(n, true));
  const pairs = largestWithin(pairCost);
  for (const n of [pairs, pairs + 1n]) add('maxItems on the list', pairSchema(n, false));
  for (const n of [1n, pairs]) add('maxItems only inside allOf', pairSchema(n, true));
  return cases;
}
