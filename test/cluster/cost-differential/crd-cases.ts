/**
 * CRD rules whose estimated cost straddles the API server's limits, written
 * as TypeScript kinds with `@shaper:` markers. Each family is a rule whose
 * cost per evaluation is fixed (probed once, at cardinality 1, with the API
 * server's own estimator) and a parameter that multiplies it (maxItems,
 * maxProperties, the number of rules); the cases put the parameter just
 * under, at and just over each limit by arithmetic:
 * - 10,000,000 per rule: cost × cardinality (nested lists and maps multiply);
 * - 10,000,000 per messageExpression, not multiplied by cardinality;
 * - 100,000,000 per schema, the top 4 contributors of at least 1,000,000 named;
 * - the factor's three spellings (six decimals below 1.5, one decimal rounded
 *   half to even, `more than 100x` above 100).
 */

export const PER_RULE = 10_000_000n;
export const PER_SCHEMA = 100_000_000n;

/** A rule as a case declares it: the marker's text, and where the API server's messages put it below the schema's root. */
export interface CaseRule {
  readonly marker: string;
  /** The declaration the marker's JSDoc is on: the marker is the last one above it. */
  readonly anchor: string;
  readonly field: string;
}

export interface CrdCase {
  readonly id: string;
  readonly family: string;
  /** What the arithmetic expects of the API server, for the count printed (the server's answer is what is compared). */
  readonly expected: 'accepted' | 'refused';
  /** Declarations before the kind (type aliases carrying item markers), and the members of its spec. */
  readonly declarations: readonly string[];
  readonly members: readonly string[];
  readonly rules: readonly CaseRule[];
}

const RULE = (rule: string, messageExpression?: string) => `@shaper:validation rule="${rule}"${messageExpression === undefined ? '' : ` messageExpression="${messageExpression}"`}`;

const jsdoc = (...markers: string[]) => `/**\n${markers.map((m) => ` * ${m}`).join('\n')}\n */`;

/** A rule on the items of a list field: `<name>?: <Alias>[]` with the list's and the item's markers. */
interface Shape {
  readonly name: string;
  /** The family's rules, each written once per case. */
  readonly rules: readonly string[];
  readonly messageExpression?: string;
  /** Per case: the declarations, members and rule fields for parameter n. */
  build(id: string, n: bigint, rule: string): Pick<CrdCase, 'declarations' | 'members' | 'rules'>;
}

const spec = (path: string) => `properties[spec].${path}`;

/** A list of strings, the rule on each item: cost × maxItems. */
const listItems: Shape = {
  name: 'list items',
  rules: [
    "self.startsWith('a')",
    'size(self) <= 40',
    "self.matches('^[a-z]+$')",
    'self.lowerAscii() == self',
    "self.contains('-') || self.endsWith('z')",
    "self in ['a', 'b', 'c']",
    "self.split('-').size() < 4",
    "self.indexOf('x') < 3",
    "self.replace('a', 'b') != 'c'",
  ],
  build(id, n, rule) {
    const marker = RULE(rule);
    return {
      declarations: [`${jsdoc('@shaper:maxLength 32', marker)}\ntype Item${id} = string;`],
      members: [`${jsdoc(`@shaper:maxItems ${n}`)}\nitems?: Item${id}[];`],
      rules: [{ marker, anchor: `type Item${id} =`, field: spec('properties[items].items.x-kubernetes-validations[0].rule') }],
    };
  },
};

/** A list of objects holding a list of strings: cost × 100 × maxItems of the inner list. */
const nestedLists: Shape = {
  name: 'nested lists',
  rules: ["self.startsWith('a')", "self.matches('^[a-z]+$')"],
  build(id, n, rule) {
    const marker = RULE(rule);
    return {
      declarations: [
        `${jsdoc('@shaper:maxLength 16', marker)}\ntype Cell${id} = string;`,
        `interface Row${id} {\n  ${jsdoc(`@shaper:maxItems ${n}`).replaceAll('\n', '\n  ')}\n  cells?: Cell${id}[];\n}`,
      ],
      members: [`${jsdoc('@shaper:maxItems 100')}\nrows?: Row${id}[];`],
      rules: [{ marker, anchor: `type Cell${id} =`, field: spec('properties[rows].items.properties[cells].items.x-kubernetes-validations[0].rule') }],
    };
  },
};

/** A map of strings, the rule on each value: cost × maxProperties. */
const mapValues: Shape = {
  name: 'map values',
  rules: ["self.startsWith('a')", 'size(self) > 2', "self.matches('^v[0-9]+$')"],
  build(id, n, rule) {
    const marker = RULE(rule);
    return {
      declarations: [`${jsdoc('@shaper:maxLength 32', marker)}\ntype Value${id} = string;`],
      members: [`${jsdoc(`@shaper:maxProperties ${n}`)}\nlabels?: Record<string, Value${id}>;`],
      rules: [{ marker, anchor: `type Value${id} =`, field: spec('properties[labels].additionalProperties.x-kubernetes-validations[0].rule') }],
    };
  },
};

/** A rule on a list comparing every pair of items: cardinality 1, cost quadratic in maxItems. */
const pairwise: Shape = {
  name: 'pairwise',
  rules: ['self.all(a, self.all(b, a == b || a != b))', 'self.all(a, self.exists_one(b, b == a))'],
  build(id, n, rule) {
    const marker = RULE(rule);
    return {
      declarations: [`${jsdoc('@shaper:maxLength 16')}\ntype Name${id} = string;`],
      members: [`${jsdoc(`@shaper:maxItems ${n}`, marker)}\nnames?: Name${id}[];`],
      rules: [{ marker, anchor: 'names?:', field: spec('properties[names].x-kubernetes-validations[0].rule') }],
    };
  },
};

/** A cheap rule with a messageExpression over its list: the messageExpression's cost grows with maxItems, and is not multiplied by the 1000 enclosing groups. */
const messageExpressions: Shape = {
  name: 'messageExpression',
  rules: ['size(self) >= 0'],
  messageExpression: 'string(self.map(a, self.filter(b, b == a).size()).size())',
  build(id, n, rule) {
    const marker = RULE(rule, messageExpressions.messageExpression);
    return {
      declarations: [`${jsdoc(`@shaper:maxItems ${n}`, marker)}\ntype Names${id} = number[];`],
      members: [`${jsdoc('@shaper:maxItems 1000')}\ngroups?: Names${id}[];`],
      rules: [{ marker, anchor: `type Names${id} =`, field: spec('properties[groups].items.x-kubernetes-validations[0].messageExpression') }],
    };
  },
};

export interface Probe {
  readonly id: string;
  readonly shape: Shape;
  readonly rule: string;
  /** The parameter the probe is declared with; cost(n) is read from the estimator at these. */
  readonly at: bigint;
}

const SHAPES = [listItems, nestedLists, mapValues, pairwise, messageExpressions];

/** The probes: every family's rule at small parameters (three for the quadratic families, one for the linear ones). */
export function probes(): Probe[] {
  return SHAPES.flatMap((shape, s) =>
    shape.rules.flatMap((rule, r) => {
      const quadratic = shape === pairwise || shape === messageExpressions;
      return (quadratic ? [1n, 2n, 3n, 7n] : [1n]).map((at) => ({ id: `P${s}x${r}x${at}`, shape, rule, at }));
    }),
  );
}

export function probeCase(probe: Probe): CrdCase {
  return { id: probe.id, family: 'probe', expected: 'accepted', ...probe.shape.build(probe.id, probe.at, probe.rule) };
}

/** cost(n) of a family's rule: linear c·n from one probe, or the quadratic through three probes at 1, 2 and 3 (Lagrange's form, integer at integers). */
export type CostOf = (n: bigint) => bigint;

export function costFunction(samples: readonly (readonly [bigint, bigint])[]): CostOf {
  if (samples.length === 1) return (n) => samples[0]![1] * n;
  const [[x1, y1], [x2, y2], [x3, y3]] = samples as [[bigint, bigint], [bigint, bigint], [bigint, bigint]];
  if (x1 !== 1n || x2 !== 2n || x3 !== 3n) throw new Error('the quadratic is read at 1, 2 and 3');
  return (n) => (y1 * (n - 2n) * (n - 3n)) / 2n - y2 * (n - 1n) * (n - 3n) + (y3 * (n - 1n) * (n - 2n)) / 2n;
}

/** The largest n with cost(n) ≤ limit (cost increasing). */
export function largestWithin(cost: CostOf, limit: bigint): bigint {
  let low = 0n;
  let high = 1n;
  while (cost(high) <= limit) high *= 2n;
  while (high - low > 1n) {
    const mid = (low + high) / 2n;
    if (cost(mid) <= limit) low = mid;
    else high = mid;
  }
  return low;
}

/** The cases of every family, from the probed cost functions (keyed by shape name and rule). */
export function crdCases(costs: ReadonlyMap<string, CostOf>): CrdCase[] {
  const cases: CrdCase[] = [];
  const add = (family: string, shape: Shape, rule: string, n: bigint, cost: bigint, limit: bigint) => {
    const id = `K${cases.length}`;
    cases.push({ id, family, expected: cost <= limit ? 'accepted' : 'refused', ...shape.build(id, n, rule) });
  };
  for (const shape of SHAPES) {
    for (const rule of shape.rules) {
      const cost = costs.get(`${shape.name}\0${rule}`)!;
      // The per-rule limit: the largest parameter within it, and the next two.
      const within = largestWithin(cost, PER_RULE);
      for (const n of [within - 2n, within - 1n, within, within + 1n, within + 2n]) if (n >= 1n) add(`${shape.name}: per rule`, shape, rule, n, cost(n), PER_RULE);
    }
  }
  // The factor's spellings, on list items of cost 2 (startsWith): exactly the limit (accepted), totals around 1.5×, 2.25× (half to even), 100×.
  const two = costs.get(`${listItems.name}\0${listItems.rules[0]}`)!;
  for (const total of [10_000_000n, 14_999_998n, 15_000_000n, 15_000_002n, 22_500_000n, 22_500_002n, 250_000_000n, 999_999_998n, 1_000_000_000n, 1_000_000_002n]) {
    const n = total / two(1n);
    add('factor spelling', listItems, listItems.rules[0]!, n, two(n), PER_RULE);
  }
  cases.push(...schemaTotals(two));
  return cases;
}

/**
 * The per-schema total: several list fields whose rules each stay within the
 * per-rule limit, adding up to just under, at and just over 100,000,000, with
 * distinct costs (the API server names the top 4 by cost; equal costs would
 * be named in Go's map order) and some under 1,000,000 (never named).
 */
function schemaTotals(two: CostOf): CrdCase[] {
  const unit = two(1n);
  const plans: { id: string; items: bigint[] }[] = [];
  const per = (total: bigint, parts: bigint[]) => {
    const fixed = parts.reduce((sum, n) => sum + n * unit, 0n);
    return [...parts, (total - fixed) / unit];
  };
  const big = [4_900_000n, 4_800_000n, 4_700_000n, 4_600_000n, 4_500_000n, 4_400_000n, 4_300_000n, 4_200_000n, 4_100_000n];
  for (const total of [99_999_998n, 100_000_000n, 100_000_002n, 100_000_004n, 120_000_000n]) plans.push({ id: `T${plans.length}`, items: per(total, [...big, 400_000n]) });
  // Eleven rules at 9.9M each but for distinct small offsets: 108.9M, the top 4 named.
  plans.push({ id: `T${plans.length}`, items: Array.from({ length: 11 }, (_, i) => 4_950_000n - BigInt(i) * 1000n) });
  plans.push({ id: `T${plans.length}`, items: Array.from({ length: 10 }, (_, i) => 4_999_000n - BigInt(i) * 1000n) });
  // One rule over the per-rule limit in a schema over the total: both kinds of refusal.
  plans.push({ id: `T${plans.length}`, items: [5_000_001n, ...big.slice(0, 8), 9_000_000n / unit] });
  return plans.map(({ id, items }) => {
    const total = items.reduce((sum, n) => sum + n * unit, 0n);
    const over = total > PER_SCHEMA || items.some((n) => n * unit > PER_RULE);
    const built = items.map((n, i) => listItems.build(`${id}f${i}`, n, listItems.rules[0]!));
    return {
      id,
      family: 'schema total',
      expected: over ? 'refused' : 'accepted',
      declarations: built.flatMap((b) => b.declarations),
      members: built.flatMap((b, i) => b.members.map((m) => m.replace('items?:', `items${i}?:`))),
      rules: built.flatMap((b, i) => b.rules.map((r) => ({ ...r, field: r.field.replace('properties[items]', `properties[items${i}]`) }))),
    };
  });
}

/** The cost key of a probe's family and rule. */
export const costKey = (probe: Probe) => `${probe.shape.name}\0${probe.rule}`;

const GROUP_FILE = `/** @shaper:groupName */
export const GROUP = 'cost.shaper-gen.io';
/** @shaper:versionName */
export const VERSION = 'v1';
`;

/** The project's files: one kind per case, `src/api/<id>.ts`, kind `<Id>` (plural `<id>s`). */
export function caseFiles(cases: readonly CrdCase[]): Record<string, string> {
  const files: Record<string, string> = { 'src/api/group.ts': GROUP_FILE };
  for (const c of cases) {
    const indent = (text: string) =>
      text
        .split('\n')
        .map((line) => `    ${line}`)
        .join('\n');
    files[fileOf(c)] =
      `import type { KubernetesObject } from 'shaper-gen';\n\n${c.declarations.join('\n\n')}\n\n` +
      `/** @shaper:resource */\nexport interface ${kindOf(c)} extends KubernetesObject {\n  spec?: {\n${c.members.map(indent).join('\n')}\n  };\n}\n`;
  }
  return files;
}

export const fileOf = (c: { id: string }) => `src/api/${c.id.toLowerCase()}.ts`;
export const kindOf = (c: { id: string }) => `Cost${c.id}`;
export const crdNameOf = (c: { id: string }) => `${kindOf(c).toLowerCase()}s.cost.shaper-gen.io`;

/** `line:col` of a rule's marker as manifests reports it: the opening quote of its rule (or messageExpression) argument. */
export function markerPosition(source: string, rule: CaseRule): string {
  const lines = source.split('\n');
  const anchor = lines.findIndex((text) => text.includes(rule.anchor));
  const line = lines.slice(0, anchor).findLastIndex((text) => text.includes(rule.marker));
  if (anchor < 0 || line < 0) throw new Error(`marker not found: ${rule.marker} above ${rule.anchor}`);
  const argument = rule.field.endsWith('.messageExpression') ? 'messageExpression="' : 'rule="';
  return `${line + 1}:${lines[line]!.indexOf(argument) + argument.length}`;
}
