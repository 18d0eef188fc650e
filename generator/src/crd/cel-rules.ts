/**
 * `x-kubernetes-validations` rules compiled as the API server compiles them
 * when it stores the CRD: with the Kubernetes CEL libraries, `self` (and
 * `oldSelf`, optional under optionalOldSelf) typed from the schema of the
 * field the rule is on (cel/schema-types.ts, as for a policy's `object`), so
 * that a misspelt field or a wrong type is a `file:line:col` message here,
 * not a CRD the API server refuses. A rule must give a bool, a
 * messageExpression a string.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { compileExpression, resultTypeProblem } from '../cel/compile.js';
import { kubernetesCelEnvironment } from '../cel/environment.js';
import { declareSchemaTypes } from '../cel/schema-types.js';
import type { Schema, ValidationRule } from './types.js';

/** The name the schema's object types are registered under, for messages (`Self.spec`). */
const ROOT = 'Self';

function ruleEnvironment(schema: Schema, optionalOldSelf: boolean): Environment {
  const env = kubernetesCelEnvironment();
  const selfType = declareSchemaTypes(env, ROOT, schema);
  env.registerVariable('self', selfType).registerVariable('oldSelf', optionalOldSelf ? `optional<${selfType}>` : selfType);
  return env;
}

/**
 * The first problem of a rule, with the key (rule or messageExpression) whose value it is in; a compilation error
 * with its offset in the expression and its message both with and without that column, for where the marker's
 * text shows the expression as it is (file:line:col then names it) and where it does not.
 */
export function checkRule(rule: ValidationRule, schema: Schema): { key: string; message: string; at?: { offset: number; message: string } } | undefined {
  const env = ruleEnvironment(schema, rule.optionalOldSelf === true);
  const expressions: [key: 'rule' | 'messageExpression', expression: string | undefined, allowed: string][] = [
    ['rule', rule.rule, 'bool'],
    ['messageExpression', rule.messageExpression, 'string'],
  ];
  for (const [key, expression, allowed] of expressions) {
    if (expression === undefined) continue;
    if (expression.trim() === '') return { key, message: `@shaper:validation ${key} must not be blank` };
    const compiled = compileExpression(env, expression);
    const problem = resultTypeProblem(compiled, [allowed], true);
    if (!problem) continue;
    const say = (detail: string) => `@shaper:validation ${key}: ${detail} (self is typed from the field's schema)`;
    if (!problem.compiled) return { key, message: say(problem.message) };
    return {
      key,
      message: say(`CEL compilation failed at column ${problem.offset + 1}: ${problem.message}`),
      at: { offset: problem.offset, message: say(`CEL compilation failed: ${problem.message}`) },
    };
  }
  return undefined;
}
