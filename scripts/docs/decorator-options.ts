/**
 * docs/reference/decorator-options.md, from the one option schema:
 * runtime/webhook/options/types.ts (each option's type and JSDoc), fields.ts (which
 * options exist, which are required, their checks), resolve.ts (the
 * defaults, read by resolving example options) and the generator's template
 * (the webhook configuration field each option is written to). The checks
 * are shown by running them: each example input below is refused, and the
 * page prints the message the code gives for it, so the wording is always
 * the code's. An example that stops being refused stops the script.
 */
import path from 'node:path';
import { checkMatchConditions } from '../../generator/src/cel/match-conditions.ts';
import { CONFIGURATION_KINDS } from '../../generator/src/webhook/model.ts';
import { handlerShapeProblem } from '../../runtime/webhook/contract.ts';
import { SERVER_ONLY_OPTION_NAMES, WEBHOOK_FIELDS, WEBHOOK_OPTION_NAMES } from '../../runtime/webhook/options/fields.ts';
import { resolveWebhookOptions } from '../../runtime/webhook/options/resolve.ts';
import * as optionLists from '../../runtime/webhook/options/types.ts';
import type { ResolvedWebhook, WebhookOptions } from '../../runtime/webhook/options/types.ts';
import { checkWebhookSet } from '../../runtime/webhook/options/webhook-set.ts';
import { formatProblemPath, type Problem } from '../../runtime/problems.ts';
import { code, generatedHeader, literal, paragraph, table } from './markdown.ts';
import { webhookTemplateFields } from './template-fields.ts';
import { readTypeDocs, typeNames, type InterfaceDoc, type PropertyDoc, type TypeDocs } from './type-docs.ts';

const TYPES_FILE = 'runtime/webhook/options/types.ts';
const TEMPLATE_FILE = 'templates/webhook/webhook-configurations.yaml.hbs';

/** Example inputs: a validating webhook, and one for a core resource, to show derived defaults. */
const BASE_RULE = { groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE', 'UPDATE'] };
const VALIDATING = { path: '/validate-widget', mutating: false, rules: [BASE_RULE] };
const VALIDATING_CORE = { path: '/validate-pod', mutating: false, rules: [{ groups: [''], versions: ['v1'], resources: ['pods'], operations: ['CREATE'] }] };
const MUTATING = { path: '/mutate-widget', mutating: true, rules: [BASE_RULE] };

interface Example {
  /** Replaces the option (or, for rule examples, the rule field); `undefined` leaves it out. */
  readonly value: unknown;
  /** How to show it when the value itself is too long to print. */
  readonly label?: string;
  /** Start from the mutating example instead of the validating one. */
  readonly mutating?: boolean;
  /** Options to set besides (e.g. `mutating: false` with a `/mutate-` path). */
  readonly with?: Record<string, unknown>;
}

/** Refused inputs per option, beyond the wrong-type input every option gets. */
const EXAMPLES: Partial<Record<keyof WebhookOptions, readonly Example[]>> = {
  path: [{ value: '/check-widget' }, { value: '/validate-Widget' }, { value: '/validate-widget/' }, { value: '/validate-a//b' }, { value: '/mutate-widget', with: { mutating: false } }],
  name: [{ value: 'widget' }, { value: 'Validate.Widget.io' }],
  configuration: [{ value: 'team_a' }, { value: 'x'.repeat(41), label: '41 × "x"' }],
  rules: [{ value: [] }, { value: [{ ...BASE_RULE, verbs: ['get'] }] }],
  failurePolicy: [{ value: 'fail' }],
  sideEffects: [{ value: 'Some' }, { value: 'Unknown' }],
  timeoutSeconds: [{ value: 0 }, { value: 31 }, { value: 2.5 }],
  matchPolicy: [{ value: 'exact' }],
  reinvocationPolicy: [{ value: 'IfNeeded' }, { value: 'Always', mutating: true }],
  admissionReviewVersions: [{ value: [] }, { value: ['v2'] }, { value: ['v1', 'v1'] }],
  namespaceSelector: [
    { value: { matchExpressions: [{ key: 'team', operator: 'In' }] } },
    { value: { matchExpressions: [{ key: 'team', operator: 'Exists', values: ['a'] }] } },
    { value: { matchLabels: { 'team name': 'a' } } },
    { value: { matchLabels: { team: 'a b' } } },
    { value: { matchLabel: { team: 'a' } } },
  ],
  matchConditions: [
    { value: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })), label: '65 conditions' },
    {
      value: [
        { name: 'is-pod', expression: 'true' },
        { name: 'is-pod', expression: 'true' },
      ],
    },
    { value: [{ name: 'bad name!', expression: 'true' }] },
    { value: [{ name: 'empty', expression: ' ' }] },
  ],
  rbac: [{ value: [{ groups: [''], resources: ['configmaps'] }] }, { value: [{ groups: [''], resources: ['configmaps'], verbs: ['GET'] }] }],
  cache: [
    { value: [{ group: '*', version: 'v1', resource: 'configmaps' }] },
    { value: [{ group: '', version: 'v1', resource: 'pods/status' }] },
    { value: [{ group: '', version: '*', resource: 'pods' }] },
  ],
};

/** Refused rule fields, beyond leaving each out. */
const RULE_EXAMPLES: Record<string, readonly Example[]> = {
  groups: [{ value: [] }, { value: ['Example.com'] }, { value: ['*', 'apps'] }],
  versions: [{ value: ['V1'] }],
  resources: [{ value: ['Widgets'] }, { value: ['*/*', 'pods'] }, { value: ['pods/*', 'pods/log'] }],
  operations: [{ value: ['PATCH'] }],
  scope: [{ value: 'Namespace' }],
};

/** CEL that the API server would refuse to store, compiled by the generator (generator/src/cel/match-conditions.ts). */
const CEL_EXAMPLES = ['object.metadata.name', 'object.spec.replicas >', "duration('1x') > duration('1s')", 'object.metadata.labels.exists(k, k.size())'];

/** The wrong-type input for a declared type. */
export function wrongType(type: string): unknown {
  if (type === 'boolean') return 'yes';
  if (type === 'number') return '10';
  if (type.endsWith('[]')) return 'x';
  return 42;
}

function problemsOf(options: Record<string, unknown>): Problem[] {
  return resolveWebhookOptions(options).problems;
}

function resolved(options: object): ResolvedWebhook {
  const { webhook, problems } = resolveWebhookOptions(options);
  if (!webhook) throw new Error(`scripts/docs: the example options are refused: ${problems.map((p) => p.message).join('; ')}`);
  return webhook;
}

function show(example: Example): string {
  return example.label ?? literal(example.value);
}

/** Runs the examples of one option; each must be refused. */
function optionExamples(option: keyof WebhookOptions, type: string): string[][] {
  const examples: Example[] = [{ value: wrongType(type), mutating: true }, ...(EXAMPLES[option] ?? [])];
  return examples.map((example) => {
    const base = example.mutating ? MUTATING : VALIDATING;
    const problems = problemsOf({ ...base, ...example.with, [option]: example.value });
    if (problems.length === 0) throw new Error(`scripts/docs: the example ${show(example)} for option ${option} is no longer refused; change it in scripts/docs/decorator-options.ts`);
    const input = example.with
      ? `${show(example)} with ${Object.entries(example.with)
          .map(([k, v]) => `${k}: ${literal(v)}`)
          .join(', ')}`
      : show(example);
    return [code(input), problems.map((p) => p.message).join('; ')];
  });
}

function ruleExamples(field: PropertyDoc): string[][] {
  const examples: Example[] = [...(field.optional ? [] : [{ value: undefined }]), ...(RULE_EXAMPLES[field.name] ?? [])];
  return examples.map((example) => {
    const rule: Record<string, unknown> =
      example.value === undefined ? Object.fromEntries(Object.entries(BASE_RULE).filter(([key]) => key !== field.name)) : { ...BASE_RULE, [field.name]: example.value };
    const problems = problemsOf({ ...VALIDATING, rules: [rule] });
    if (problems.length === 0) throw new Error(`scripts/docs: the rule example ${show(example)} for ${field.name} is no longer refused; change it in scripts/docs/decorator-options.ts`);
    return [example.value === undefined ? '(left out)' : code(show(example)), problems.map((p) => `${formatProblemPath(p.path)}: ${p.message}`).join('; ')];
  });
}

function celExamples(): string[][] {
  return CEL_EXAMPLES.map((expression) => {
    const problems = checkMatchConditions([{ name: 'example', expression }]);
    if (problems.length === 0) throw new Error(`scripts/docs: the CEL example ${expression} is no longer refused; change it in scripts/docs/decorator-options.ts`);
    return [code(expression), problems.map((p) => p.message).join('; ')];
  });
}

/** A default as the reader needs it: required, derived from other options, per kind of webhook, or one value. */
function defaultOf(option: keyof WebhookOptions, required: boolean): string {
  if (required) return 'required';
  const [validating, core, mutating] = [resolved(VALIDATING), resolved(VALIDATING_CORE), resolved(MUTATING)];
  const value = (webhook: ResolvedWebhook) => (webhook as unknown as Record<string, unknown>)[option];
  const shown = (v: unknown) => (v === undefined ? 'not set' : code(literal(v)));
  if (literal(value(validating)) !== literal(value(core))) {
    const example = (input: typeof VALIDATING, webhook: ResolvedWebhook) => `${shown(value(webhook))} for path ${code(input.path)} and groups ${code(literal(input.rules[0]!.groups))}`;
    return `derived: ${example(VALIDATING, validating)}; ${example(VALIDATING_CORE, core)}`;
  }
  if (literal(value(validating)) !== literal(value(mutating))) return `${shown(value(mutating))} (mutating); ${shown(value(validating))} (validating)`;
  return shown(value(validating));
}

/** The values of a list-derived alias type, e.g. Scope → "Cluster", "Namespaced", "*"; `lists` holds the lists by name. */
export function aliasValues(type: string, docs: TypeDocs, lists: object = optionLists): string | undefined {
  const found = typeNames(type)
    .map((name) => docs.listAliases.get(name))
    .filter((list): list is string => list !== undefined)
    .map((list) => (lists as Record<string, readonly string[] | undefined>)[list])
    .filter((values): values is readonly string[] => values !== undefined);
  if (found.length === 0) return undefined;
  return found.flatMap((values) => values.map((value) => code(value))).join(', ');
}

/** Interfaces an option's type refers to, and the ones they refer to, in order of first mention. */
export function referencedInterfaces(types: readonly string[], docs: TypeDocs): InterfaceDoc[] {
  const found: InterfaceDoc[] = [];
  const visit = (type: string) => {
    for (const name of typeNames(type)) {
      const doc = docs.interfaces.get(name);
      if (!doc || found.includes(doc)) continue;
      found.push(doc);
      for (const property of doc.properties) visit(property.type);
    }
  };
  types.forEach(visit);
  return found;
}

function fieldsOf(option: string, fields: Map<string, string[]>): string {
  const found = fields.get(option);
  if (found) return found.map(code).join(', ');
  if (option === 'mutating') {
    return `the configuration's ${code('kind')}: ${CONFIGURATION_KINDS.map((k) => `${code(k.kind)} when ${k.mutating} (${code(`templates/${k.fileName}`)})`).join(', ')}`;
  }
  if (option === 'configuration') return `the configuration's ${code('metadata.name')}, ${code('<chart fullname>-<configuration>')}`;
  if ((SERVER_ONLY_OPTION_NAMES as readonly string[]).includes(option))
    return "none: read by the server and by the chart's RBAC (`templates/_rbac-rules.tpl`), never written into a webhook configuration";
  throw new Error(`scripts/docs: option ${option} is written nowhere the script knows: not in ${TEMPLATE_FILE}, and not a server-only option; say where in scripts/docs/decorator-options.ts`);
}

function propertyTable(doc: InterfaceDoc, docs: TypeDocs, defaults: Record<string, unknown> = {}): string {
  return table(
    ['field', 'type', 'required', 'meaning'],
    doc.properties.map((p: PropertyDoc) => {
      const values = aliasValues(p.type, docs);
      const fallback = p.name in defaults ? ` Default: ${code(literal(defaults[p.name]))}.` : '';
      return [code(p.name), code(p.type), p.optional ? 'no' : 'yes', `${p.doc}${values ? ` One of ${values}.` : ''}${fallback}`.trim() || '—'];
    }),
  );
}

export function decoratorOptionsPage(root: string): string {
  const docs = readTypeDocs(root, TYPES_FILE);
  const options = docs.interfaces.get('WebhookOptions');
  if (!options) throw new Error(`scripts/docs: no interface WebhookOptions in ${TYPES_FILE}`);
  const property = (name: string) => {
    const found = options.properties.find((p) => p.name === name);
    if (!found) throw new Error(`scripts/docs: option ${name} of runtime/webhook/options/fields.ts is not in WebhookOptions (${TYPES_FILE})`);
    return found;
  };
  const fields = webhookTemplateFields(path.join(root, TEMPLATE_FILE), WEBHOOK_OPTION_NAMES);
  const required = (name: keyof WebhookOptions) => (WEBHOOK_FIELDS[name] as { required?: true }).required === true;
  const out: string[] = [
    generatedHeader('Decorator options', [TYPES_FILE, 'runtime/webhook/options/fields.ts', 'runtime/webhook/options/resolve.ts', TEMPLATE_FILE]),
    '',
    paragraph(`${code('@Webhook({...})')} takes the options below; options left out take the defaults shown. The one definition is ${code('runtime/webhook/options/')}:
      ${code('shaper-gen manifests')} applies it to each decorator's argument, evaluated statically, and reports problems as
      ${code('file:line:col: message')}; the decorator applies it again when the class is defined, and throws. The messages
      below are the code's, produced by running the checks on the example inputs shown.`),
    '',
    '## Summary',
    '',
    table(
      ['option', 'type', 'default', 'written to (ValidatingWebhookConfiguration / MutatingWebhookConfiguration)'],
      WEBHOOK_OPTION_NAMES.map((name) => [code(name), code(property(name).type), defaultOf(name, required(name)), fieldsOf(name, fields)]),
    ),
    '',
    `An option that is not in this list is refused: ${problemsOf({ ...VALIDATING, timeout: 5 })
      .map((p) => p.message)
      .join('; ')}`,
  ];
  const checkers = new Map<unknown, string>();
  for (const name of WEBHOOK_OPTION_NAMES) {
    const p = property(name);
    const values = aliasValues(p.type, docs);
    out.push('', `## ${code(name)}`, '');
    if (p.doc) out.push(p.doc, '');
    out.push(`- Type: ${code(p.type)}${values ? `, one of ${values}` : ''}`);
    out.push(`- Default: ${defaultOf(name, required(name))}`);
    out.push(`- Written to: ${fieldsOf(name, fields)}`);
    const checker = WEBHOOK_FIELDS[name].check;
    const same = checkers.get(checker);
    checkers.set(checker, checkers.get(checker) ?? name);
    if (same) {
      out.push(`- Checked by the same code as ${code(same)}, with the same messages.`);
      continue;
    }
    out.push('', 'Refused inputs and the messages they get:', '', table(['input', 'message'], optionExamples(name, p.type)));
    if (name === 'rules') {
      const rule = docs.interfaces.get('RuleOptions')!;
      const defaults = resolved({ ...VALIDATING }).rules[0] as unknown as Record<string, unknown>;
      const ruleDefaults = Object.fromEntries(rule.properties.filter((f) => !(f.name in BASE_RULE)).map((f) => [f.name, defaults[f.name]]));
      out.push('', `Each rule (${code('RuleOptions')}):`, '', propertyTable(rule, docs, ruleDefaults));
      out.push(
        '',
        'Refused rule fields (example rule: ' + code(literal(BASE_RULE)) + '):',
        '',
        table(
          ['field', 'input', 'message'],
          rule.properties.flatMap((f) => ruleExamples(f).map((row) => [code(f.name), ...row])),
        ),
      );
    }
    if (name === 'matchConditions') {
      out.push(
        '',
        paragraph(`${code('shaper-gen manifests')} also compiles each ${code('expression')} as the API server does before it stores the
        configuration (${code('generator/src/cel/match-conditions.ts')}): CEL with the API server's variables and function libraries, and a
        ${code('bool')} result. The decorator at run time does not compile CEL.`),
        '',
        table(['expression', 'message'], celExamples()),
      );
    }
  }
  const described = referencedInterfaces(
    WEBHOOK_OPTION_NAMES.map((name) => property(name).type),
    docs,
  ).filter((doc) => doc.name !== 'RuleOptions');
  out.push('', '## Types the options use');
  for (const doc of described) {
    out.push('', `### ${code(doc.name)}`, '', `Declared in ${code(doc.file)}.${doc.doc ? ` ${doc.doc}` : ''}`, '', propertyTable(doc, docs));
  }
  out.push(
    '',
    '## Checks across webhooks',
    '',
    paragraph(`${code('manifests')} checks the webhooks of a project together, and ${code('serve')} checks the classes it
    registers the same way (${code('runtime/webhook/options/webhook-set.ts')}):`),
    '',
  );
  for (const message of setExamples()) out.push(`- ${message}`);
  out.push(
    '',
    '## Checks on the class',
    '',
    paragraph(`The decorated class must implement the methods its kind of webhook is called with
    (${code('runtime/webhook/contract.ts')}); ${code('manifests')} checks the class's own members, the decorator the prototype:`),
    '',
  );
  out.push(`- ${handlerShapeProblem('WidgetDefaulter', true, () => false)}`, `- ${handlerShapeProblem('WidgetValidator', false, () => false)}`);
  return `${out.join('\n')}\n`;
}

/** The messages of the set checks, from pairs of webhooks that clash. */
function setExamples(): string[] {
  const pair = (a: object, b: object) => {
    const found = checkWebhookSet([resolved(a), resolved(b)]);
    if (found.length === 0) throw new Error('scripts/docs: a webhook-set example is no longer refused; change it in scripts/docs/decorator-options.ts');
    return found.map(({ problem }) => problem.message);
  };
  return [
    ...pair(VALIDATING, VALIDATING),
    ...pair({ ...VALIDATING, name: 'widgets.example.com' }, { ...VALIDATING, path: '/validate-gadget', name: 'widgets.example.com' }),
    ...pair({ ...VALIDATING, path: '/validate-a/b' }, { ...VALIDATING, path: '/validate-a-b' }),
  ];
}
