/**
 * The estimated cost of the CRDs' `x-kubernetes-validations`, as the API
 * server estimates it when the CRD is created: each generated CRD goes
 * through apiextensions-apiserver's own ValidateCustomResourceDefinition (the
 * CEL engine), and what it refuses for cost — a rule beyond 10,000,000 times
 * the cardinality of the lists and maps around it, a schema beyond
 * 100,000,000 in total — is reported at the rule's marker, with the API
 * server's words.
 */
import { validateCrd, type CrdProblem } from '../cel/engine/index.js';
import { ruleOrigin } from './rule-origins.js';
import { customResourceDefinition } from './crd-object.js';
import type { Crd, Schema, ValidationRule } from './types.js';

const RULE_COST = ['estimated rule cost exceeds budget', 'estimated messageExpression cost exceeds budget'];
const CONTRIBUTED = 'contributed to estimated rule cost total';
const TOTAL = 'x-kubernetes-validations estimated rule cost total';

function hasRules(schema: Schema | undefined): boolean {
  if (!schema) return false;
  if (schema['x-kubernetes-validations']?.length) return true;
  return Object.values(schema.properties ?? {}).some(hasRules) || hasRules(schema.items) || (typeof schema.additionalProperties === 'object' && hasRules(schema.additionalProperties));
}

/** The rule a field path of the API server's answer names (`….openAPIV3Schema.properties[spec].items.x-kubernetes-validations[0].rule`). */
function ruleAt(crd: Crd, field: string): ValidationRule | undefined {
  const version = /^spec\.versions\[(\d+)\]\.schema\.openAPIV3Schema/.exec(field);
  const base = version ? version[0] : 'spec.validation.openAPIV3Schema';
  if (!field.startsWith(base)) return undefined;
  let schema: Schema | undefined = crd.versions[version ? Number(version[1]) : 0]?.schema;
  const step = /\.properties\[([^\]]*)\]|\.items|\.additionalProperties|\.x-kubernetes-validations\[(\d+)\]\.(?:rule|messageExpression)$/y;
  step.lastIndex = base.length;
  for (let match = step.exec(field); match && schema; match = step.exec(field)) {
    if (match[2] !== undefined) return schema['x-kubernetes-validations']?.[Number(match[2])];
    if (match[1] !== undefined) schema = schema.properties?.[match[1]];
    else if (match[0] === '.items') schema = schema.items;
    else schema = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  }
  return undefined;
}

/** Reports, at their markers, the rules the API server would refuse the CRDs for because of their estimated cost. */
export function checkRuleCosts(crds: readonly Crd[]): void {
  for (const crd of crds) {
    if (!crd.versions.some((version) => hasRules(version.schema))) continue;
    const problems = validateCrd(customResourceDefinition(crd)).problems ?? [];
    const total = problems.find((problem) => problem.detail.startsWith(TOTAL));
    const report = (problem: CrdProblem, message: string) => {
      const rule = ruleAt(crd, problem.field);
      (rule && ruleOrigin(rule))?.(message, problem.field.endsWith('.messageExpression') ? 'messageExpression' : 'rule');
    };
    for (const problem of problems) {
      if (RULE_COST.some((start) => problem.detail.startsWith(start))) report(problem, `the API server refuses this rule: ${problem.text}`);
      else if (problem.detail.startsWith(CONTRIBUTED) && total) report(problem, `the API server refuses this CRD: ${total.text}; this rule ${problem.detail}`);
    }
  }
}
