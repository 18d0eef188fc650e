/**
 * Where a policy's CEL can exceed the API server's runtime cost limits: the
 * API server's own estimate (the CEL engine), with `object` typed from the
 * matched resource's schema, against 1,000,000 per expression, 10,000,000 for
 * a binding's validations together and 2,500,000 for its matchConditions.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadGeneratorConfig } from '../../../../generator/src/config.js';
import { formatDiagnostic } from '../../../../generator/src/diagnostics.js';
import { generateManifests } from '../../../../generator/src/manifests/manifests.js';
import { EXAMPLE_GROUP } from '../../../support/crd-fixture-sources.js';
import { createFixtureProject, type FixtureProject } from '../../../support/fixture-project.js';
import { policyCostWarnings } from '../../../../generator/src/policy/cost-warnings.js';
import { resolveValidatingPolicyOptions } from '../../../../runtime/policy/options/policy-resolve.js';

const schema = (maxItems?: number) => ({
  type: 'object',
  properties: {
    metadata: { type: 'object' },
    spec: { type: 'object', properties: { n: { type: 'array', ...(maxItems !== undefined && { maxItems }), items: { type: 'integer' } } } },
  },
});

const PAIRS = 'object.spec.n.all(a, object.spec.n.all(b, a + b >= 0))';
/** cel-go's estimate of PAIRS over a list of at most n items: 7 per inner step, 7 per outer step, 4 to reach the list. */
const pairs = (n: number) => 7 * n * n + 7 * n + 4;
const words = (cost: number) => cost.toLocaleString('en-US');
/** Items an unbounded list of integers can hold in the largest request: 3 MiB less its brackets, 2 bytes an item (common.SchemaDeclType's bound). */
const UNBOUNDED_INTS = (3 * 1024 * 1024 - 2) / 2;

function warnings(options: object, maxItems?: number, typed = true): string[] {
  const { policy, problems } = resolveValidatingPolicyOptions(
    { rules: [{ groups: ['cost.shaper-gen.io'], versions: ['v1'], resources: ['loads'], operations: ['CREATE'] }], ...options },
    'LoadPolicy',
  );
  expect(problems).toEqual([]);
  return policyCostWarnings(policy!, typed ? { name: 'loads.cost.shaper-gen.io/v1', schema: schema(maxItems) } : undefined).map((w) => `${w.path.join('.')}: ${w.message}`);
}

const ADVICE = "bound the lists, maps and strings it reads in loads.cost.shaper-gen.io/v1's schema (maxItems, maxProperties, maxLength), or read fewer of them";

describe('policy cost warnings', () => {
  it('warn where one expression can pass 1,000,000, with the estimate and how to bound it', () => {
    expect(warnings({ validations: [{ expression: PAIRS }] })).toEqual([
      `validations.0.expression: warning: the API server's estimated cost of this expression is ${words(pairs(UNBOUNDED_INTS))}, over the 1,000,000 it lets one expression use at run time: on a large enough object it stops with 'operation cancelled: actual cost limit exceeded' and failurePolicy Fail denies the request; ${ADVICE}`,
    ]);
  });

  it('stay silent once maxItems bounds the estimate under the limit', () => {
    expect(warnings({ validations: [{ expression: PAIRS }] }, 100)).toEqual([]);
  });

  it("warn where the validations together can pass the binding's 10,000,000, each within 1,000,000", () => {
    const validations = Array.from({ length: 11 }, () => ({ expression: PAIRS }));
    expect(pairs(377)).toBeLessThanOrEqual(1_000_000);
    expect(warnings({ validations, failurePolicy: 'Ignore' }, 377)).toEqual([
      `validations: warning: the validations' estimated costs add up to ${words(11 * pairs(377))}, over the 10,000,000 the API server allows per binding at run time: on a large enough object it stops with 'validation failed due to running out of cost budget, no further validation rules will be run' and failurePolicy Ignore lets the request through unchecked; ${ADVICE}`,
    ]);
  });

  it('warn on matchConditions past 2,500,000 together; not on a messageExpression, which only loses its message', () => {
    const messageExpression = `${PAIRS} && ${PAIRS} ? 'pairs' : 'no pairs'`;
    expect(
      warnings({ matchConditions: Array.from({ length: 3 }, (_, i) => ({ name: `c${i}`, expression: PAIRS })), validations: [{ expression: 'true', messageExpression }] }, 377).map(
        (w) => w.split(': on a large')[0],
      ),
    ).toEqual([
      `matchConditions: warning: the matchConditions' estimated costs add up to ${words(3 * pairs(377))}, over the 2,500,000 the API server allows per binding's matchConditions at run time`,
    ]);
  });

  it('say when object is untyped', () => {
    expect(warnings({ validations: [{ expression: 'object.spec.n.all(a, a > 0)' }] }, undefined, false)).toEqual([
      "validations.0.expression: warning: the API server's estimated cost of this expression is unbounded, over the 1,000,000 it lets one expression use at run time: on a large enough object it stops with 'operation cancelled: actual cost limit exceeded' and failurePolicy Fail denies the request; object is untyped here (the policy does not match exactly one resource), so every list and string counts as unbounded: match one resource, or read fewer lists",
    ]);
  });
});

const projects: FixtureProject[] = [];
afterAll(() => {
  for (const project of projects) project.remove();
});

const LOAD_KIND = (maxItems: number) => `import type { KubernetesObject } from 'shaper-gen';

/** @shaper:resource */
export interface Load extends KubernetesObject {
  spec?: {
    /** @shaper:maxItems ${maxItems} */
    n?: number[];
  };
}
`;

const POLICY = `import { ValidatingPolicy } from 'shaper-gen';

@ValidatingPolicy({
  rules: [{ groups: ['example.com'], versions: ['v1'], resources: ['loads'], operations: ['CREATE'] }],
  validations: [{ expression: '${PAIRS}' }],
})
export class PairsPolicy {}
`;

async function manifestsWarnings(maxItems: number): Promise<{ warnings: string[]; written: number }> {
  const project = createFixtureProject({ 'src/api/group.ts': EXAMPLE_GROUP, 'src/api/load.ts': LOAD_KIND(maxItems), 'src/policies.ts': POLICY });
  projects.push(project);
  const result = await generateManifests(loadGeneratorConfig(undefined, project.dir));
  return { warnings: result.warnings.map((w) => formatDiagnostic(w, project.dir)), written: result.files.length };
}

describe('manifests', () => {
  it("warns at the expression's file:line:col, typed from the project's CRD, and still writes the chart", async () => {
    expect(POLICY.split('\n')[4]!.indexOf(`'${PAIRS}'`) + 1).toBe(31);
    const { warnings, written } = await manifestsWarnings(1000);
    expect(warnings).toEqual([
      `src/policies.ts:5:31: warning: the API server's estimated cost of this expression is ${words(pairs(1000))}, over the 1,000,000 it lets one expression use at run time: on a large enough object it stops with 'operation cancelled: actual cost limit exceeded' and failurePolicy Fail denies the request; bound the lists, maps and strings it reads in loads.example.com/v1's schema (maxItems, maxProperties, maxLength), or read fewer of them`,
    ]);
    expect(written).toBeGreaterThan(0);
  });

  it('is silent once maxItems keeps the estimate within the limit', async () => {
    expect(pairs(377)).toBeLessThanOrEqual(1_000_000);
    expect((await manifestsWarnings(377)).warnings).toEqual([]);
  });
});
