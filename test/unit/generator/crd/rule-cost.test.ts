/**
 * The estimated cost of CRD rules, as the API server estimates it when the
 * CRD is created (apiextensions-apiserver's own validation, through the CEL
 * engine): a rule it would refuse is reported at its marker with the API
 * server's message, factor and advice; the same rule with bounds passes.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { kindWithSpec, scanProject } from './fixture.js';

const removals: (() => void)[] = [];
afterAll(() => {
  for (const remove of removals) remove();
});

function scanned(files: Record<string, string>) {
  const result = scanProject(files);
  removals.push(() => result.project.remove());
  return { messages: result.messages, crds: result.crds.length };
}

const RULE_FIELD = 'spec.validation.openAPIV3Schema.properties[spec].properties[names].x-kubernetes-validations[0].rule';
const ADVICE = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

const PAIRWISE = '@shaper:validation rule="self.all(a, self.all(b, size(a) <= size(b) || size(a) > size(b)))"';

describe('the estimated cost of x-kubernetes-validations', () => {
  it('refuses, at the marker, a rule the API server refuses, with its message', () => {
    expect(scanned({ 'src/api/k.ts': kindWithSpec(`/** ${PAIRWISE} */`, 'names?: string[];') })).toEqual({
      crds: 1,
      messages: [
        `src/api/k.ts:5:33: the API server refuses this CRD: spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${ADVICE}; this rule contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
        `src/api/k.ts:5:33: the API server refuses this rule: ${RULE_FIELD}: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${ADVICE}`,
      ],
    });
  });

  it('gives the factor as the API server rounds it', () => {
    // 1000 × 1000 pairs: just above the 10,000,000 per rule; below 1.5 the API server prints six decimals.
    expect(scanned({ 'src/api/k.ts': kindWithSpec(`/** ${PAIRWISE} @shaper:maxItems 1000 */`, 'names?: string[];') }).messages).toEqual([
      `src/api/k.ts:5:33: the API server refuses this rule: ${RULE_FIELD}: Forbidden: estimated rule cost exceeds budget by factor of 1.300500x ${ADVICE}`,
    ]);
  });

  it('accepts the same rule once the list is bounded', () => {
    expect(scanned({ 'src/api/k.ts': kindWithSpec(`/** ${PAIRWISE} @shaper:maxItems 100 */`, 'names?: string[];') })).toEqual({ messages: [], crds: 1 });
  });

  it("refuses a messageExpression beyond 10,000,000 at the marker's messageExpression argument", () => {
    // Every item against every item: 15 n² + 25 n + 14 for a list of at most n numbers; 816 items: 10,008,254.
    const marker = (n: number) => `/** @shaper:validation rule="size(self) >= 0" messageExpression="string(self.map(a, self.filter(b, b == a).size()).size())" @shaper:maxItems ${n} */`;
    const source = kindWithSpec(marker(816), 'names?: number[];');
    const column = source.split('\n')[4]!.indexOf('messageExpression="') + 'messageExpression='.length + 1;
    expect(scanned({ 'src/api/k.ts': source }).messages).toEqual([
      `src/api/k.ts:5:${column}: the API server refuses this rule: ${RULE_FIELD.replace(/rule$/, 'messageExpression')}: Forbidden: estimated messageExpression cost exceeds budget by factor of 1.000825x ${ADVICE}`,
    ]);
    expect(scanned({ 'src/api/k.ts': kindWithSpec(marker(815), 'names?: number[];') }).messages).toEqual([]);
  });
});
