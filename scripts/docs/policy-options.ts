/**
 * docs/reference/validating-policy-options.md, from the one option schema of
 * `@ValidatingPolicy`, as decorator-options.ts builds the `@Webhook` page:
 * runtime/options/policy-types.ts (each option's type and JSDoc),
 * policy-fields.ts (which options exist, their checks), policy-resolve.ts
 * (the checks between options and the defaults, read by resolving example
 * options) and the generator's template (the field of the
 * ValidatingAdmissionPolicy or its binding each option is written to). Every
 * example input below is refused by the code, and the page prints the
 * message the code gives; CEL examples are compiled by the generator's own
 * policy checker. An example that stops being refused stops the script.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { checkPolicyExpressions } from '../../packages/generator/src/policy/expressions.ts';
import { WEBHOOK_FIELDS } from '../../runtime/options/fields.ts';
import { VALIDATING_POLICY_FIELDS, VALIDATING_POLICY_OPTION_NAMES } from '../../runtime/options/policy-fields.ts';
import { resolveValidatingPolicyOptions } from '../../runtime/options/policy-resolve.ts';
import * as policyLists from '../../runtime/options/policy-types.ts';
import type { ResolvedValidatingPolicy, ValidatingPolicyOptions } from '../../runtime/options/policy-types.ts';
import * as optionLists from '../../runtime/options/types.ts';
import { formatProblemPath, type Problem } from '../../runtime/problems.ts';
import { aliasValues, referencedInterfaces, wrongType } from './decorator-options.ts';
import { code, generatedHeader, literal, paragraph, table } from './markdown.ts';
import { objectTemplateFields, type FieldMap } from './template-fields.ts';
import { readTypeDocs, type InterfaceDoc, type PropertyDoc, type TypeDocs } from './type-docs.ts';

const TYPES_FILE = 'runtime/options/policy-types.ts';
const TEMPLATE_FILE = 'packages/generator/templates/validating-admission-policies.yaml.hbs';
const WEBHOOK_PAGE = 'decorator-options.md';
const LISTS = { ...optionLists, ...policyLists };

/** The example policy: class WidgetPolicy on a custom resource, and one on a core resource, to show derived defaults. */
const CLASS_NAME = 'WidgetPolicy';
const BASE_RULE = { groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE', 'UPDATE'] };
const POLICY = { rules: [BASE_RULE], validations: [{ expression: 'object.spec.replicas <= 5' }] };
const CORE_POLICY = { ...POLICY, rules: [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }] };
const PARAMS = { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, paramRef: { name: 'widget-limits', parameterNotFoundAction: 'Deny' } };

interface Example {
  /** Replaces the option; `undefined` leaves it out. */
  readonly value: unknown;
  /** How to show it when the value itself is too long to print. */
  readonly label?: string;
}

/** Options that need another to be valid: their examples set it too. */
const ALONG: Partial<Record<keyof ValidatingPolicyOptions, Record<string, unknown>>> = { paramKind: { paramRef: PARAMS.paramRef }, paramRef: { paramKind: PARAMS.paramKind } };

/** Refused inputs per option, beyond the wrong-type input every option gets. */
const EXAMPLES: Partial<Record<keyof ValidatingPolicyOptions, readonly Example[]>> = {
  name: [{ value: 'Widget_Policy' }],
  excludeResourceRules: [{ value: [{ ...BASE_RULE, operations: ['PATCH'] }] }],
  matchPolicy: [{ value: 'exact' }],
  variables: [
    { value: [{ name: '1tier', expression: 'object.spec.tier' }] },
    { value: [{ name: 'in', expression: 'object.spec.tier' }] },
    {
      value: [
        { name: 'tier', expression: 'object.spec.tier' },
        { name: 'tier', expression: "'gold'" },
      ],
    },
    { value: [{ name: 'tier', expression: ' ' }] },
  ],
  validations: [
    { value: [{ message: 'replicas must be at most 5' }] },
    { value: [{ expression: 'true', reason: 'BadRequest' }] },
    { value: [{ expression: 'true', message: 'two\nlines' }] },
    { value: [{ expression: 'true', messages: 'typo' }] },
  ],
  auditAnnotations: [
    { value: Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, valueExpression: "'x'" })), label: '21 annotations' },
    {
      value: [
        { key: 'tier', valueExpression: "'a'" },
        { key: 'tier', valueExpression: "'b'" },
      ],
    },
    { value: [{ key: 'team/tier', valueExpression: "'a'" }] },
    { value: [{ key: 'tier', valueExpression: `'${'x'.repeat(5 * 1024)}'` }], label: 'a valueExpression of 5 KiB + 2 bytes' },
  ],
  failurePolicy: [{ value: 'fail' }],
  paramKind: [{ value: { apiVersion: 'v1', kind: 'configMap' } }, { value: { apiVersion: 'Example.com/v1', kind: 'Widget' } }],
  paramRef: [{ value: { name: 'limits', selector: {}, parameterNotFoundAction: 'Deny' } }, { value: { name: 'limits' } }],
  validationActions: [{ value: [] }, { value: ['Deny', 'Warn'] }, { value: ['Block'] }, { value: ['Warn', 'Warn'] }],
};

/** Option sets refused for how their options go together (policy-resolve.ts). */
const BETWEEN: readonly { readonly options: Record<string, unknown>; readonly label: string; readonly className?: string }[] = [
  { options: { rules: [BASE_RULE] }, label: 'neither validations nor auditAnnotations' },
  { options: { ...POLICY, paramRef: PARAMS.paramRef }, label: 'paramRef without paramKind' },
  { options: { ...POLICY, paramKind: PARAMS.paramKind }, label: 'paramKind without paramRef' },
  { options: POLICY, label: 'no `name`, on a class whose name is 250 × "A"', className: 'A'.repeat(250) },
];

/** The schema `object` is typed from in the CEL examples, as a CRD's openAPIV3Schema. */
const WIDGET_SCHEMA = {
  type: 'object',
  properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' }, tier: { type: 'string' } } } },
};

/** CEL the generator refuses in a policy: [option path, expression]; each site is compiled on the example policy. */
const CEL_EXAMPLES: readonly (readonly [string, string])[] = [
  ['validations[0].expression', 'object.spec.replicas <='],
  ['validations[0].expression', 'object.spec.replicas'],
  ['validations[0].expression', 'object.spec.replcas <= 5'],
  ['validations[0].expression', "object.spec.tier <= 'gold' && object.spec.tier > 1"],
  ['validations[0].messageExpression', "'replicas: ' + object.spec.replicas"],
  ['validations[0].messageExpression', "authorizer.group('').resource('pods').check('get').allowed() ? 'a' : 'b'"],
  ['variables[0].expression', 'variables.later'],
  ['auditAnnotations[0].valueExpression', 'object.spec.replicas'],
  ['matchConditions[0].expression', "duration('1x') > duration('1s')"],
];

function resolved(options: object, className = CLASS_NAME): ResolvedValidatingPolicy {
  const { policy, problems } = resolveValidatingPolicyOptions(options, className);
  if (!policy) throw new Error(`scripts/docs: the example policy options are refused: ${problems.map((p) => p.message).join('; ')}`);
  return policy;
}

function problemsOf(options: Record<string, unknown>, className = CLASS_NAME): Problem[] {
  return resolveValidatingPolicyOptions(options, className).problems;
}

function show(example: Example): string {
  return example.label ?? literal(example.value);
}

function optionExamples(option: keyof ValidatingPolicyOptions, type: string): string[][] {
  const examples: Example[] = [{ value: wrongType(type) }, ...(EXAMPLES[option] ?? [])];
  return examples.map((example) => {
    const problems = problemsOf({ ...POLICY, ...ALONG[option], [option]: example.value });
    if (problems.length === 0)
      throw new Error(`scripts/docs: the example ${show(example)} for @ValidatingPolicy option ${option} is no longer refused; change it in scripts/docs/policy-options.ts`);
    return [code(show(example)), problems.map((p) => p.message).join('; ')];
  });
}

function betweenExamples(): string[] {
  return BETWEEN.map(({ options, label, className }) => {
    const problems = problemsOf(options, className);
    if (problems.length === 0) throw new Error(`scripts/docs: the example "${label}" is no longer refused; change it in scripts/docs/policy-options.ts`);
    // A derived name hundreds of letters long is shown by its length.
    const compact = (message: string) => message.replace(/([aA])\1{19,}/g, (run) => `<${run.length} × "${run[0]!}">`);
    return `${label}: ${problems.map((p) => `${code(formatProblemPath(p.path))}: ${compact(p.message)}`).join('; ')}`;
  });
}

function celExamples(): string[][] {
  const resource = { name: 'widgets.example.com/v1', schema: WIDGET_SCHEMA };
  return CEL_EXAMPLES.map(([site, expression]) => {
    const options: Record<string, unknown> = { ...POLICY, validations: [{ expression: 'object.spec.replicas <= 5' }] };
    if (site.startsWith('validations[0].messageExpression')) options.validations = [{ expression: 'object.spec.replicas <= 5', messageExpression: expression }];
    else if (site.startsWith('validations')) options.validations = [{ expression }];
    else if (site.startsWith('variables'))
      options.variables = [
        { name: 'first', expression },
        { name: 'later', expression: '1' },
      ];
    else if (site.startsWith('auditAnnotations')) options.auditAnnotations = [{ key: 'replicas', valueExpression: expression }];
    else options.matchConditions = [{ name: 'example', expression }];
    const problems = checkPolicyExpressions(resolved(options), resource);
    if (problems.length === 0) throw new Error(`scripts/docs: the CEL example ${expression} (${site}) is no longer refused; change it in scripts/docs/policy-options.ts`);
    return [code(site), code(expression), problems.map((p) => p.message).join('; ')];
  });
}

/** A default as the reader needs it: required, derived from the class name and rules, or one value. */
function defaultOf(option: keyof ValidatingPolicyOptions): string {
  if ((VALIDATING_POLICY_FIELDS[option] as { required?: true }).required) return 'required';
  const [custom, core] = [resolved(POLICY), resolved(CORE_POLICY)];
  const value = (policy: ResolvedValidatingPolicy) => (policy as unknown as Record<string, unknown>)[option];
  const shown = (v: unknown) => (v === undefined ? 'not set' : code(literal(v)));
  if (literal(value(custom)) !== literal(value(core))) {
    const example = (input: typeof POLICY, policy: ResolvedValidatingPolicy) => `${shown(value(policy))} for class ${code(CLASS_NAME)} and groups ${code(literal(input.rules[0]!.groups))}`;
    return `derived: ${example(POLICY, custom)}; ${example(CORE_POLICY, core)}`;
  }
  // Options the examples set are shown by their default, resolved without them.
  const { [option]: _set, ...without } = POLICY as Record<string, unknown>;
  if (option in POLICY) return shown(value(resolved({ ...without, auditAnnotations: [{ key: 'k', valueExpression: "'v'" }] })));
  return shown(value(custom));
}

function writtenTo(option: string, fields: FieldMap, template: string): string {
  const found = fields.get(option);
  if (!found) throw new Error(`scripts/docs: @ValidatingPolicy option ${option} is written nowhere in ${TEMPLATE_FILE}; say where in scripts/docs/policy-options.ts`);
  const note =
    option === 'validationActions' && template.includes('$override.validationActions') && template.includes('$policies.validationActions')
      ? `, unless the chart values ${code('policies.overrides.<name>.validationActions')} or ${code('policies.validationActions')} replace it`
      : '';
  return `${found.map(code).join(', ')}${note}`;
}

/** The fields of an item type (`Validation`) with what each is written to (`validations.<field>` in the template). */
function itemTable(doc: InterfaceDoc, option: string | undefined, docs: TypeDocs, fields: FieldMap): string {
  return table(
    ['field', 'type', 'required', 'meaning', 'written to'],
    doc.properties.map((p: PropertyDoc) => {
      const values = aliasValues(p.type, docs, LISTS);
      const target = option === undefined ? undefined : fields.get(`${option}.${p.name}`);
      return [code(p.name), code(p.type), p.optional ? 'no' : 'yes', `${p.doc}${values ? ` One of ${values}.` : ''}`.trim() || '—', target ? target.map(code).join(', ') : '—'];
    }),
  );
}

export function policyOptionsPage(root: string): string {
  const docs = readTypeDocs(root, TYPES_FILE);
  const options = docs.interfaces.get('ValidatingPolicyOptions');
  if (!options) throw new Error(`scripts/docs: no interface ValidatingPolicyOptions in ${TYPES_FILE}`);
  const property = (name: string) => {
    const found = options.properties.find((p) => p.name === name);
    if (!found) throw new Error(`scripts/docs: option ${name} of runtime/options/policy-fields.ts is not in ValidatingPolicyOptions (${TYPES_FILE})`);
    return found;
  };
  const template = readFileSync(path.join(root, TEMPLATE_FILE), 'utf8');
  const fields = objectTemplateFields(path.join(root, TEMPLATE_FILE), VALIDATING_POLICY_OPTION_NAMES);
  const out: string[] = [
    generatedHeader('ValidatingPolicy options', [TYPES_FILE, 'runtime/options/policy-fields.ts', 'runtime/options/policy-resolve.ts', TEMPLATE_FILE]),
    '',
    paragraph(`${code('@ValidatingPolicy({...})')} on a class declares a ValidatingAdmissionPolicy, CEL that the API server evaluates
      itself, and its ValidatingAdmissionPolicyBinding, both named after the policy. The options are named as
      ${code('admissionregistration.k8s.io/v1')} names them; the match options share their checks with ${code('@Webhook')}
      ([${WEBHOOK_PAGE}](${WEBHOOK_PAGE})). Options left out take the defaults shown. ${code('shaper-gen manifests')} checks each
      decorator's argument, evaluated statically, and compiles every CEL expression, reporting problems as
      ${code('file:line:col: message')}; the decorator checks the options again when the class is defined, and throws, but
      compiles no CEL. The messages below are the code's, produced by running the checks on the example inputs shown, on a class
      ${code(CLASS_NAME)} with ${code(literal(POLICY))}. How to write, generate, install and test a policy:
      [guides/policies.md](../guides/policies.md).`),
    '',
    '## Summary',
    '',
    table(
      ['option', 'type', 'default', 'written to (ValidatingAdmissionPolicy / ValidatingAdmissionPolicyBinding)'],
      VALIDATING_POLICY_OPTION_NAMES.map((name) => [code(name), code(property(name).type), defaultOf(name), writtenTo(name, fields, template)]),
    ),
    '',
    `An option that is not in this list is refused: ${problemsOf({ ...POLICY, validation: [] })
      .map((p) => p.message)
      .join('; ')}`,
  ];
  for (const name of VALIDATING_POLICY_OPTION_NAMES) {
    const p = property(name);
    const values = aliasValues(p.type, docs, LISTS);
    out.push('', `## ${code(name)}`, '');
    if (p.doc) out.push(p.doc, '');
    out.push(`- Type: ${code(p.type)}${values ? `, one of ${values}` : ''}`);
    out.push(`- Default: ${defaultOf(name)}`);
    out.push(`- Written to: ${writtenTo(name, fields, template)}`);
    const sameCheck = (option: keyof typeof WEBHOOK_FIELDS) => WEBHOOK_FIELDS[option].check === VALIDATING_POLICY_FIELDS[name].check;
    const webhookOptions = Object.keys(WEBHOOK_FIELDS) as (keyof typeof WEBHOOK_FIELDS)[];
    const webhookOption = webhookOptions.find((option) => option === name && sameCheck(option)) ?? webhookOptions.find(sameCheck);
    if (webhookOption) {
      out.push(`- Checked by the same code as ${code('@Webhook')}'s ${code(webhookOption)}, with the same messages: [${WEBHOOK_PAGE}](${WEBHOOK_PAGE}#${webhookOption.toLowerCase()}).`);
      continue;
    }
    const along = ALONG[name]
      ? ` (with ${Object.keys(ALONG[name])
          .map((key) => `${code(key)}: ${code(literal(ALONG[name]![key]))}`)
          .join(', ')} set)`
      : '';
    out.push('', `Refused inputs${along} and the messages they get:`, '', table(['input', 'message'], optionExamples(name, p.type)));
  }
  out.push('', '## Checks between options', '', paragraph(`Refused by ${code('runtime/options/policy-resolve.ts')} after each option's own check:`), '');
  for (const line of betweenExamples()) out.push(`- ${line}`);
  out.push(
    '',
    '## CEL expressions',
    '',
    paragraph(`${code('shaper-gen manifests')} compiles every expression of a policy twice
      (${code('packages/generator/src/policy/expressions.ts')}). First as the API server compiles it when the policy is
      stored: ${code('object')}, ${code('oldObject')} and ${code('params')} are ${code('dyn')}, a validation must be of type
      ${code('bool')}, a ${code('messageExpression')} ${code('string')}, an audit annotation's ${code('valueExpression')}
      ${code('string')} or ${code('null')}, and each variable is typed by its expression and visible to the ones after it. Then,
      when every rule names the same one resource without wildcards and that resource is a custom resource whose
      CustomResourceDefinition is listed under ${code('crds')} in ${code('shaper.yaml')}, again with ${code('object')} and
      ${code('oldObject')} typed from the CRD's ${code('openAPIV3Schema')}, so that a misspelt field or a wrong type is an error
      at its column. The examples below are compiled on ${code(CLASS_NAME)} with ${code('object')} typed from
      ${code(literal(WIDGET_SCHEMA))}.`),
    '',
    table(['option', 'expression', 'message'], celExamples()),
  );
  const described = referencedInterfaces(
    VALIDATING_POLICY_OPTION_NAMES.map((name) => property(name).type),
    docs,
  );
  const own = described.filter((doc) => doc.file === TYPES_FILE);
  const shared = described.filter((doc) => doc.file !== TYPES_FILE);
  const optionOf = (doc: InterfaceDoc) => VALIDATING_POLICY_OPTION_NAMES.find((name) => docs.interfaces.get(property(name).type.replace(/\[\]$/, '')) === doc);
  out.push('', '## Types the options use', '', `${shared.map((doc) => code(doc.name)).join(', ')}: as for ${code('@Webhook')} ([${WEBHOOK_PAGE}](${WEBHOOK_PAGE}#types-the-options-use)).`);
  for (const doc of own) {
    out.push('', `### ${code(doc.name)}`, '', `Declared in ${code(doc.file)}.${doc.doc ? ` ${doc.doc}` : ''}`, '', itemTable(doc, optionOf(doc), docs, fields));
  }
  return `${out.join('\n')}\n`;
}
