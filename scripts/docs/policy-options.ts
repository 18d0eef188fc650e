/**
 * docs/reference/validating-policy-options.md and
 * mutating-policy-options.md, from the one option schema of
 * `@ValidatingPolicy` and `@MutatingPolicy`, as decorator-options.ts builds
 * the `@Webhook` page: runtime/policy/options/policy-types.ts and
 * mutating-policy-types.ts (each option's type and JSDoc), policy-fields.ts
 * and mutating-policy-fields.ts (which options exist, their checks),
 * policy-resolve.ts (the checks between options and the defaults, read by
 * resolving example options) and the generator's templates (the field of
 * the policy or its binding each option is written to). Every
 * example input below is refused by the code, and the page prints the
 * message the code gives; CEL examples are compiled by the generator's own
 * policy checker. An example that stops being refused stops the script.
 */
import path from 'node:path';
import { checkPolicyExpressions } from '../../generator/src/policy/expressions.ts';
import { WEBHOOK_FIELDS } from '../../runtime/webhook/options/fields.ts';
import { MUTATING_POLICY_FIELDS, MUTATING_POLICY_OPTION_NAMES } from '../../runtime/policy/options/mutating-policy-fields.ts';
import * as mutatingLists from '../../runtime/policy/options/mutating-policy-types.ts';
import { VALIDATING_POLICY_FIELDS, VALIDATING_POLICY_OPTION_NAMES } from '../../runtime/policy/options/policy-fields.ts';
import { resolveMutatingPolicyOptions, resolveValidatingPolicyOptions } from '../../runtime/policy/options/policy-resolve.ts';
import * as policyLists from '../../runtime/policy/options/policy-types.ts';
import * as optionLists from '../../runtime/webhook/options/types.ts';
import { formatProblemPath, type Problem } from '../../runtime/problems.ts';
import { aliasValues, referencedInterfaces, wrongType } from './decorator-options.ts';
import { code, generatedHeader, literal, paragraph, table } from './markdown.ts';
import { objectTemplateFields, templateText, type FieldMap } from './template-fields.ts';
import { readTypeDocs, type InterfaceDoc, type PropertyDoc, type TypeDocs } from './type-docs.ts';

const WEBHOOK_PAGE = 'decorator-options.md';
const WEBHOOK_TYPES_FILE = 'runtime/webhook/options/types.ts';
const LISTS = { ...optionLists, ...policyLists, ...mutatingLists };

/** The example policy: class WidgetPolicy on a custom resource, and one on a core resource, to show derived defaults. */
const CLASS_NAME = 'WidgetPolicy';
const BASE_RULE = { groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE', 'UPDATE'] };
const CORE_RULES = [{ groups: [''], versions: ['v1'], resources: ['configmaps'], operations: ['CREATE'] }];
const PARAMS = { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, paramRef: { name: 'widget-limits', parameterNotFoundAction: 'Deny' } };

interface Example {
  /** Replaces the option; `undefined` leaves it out. */
  readonly value: unknown;
  /** How to show it when the value itself is too long to print. */
  readonly label?: string;
}

/** Options that need another to be valid: their examples set it too. */
const ALONG: Readonly<Record<string, Record<string, unknown>>> = { paramKind: { paramRef: PARAMS.paramRef }, paramRef: { paramKind: PARAMS.paramKind } };

/** Refused inputs per option every policy has, beyond the wrong-type input every option gets. */
const SHARED_EXAMPLES: Readonly<Record<string, readonly Example[]>> = {
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
  failurePolicy: [{ value: 'fail' }],
  paramKind: [{ value: { apiVersion: 'v1', kind: 'configMap' } }, { value: { apiVersion: 'Example.com/v1', kind: 'Widget' } }],
  paramRef: [{ value: { name: 'limits', selector: {}, parameterNotFoundAction: 'Deny' } }, { value: { name: 'limits' } }],
};

const VALIDATING_EXAMPLES: Readonly<Record<string, readonly Example[]>> = {
  ...SHARED_EXAMPLES,
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
  validationActions: [{ value: [] }, { value: ['Deny', 'Warn'] }, { value: ['Block'] }, { value: ['Warn', 'Warn'] }],
};

/** The schema `object` is typed from in the CEL examples, as a CRD's openAPIV3Schema. */
const WIDGET_SCHEMA = {
  type: 'object',
  properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' }, tier: { type: 'string' } } } },
};

type Options = Record<string, unknown>;

/** What differs between the two pages: the decorator, its schema, its template, its examples. */
interface PolicyPage {
  /** `ValidatingPolicy`: the decorator's name, and the page's title. */
  readonly decorator: string;
  /** `ValidatingAdmissionPolicy`: the kind it declares (with its `…Binding`). */
  readonly kind: string;
  readonly typesFile: string;
  readonly fieldsFile: string;
  readonly optionsInterface: string;
  readonly templateFile: string;
  readonly fields: Readonly<Record<string, { readonly required?: true; readonly check: unknown }>>;
  readonly optionNames: readonly string[];
  readonly resolve: (options: unknown, className: string) => { policy?: object; problems: Problem[] };
  /** The example policy on WidgetPolicy; an option it sets is shown by its default without it, plus `restore`. */
  readonly policy: Options;
  readonly restore: Options;
  readonly examples: Readonly<Record<string, readonly Example[]>>;
  /** Option sets refused for how their options go together (policy-resolve.ts). */
  readonly between: readonly { readonly options: Options; readonly label: string; readonly className?: string }[];
  /** CEL the generator refuses: [option path, expression, the options that hold it]. */
  readonly cel: readonly (readonly [string, string, Options])[];
  readonly celIntro: string;
  readonly intro: string;
}

const VALIDATING_POLICY = { rules: [BASE_RULE], validations: [{ expression: 'object.spec.replicas <= 5' }] };
const MUTATING_POLICY = { rules: [BASE_RULE], mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: 'Object{spec: Object.spec{replicas: 3}}' } }] };
const sharedBetween = (policy: Options) => [
  { options: { ...policy, paramRef: PARAMS.paramRef }, label: 'paramRef without paramKind' },
  { options: { ...policy, paramKind: PARAMS.paramKind }, label: 'paramKind without paramRef' },
  { options: policy, label: 'no `name`, on a class whose name is 250 × "A"', className: 'A'.repeat(250) },
];
/** CEL in a matchCondition or a variable, refused in any policy. */
const sharedCel = (policy: Options): (readonly [string, string, Options])[] => [
  [
    'variables[0].expression',
    'variables.later',
    {
      ...policy,
      variables: [
        { name: 'first', expression: 'variables.later' },
        { name: 'later', expression: '1' },
      ],
    },
  ],
  ['matchConditions[0].expression', "duration('1x') > duration('1s')", { ...policy, matchConditions: [{ name: 'example', expression: "duration('1x') > duration('1s')" }] }],
];
const validation = (expression: string, messageExpression?: string) => ({ ...VALIDATING_POLICY, validations: [{ expression, ...(messageExpression && { messageExpression }) }] });
const mutation = (patchType: string, expression: string) => ({
  ...MUTATING_POLICY,
  mutations: [{ patchType, [patchType === 'JSONPatch' ? 'jsonPatch' : 'applyConfiguration']: { expression } }],
});

const VALIDATING_PAGE: PolicyPage = {
  decorator: 'ValidatingPolicy',
  kind: 'ValidatingAdmissionPolicy',
  typesFile: 'runtime/policy/options/policy-types.ts',
  fieldsFile: 'runtime/policy/options/policy-fields.ts',
  optionsInterface: 'ValidatingPolicyOptions',
  templateFile: 'templates/policy/validating-admission-policies.yaml.hbs',
  fields: VALIDATING_POLICY_FIELDS,
  optionNames: VALIDATING_POLICY_OPTION_NAMES,
  resolve: resolveValidatingPolicyOptions,
  policy: VALIDATING_POLICY,
  restore: { auditAnnotations: [{ key: 'k', valueExpression: "'v'" }] },
  examples: VALIDATING_EXAMPLES,
  between: [{ options: { rules: [BASE_RULE] }, label: 'neither validations nor auditAnnotations' }, ...sharedBetween(VALIDATING_POLICY)],
  cel: [
    ['validations[0].expression', 'object.spec.replicas <=', validation('object.spec.replicas <=')],
    ['validations[0].expression', 'object.spec.replicas', validation('object.spec.replicas')],
    ['validations[0].expression', 'object.spec.replcas <= 5', validation('object.spec.replcas <= 5')],
    ['validations[0].expression', "object.spec.tier <= 'gold' && object.spec.tier > 1", validation("object.spec.tier <= 'gold' && object.spec.tier > 1")],
    ['validations[0].messageExpression', "'replicas: ' + object.spec.replicas", validation('object.spec.replicas <= 5', "'replicas: ' + object.spec.replicas")],
    [
      'validations[0].messageExpression',
      "authorizer.group('').resource('pods').check('get').allowed() ? 'a' : 'b'",
      validation('object.spec.replicas <= 5', "authorizer.group('').resource('pods').check('get').allowed() ? 'a' : 'b'"),
    ],
    ...sharedCel(VALIDATING_POLICY).slice(0, 1),
    ['auditAnnotations[0].valueExpression', 'object.spec.replicas', { ...VALIDATING_POLICY, auditAnnotations: [{ key: 'replicas', valueExpression: 'object.spec.replicas' }] }],
    ...sharedCel(VALIDATING_POLICY).slice(1),
  ],
  celIntro: `a validation must be of type ${code('bool')}, a ${code('messageExpression')} ${code('string')}, an audit annotation's
    ${code('valueExpression')} ${code('string')} or ${code('null')}`,
  intro: `declares a ValidatingAdmissionPolicy, CEL that the API server evaluates itself, and its ValidatingAdmissionPolicyBinding`,
};

const MUTATING_PAGE: PolicyPage = {
  decorator: 'MutatingPolicy',
  kind: 'MutatingAdmissionPolicy',
  typesFile: 'runtime/policy/options/mutating-policy-types.ts',
  fieldsFile: 'runtime/policy/options/mutating-policy-fields.ts',
  optionsInterface: 'MutatingPolicyOptions',
  templateFile: 'templates/policy/mutating-admission-policies.yaml.hbs',
  fields: MUTATING_POLICY_FIELDS,
  optionNames: MUTATING_POLICY_OPTION_NAMES,
  resolve: resolveMutatingPolicyOptions,
  policy: MUTATING_POLICY,
  restore: {},
  examples: {
    ...SHARED_EXAMPLES,
    rules: [{ value: [{ ...BASE_RULE, operations: ['CREATE', 'DELETE'] }] }],
    mutations: [
      { value: [] },
      { value: [{ patchType: 'StrategicMerge' }] },
      { value: [{ patchType: 'JSONPatch', applyConfiguration: { expression: 'Object{}' } }] },
      { value: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression: ' ' } }] },
    ],
    reinvocationPolicy: [{ value: 'Always' }],
  },
  between: sharedBetween(MUTATING_POLICY),
  cel: [
    ['mutations[0].applyConfiguration.expression', 'object', mutation('ApplyConfiguration', 'object')],
    ['mutations[0].applyConfiguration.expression', 'Widget{spec: Widget.spec{replicas: 3}}', mutation('ApplyConfiguration', 'Widget{spec: Widget.spec{replicas: 3}}')],
    ['mutations[0].applyConfiguration.expression', 'Object{spec: Object.spec{replicaz: 3}}', mutation('ApplyConfiguration', 'Object{spec: Object.spec{replicaz: 3}}')],
    ['mutations[0].applyConfiguration.expression', "Object{spec: Object.spec{replicas: '3'}}", mutation('ApplyConfiguration', "Object{spec: Object.spec{replicas: '3'}}")],
    ['mutations[0].jsonPatch.expression', "JSONPatch{op: 'add', path: '/spec/replicas', value: 3}", mutation('JSONPatch', "JSONPatch{op: 'add', path: '/spec/replicas', value: 3}")],
    ['mutations[0].jsonPatch.expression', "[JSONPatch{op: 'add', pth: '/spec/replicas'}]", mutation('JSONPatch', "[JSONPatch{op: 'add', pth: '/spec/replicas'}]")],
    ...sharedCel(MUTATING_POLICY),
  ],
  celIntro: `an ${code('applyConfiguration.expression')} must be of type ${code('Object')} (built as ${code('Object{spec: Object.spec{…}}')}),
    a ${code('jsonPatch.expression')} of type ${code('list<JSONPatch>')} (${code("[JSONPatch{op: 'add', path: '/spec/x', value: 1}]")}; ${code('jsonpatch.escapeKey()')}
    escapes a key for a path), and a message construction names ${code('Object')}, a path of ${code('Object')}'s fields or ${code('JSONPatch')}`,
  intro: `declares a MutatingAdmissionPolicy, CEL changes that the API server makes itself, and its MutatingAdmissionPolicyBinding`,
};

function resolved(page: PolicyPage, options: object, className = CLASS_NAME): Record<string, unknown> {
  const { policy, problems } = page.resolve(options, className);
  if (!policy) throw new Error(`scripts/docs: the example policy options are refused: ${problems.map((p) => p.message).join('; ')}`);
  return policy as Record<string, unknown>;
}

function show(example: Example): string {
  return example.label ?? literal(example.value);
}

function optionExamples(page: PolicyPage, option: string, type: string): string[][] {
  const examples: Example[] = [{ value: wrongType(type) }, ...(page.examples[option] ?? [])];
  return examples.map((example) => {
    const problems = page.resolve({ ...page.policy, ...ALONG[option], [option]: example.value }, CLASS_NAME).problems;
    if (problems.length === 0)
      throw new Error(`scripts/docs: the example ${show(example)} for @${page.decorator} option ${option} is no longer refused; change it in scripts/docs/policy-options.ts`);
    return [code(show(example)), problems.map((p) => p.message).join('; ')];
  });
}

function betweenExamples(page: PolicyPage): string[] {
  return page.between.map(({ options, label, className }) => {
    const problems = page.resolve(options, className ?? CLASS_NAME).problems;
    if (problems.length === 0) throw new Error(`scripts/docs: the example "${label}" is no longer refused; change it in scripts/docs/policy-options.ts`);
    // A derived name hundreds of letters long is shown by its length.
    const compact = (message: string) => message.replace(/([aA])\1{19,}/g, (run) => `<${run.length} × "${run[0]!}">`);
    return `${label}: ${problems.map((p) => `${code(formatProblemPath(p.path))}: ${compact(p.message)}`).join('; ')}`;
  });
}

function celExamples(page: PolicyPage): string[][] {
  const resource = { name: 'widgets.example.com/v1', schema: WIDGET_SCHEMA };
  return page.cel.map(([site, expression, options]) => {
    const problems = checkPolicyExpressions(resolved(page, options) as never, resource);
    if (problems.length === 0) throw new Error(`scripts/docs: the CEL example ${expression} (${site}) is no longer refused; change it in scripts/docs/policy-options.ts`);
    return [code(site), code(expression), problems.map((p) => p.message).join('; ')];
  });
}

/** A default as the reader needs it: required, derived from the class name and rules, or one value. */
function defaultOf(page: PolicyPage, option: string): string {
  if (page.fields[option]!.required) return 'required';
  const [custom, core] = [resolved(page, page.policy), resolved(page, { ...page.policy, rules: CORE_RULES })];
  const shown = (v: unknown) => (v === undefined ? 'not set' : code(literal(v)));
  if (literal(custom[option]) !== literal(core[option])) {
    const example = (groups: unknown, policy: Record<string, unknown>) => `${shown(policy[option])} for class ${code(CLASS_NAME)} and groups ${code(literal(groups))}`;
    return `derived: ${example(BASE_RULE.groups, custom)}; ${example(CORE_RULES[0]!.groups, core)}`;
  }
  // Options the examples set are shown by their default, resolved without them.
  const { [option]: _set, ...without } = page.policy;
  if (option in page.policy) return shown(resolved(page, { ...without, ...page.restore })[option]);
  return shown(custom[option]);
}

function writtenTo(page: PolicyPage, option: string, fields: FieldMap, template: string): string {
  const found = fields.get(option);
  if (!found) throw new Error(`scripts/docs: @${page.decorator} option ${option} is written nowhere in ${page.templateFile}; say where in scripts/docs/policy-options.ts`);
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

function optionSection(page: PolicyPage, name: string, property: PropertyDoc, context: { docs: TypeDocs; fields: FieldMap; template: string }): string[] {
  const values = aliasValues(property.type, context.docs, LISTS);
  const out = ['', `## ${code(name)}`, ''];
  if (property.doc) out.push(property.doc, '');
  out.push(`- Type: ${code(property.type)}${values ? `, one of ${values}` : ''}`);
  out.push(`- Default: ${defaultOf(page, name)}`);
  out.push(`- Written to: ${writtenTo(page, name, context.fields, context.template)}`);
  const sameCheck = (option: keyof typeof WEBHOOK_FIELDS) => WEBHOOK_FIELDS[option].check === page.fields[name]!.check;
  const webhookOptions = Object.keys(WEBHOOK_FIELDS) as (keyof typeof WEBHOOK_FIELDS)[];
  const webhookOption = webhookOptions.find((option) => option === name && sameCheck(option)) ?? webhookOptions.find(sameCheck);
  if (webhookOption) {
    out.push(`- Checked by the same code as ${code('@Webhook')}'s ${code(webhookOption)}, with the same messages: [${WEBHOOK_PAGE}](${WEBHOOK_PAGE}#${webhookOption.toLowerCase()}).`);
    return out;
  }
  const along = ALONG[name]
    ? ` (with ${Object.keys(ALONG[name])
        .map((key) => `${code(key)}: ${code(literal(ALONG[name]![key]))}`)
        .join(', ')} set)`
    : '';
  out.push('', `Refused inputs${along} and the messages they get:`, '', table(['input', 'message'], optionExamples(page, name, property.type)));
  return out;
}

function policyPage(page: PolicyPage, root: string): string {
  const docs = readTypeDocs(root, page.typesFile);
  const options = docs.interfaces.get(page.optionsInterface);
  if (!options) throw new Error(`scripts/docs: no interface ${page.optionsInterface} in ${page.typesFile}`);
  const property = (name: string) => {
    const found = options.properties.find((p) => p.name === name);
    if (!found) throw new Error(`scripts/docs: option ${name} of ${page.fieldsFile} is not in ${page.optionsInterface} (${page.typesFile})`);
    return found;
  };
  const template = templateText(path.join(root, page.templateFile));
  const fields = objectTemplateFields(path.join(root, page.templateFile), page.optionNames);
  const out: string[] = [
    generatedHeader(`${page.decorator} options`, [page.typesFile, page.fieldsFile, 'runtime/policy/options/policy-resolve.ts', page.templateFile]),
    '',
    paragraph(`${code(`@${page.decorator}({...})`)} on a class ${page.intro}, both named after the policy. The options are named as
      ${code('admissionregistration.k8s.io/v1')} names them; the match options share their checks with ${code('@Webhook')}
      ([${WEBHOOK_PAGE}](${WEBHOOK_PAGE})). Options left out take the defaults shown. ${code('shaper-gen manifests')} checks each
      decorator's argument, evaluated statically, and compiles every CEL expression, reporting problems as
      ${code('file:line:col: message')}; the decorator checks the options again when the class is defined, and throws, but
      compiles no CEL. The messages below are the code's, produced by running the checks on the example inputs shown, on a class
      ${code(CLASS_NAME)} with ${code(literal(page.policy))}. How to write, generate, install and test a policy:
      [guides/policies.md](../guides/policies.md).`),
    '',
    '## Summary',
    '',
    table(
      ['option', 'type', 'default', `written to (${page.kind} / ${page.kind}Binding)`],
      page.optionNames.map((name) => [code(name), code(property(name).type), defaultOf(page, name), writtenTo(page, name, fields, template)]),
    ),
    '',
    `An option that is not in this list is refused: ${page
      .resolve({ ...page.policy, validation: [] }, CLASS_NAME)
      .problems.map((p) => p.message)
      .join('; ')}`,
  ];
  for (const name of page.optionNames) out.push(...optionSection(page, name, property(name), { docs, fields, template }));
  out.push('', '## Checks between options', '', paragraph(`Refused by ${code('runtime/policy/options/policy-resolve.ts')} after each option's own check:`), '');
  for (const line of betweenExamples(page)) out.push(`- ${line}`);
  out.push(
    '',
    '## CEL expressions',
    '',
    paragraph(`${code('shaper-gen manifests')} compiles every expression of a policy twice
      (${code('generator/src/policy/expressions.ts')}). First as the API server compiles it when the policy is
      stored: ${code('object')}, ${code('oldObject')} and ${code('params')} are ${code('dyn')}, ${page.celIntro}, and each variable is
      typed by its expression and visible to the ones after it. Then, when every rule names the same one resource without
      wildcards and that resource is a custom resource whose CustomResourceDefinition is generated from the project's types or
      listed under ${code('crds')} or ${code('types')} in ${code('shaper.yaml')}, again with ${code('object')} and ${code('oldObject')} typed from the
      CRD's ${code('openAPIV3Schema')}, so that a misspelt field or a wrong type is an error at its column. The examples below are
      compiled on ${code(CLASS_NAME)} with ${code('object')} typed from ${code(literal(WIDGET_SCHEMA))}.`),
    '',
    table(['option', 'expression', 'message'], celExamples(page)),
  );
  const described = referencedInterfaces(
    page.optionNames.map((name) => property(name).type),
    docs,
  );
  const own = described.filter((doc) => doc.file !== WEBHOOK_TYPES_FILE);
  const shared = described.filter((doc) => doc.file === WEBHOOK_TYPES_FILE);
  const optionOf = (doc: InterfaceDoc) => page.optionNames.find((name) => docs.interfaces.get(property(name).type.replace(/\[\]$/, '')) === doc);
  out.push('', '## Types the options use', '', `${shared.map((doc) => code(doc.name)).join(', ')}: as for ${code('@Webhook')} ([${WEBHOOK_PAGE}](${WEBHOOK_PAGE}#types-the-options-use)).`);
  for (const doc of own) {
    out.push('', `### ${code(doc.name)}`, '', `Declared in ${code(doc.file)}.${doc.doc ? ` ${doc.doc}` : ''}`, '', itemTable(doc, optionOf(doc), docs, fields));
  }
  return `${out.join('\n')}\n`;
}

export function policyOptionsPage(root: string): string {
  return policyPage(VALIDATING_PAGE, root);
}

export function mutatingPolicyOptionsPage(root: string): string {
  return policyPage(MUTATING_PAGE, root);
}
