/**
 * Where each `x-kubernetes-validations` rule was declared: what only the
 * whole CRD decides about a rule (its estimated cost, which depends on the
 * lists and maps around the field) is reported at the rule's marker.
 */
import type { ValidationRule } from './types.js';

/** Reports at the marker's `rule` argument, or at its `messageExpression` when the problem is that expression's. */
export type ReportAtRule = (message: string, argument?: 'rule' | 'messageExpression') => void;

const origins = new WeakMap<ValidationRule, ReportAtRule>();

export function recordRuleOrigin(rule: ValidationRule, report: ReportAtRule): void {
  origins.set(rule, report);
}

export function ruleOrigin(rule: ValidationRule): ReportAtRule | undefined {
  return origins.get(rule);
}
