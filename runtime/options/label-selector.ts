/**
 * metav1.LabelSelector, as `namespaceSelector` and `objectSelector` take it,
 * with the API server's rules for label keys, values and operators.
 */
import type { Problem } from '../problems.js';
import { eachItem, expectArray, expectObject, expectObjectWithKeys, expectString, oneOf, validOnly, type Checker, type Report } from './check.js';
import { isLabelValue, isQualifiedName } from './kubernetes-names.js';
import { SELECTOR_OPERATORS, type LabelSelector, type LabelSelectorRequirement } from '../webhook/options/types.js';

const LABEL_VALUE_HINT = 'is not valid (at most 63 letters, digits, "-", "_", ".")';

/**
 * Problems of a metav1.LabelSelector, with paths relative to it — the same
 * rules the decorator's namespaceSelector and objectSelector follow, for
 * applications whose own objects carry selectors.
 */
export function labelSelectorProblems(selector: unknown): Problem[] {
  const problems: Problem[] = [];
  checkLabelSelector(selector, [], (path, message) => problems.push({ path, message }));
  return problems;
}

export const checkLabelSelector: Checker<LabelSelector> = (value, path, report) =>
  validOnly(report, (report) => {
    const selector = expectObject(value, path, report, ['matchLabels', 'matchExpressions']);
    if (!selector) return undefined;
    const matchLabels = selector.matchLabels === undefined ? undefined : checkMatchLabels(selector.matchLabels, [...path, 'matchLabels'], report);
    const at = [...path, 'matchExpressions'];
    const list = selector.matchExpressions === undefined ? undefined : expectArray(selector.matchExpressions, at, report);
    const matchExpressions = list && eachItem(list, at, report, checkRequirement);
    return { ...(matchLabels && { matchLabels }), ...(matchExpressions && { matchExpressions }) };
  });

function checkMatchLabels(value: unknown, path: readonly (string | number)[], report: Report): Record<string, string> | undefined {
  const labels = expectObject(value, path, report);
  if (!labels) return undefined;
  const entries = Object.entries(labels).map(([key, label]) => {
    const at = [...path, key];
    if (!isQualifiedName(key)) report(at, `label key "${key}" is not a valid qualified name`);
    const text = expectString(label, at, report);
    if (text !== undefined && !isLabelValue(text)) report(at, `label value "${text}" ${LABEL_VALUE_HINT}`);
    return [key, text ?? ''] as const;
  });
  return Object.fromEntries(entries);
}

const checkRequirement: Checker<LabelSelectorRequirement> = (value, at, report) =>
  validOnly(report, (report) => {
    const keyed = expectObjectWithKeys(value, at, report, ['key', 'operator', 'values']);
    if (!keyed) return undefined;
    const requirement = keyed.object;
    report = keyed.report;
    const { values } = requirement;
    const key = expectString(requirement.key, [...at, 'key'], report);
    if (key !== undefined && !isQualifiedName(key)) report([...at, 'key'], `label key "${key}" is not a valid qualified name`);
    const operator = oneOf(SELECTOR_OPERATORS)(requirement.operator, [...at, 'operator'], report);
    if (operator === undefined) return undefined;
    if (operator === 'In' || operator === 'NotIn') {
      if (values === undefined || (Array.isArray(values) && values.length === 0)) return (report([...at, 'values'], `operator ${operator} needs a non-empty values list`), undefined);
    } else if (values !== undefined && (!Array.isArray(values) || values.length > 0)) {
      return (report([...at, 'values'], `operator ${operator} must not have values`), undefined);
    }
    const list = values === undefined ? undefined : expectArray(values, [...at, 'values'], report);
    const checked = list && eachItem(list, [...at, 'values'], report, labelValue);
    return key === undefined ? undefined : { key, operator, ...(checked && { values: checked }) };
  });

const labelValue: Checker<string> = (value, path, report) => {
  const text = expectString(value, path, report);
  if (text !== undefined && !isLabelValue(text)) return (report(path, `label value "${text}" ${LABEL_VALUE_HINT}`), undefined);
  return text;
};
