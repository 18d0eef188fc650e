/**
 * The one definition of what `@Webhook({...})` accepts: the option types users
 * write, the Kubernetes defaults, and every rule an option must satisfy.
 *
 * The generator applies it to decorator arguments it evaluates statically (and
 * maps each problem's option path back to a source location); the runtime
 * applies it when a class is decorated. Nothing else lists the options.
 */
import { didYouMean } from './did-you-mean.js';
import { checkCacheOption, type CachedResource } from './cache/cached-resource.js';
import { checkRbacRules, type RbacRule } from './rbac-options.js';

export const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'] as const;
export const SCOPES = ['Cluster', 'Namespaced', '*'] as const;
export const FAILURE_POLICIES = ['Fail', 'Ignore'] as const;
export const SIDE_EFFECTS = ['None', 'NoneOnDryRun'] as const;
export const MATCH_POLICIES = ['Exact', 'Equivalent'] as const;
export const REINVOCATION_POLICIES = ['Never', 'IfNeeded'] as const;
export const ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
export const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

export type Operation = (typeof OPERATIONS)[number];
export type Scope = (typeof SCOPES)[number];
export type FailurePolicy = (typeof FAILURE_POLICIES)[number];
export type SideEffects = (typeof SIDE_EFFECTS)[number];
export type MatchPolicy = (typeof MATCH_POLICIES)[number];
export type ReinvocationPolicy = (typeof REINVOCATION_POLICIES)[number];
export type AdmissionReviewVersion = (typeof ADMISSION_REVIEW_VERSIONS)[number];
export type SelectorOperator = (typeof SELECTOR_OPERATORS)[number];

/** One entry of the webhook's `rules`: which requests the API server sends it. */
export interface RuleOptions {
  /** API groups; `''` is the core group, `'*'` all groups. */
  readonly groups: readonly string[];
  /** API versions, or `'*'`. */
  readonly versions: readonly string[];
  /** Resources (plural), optionally with a subresource: `'profiles'`, `'profiles/status'`, or `'*'` for all. */
  readonly resources: readonly string[];
  /** Operations: CREATE, UPDATE, DELETE, CONNECT or `'*'`. */
  readonly operations: readonly Operation[];
  /** Cluster, Namespaced or `'*'` (the default). */
  readonly scope?: Scope;
}

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values?: readonly string[];
}

export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

/** A CEL precondition evaluated by the API server before it calls the webhook. */
export interface MatchCondition {
  readonly name: string;
  readonly expression: string;
}

/** What `@Webhook({...})` accepts. Omitted options take the Kubernetes defaults. */
export interface WebhookOptions {
  /** HTTP path the server serves the webhook at: `/mutate-…` or `/validate-…`. */
  readonly path: string;
  /** True for a defaulter (MutatingWebhookConfiguration), false for a validator. */
  readonly mutating: boolean;
  /** Webhook name, a DNS subdomain of at least three segments. Default: `<path without '/'>.<first rule group with a dot, else shaper-gen.io>`. */
  readonly name?: string;
  /**
   * The configuration object this webhook belongs to, as a DNS label: rendered as
   * `<chart fullname>-<configuration>`. Default: the chart's one Validating or
   * Mutating configuration, named `<chart fullname>`.
   */
  readonly configuration?: string;
  /** Which requests the API server sends to this webhook (at least one rule). */
  readonly rules: readonly RuleOptions[];
  /** What the API server does when the call fails: Fail (default) or Ignore. */
  readonly failurePolicy?: FailurePolicy;
  /** None (default) or NoneOnDryRun. Some/Unknown are not allowed in admissionregistration/v1. */
  readonly sideEffects?: SideEffects;
  /** 1..30 seconds, default 10. */
  readonly timeoutSeconds?: number;
  /** Equivalent (default) or Exact. */
  readonly matchPolicy?: MatchPolicy;
  /** Mutating webhooks only: Never (default) or IfNeeded. */
  readonly reinvocationPolicy?: ReinvocationPolicy;
  /** AdmissionReview versions the handler accepts, preferred first. Default `['v1']`. */
  readonly admissionReviewVersions?: readonly AdmissionReviewVersion[];
  readonly namespaceSelector?: LabelSelector;
  readonly objectSelector?: LabelSelector;
  /** At most 64, with unique names. */
  readonly matchConditions?: readonly MatchCondition[];
  /**
   * API access the handler's lookups need (`ctx.kube`), like kubebuilder's
   * `+kubebuilder:rbac` markers: `shaper-gen manifests` merges every webhook's
   * rules into the chart's ClusterRole for the server's ServiceAccount.
   */
  readonly rbac?: readonly RbacRule[];
  /**
   * Resources the handler reads through `ctx.cache`: the server keeps them in
   * an informer cache (list + watch), readiness waits for its first sync, and
   * the ClusterRole gets get, list and watch on each.
   */
  readonly cache?: readonly CachedResource[];
}

export interface ResolvedRule {
  readonly groups: readonly string[];
  readonly versions: readonly string[];
  readonly resources: readonly string[];
  readonly operations: readonly Operation[];
  readonly scope: Scope;
}

/** A webhook's options after validation, with every default applied. */
export interface ResolvedWebhook {
  readonly path: string;
  readonly mutating: boolean;
  readonly name: string;
  readonly configuration: string | undefined;
  readonly rules: readonly ResolvedRule[];
  readonly failurePolicy: FailurePolicy;
  readonly sideEffects: SideEffects;
  readonly timeoutSeconds: number;
  readonly matchPolicy: MatchPolicy;
  /** Set for mutating webhooks only. */
  readonly reinvocationPolicy: ReinvocationPolicy | undefined;
  readonly admissionReviewVersions: readonly AdmissionReviewVersion[];
  readonly namespaceSelector: LabelSelector | undefined;
  readonly objectSelector: LabelSelector | undefined;
  readonly matchConditions: readonly MatchCondition[] | undefined;
  readonly rbac: readonly RbacRule[];
  readonly cache: readonly CachedResource[];
}

/** Where in the options a problem is: `['rules', 0, 'operations', 1]`. */
export type OptionPath = readonly (string | number)[];

export interface OptionProblem {
  readonly path: OptionPath;
  readonly message: string;
}

export const DEFAULT_NAME_SUFFIX = 'shaper-gen.io';
export const DEFAULT_TIMEOUT_SECONDS = 10;
export const MAX_MATCH_CONDITIONS = 64;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_DNS_SUBDOMAIN = 253;
const API_VERSION = /^[a-z0-9]+$/;
const RESOURCE_PART = /^(\*|[a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/;
const QUALIFIED_NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;

export function formatOptionPath(path: OptionPath): string {
  return path.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part),
    '',
  );
}

/**
 * `<path without "/", "/" and "." as "-">.<domain>`: the domain is the first
 * API group of the rules that is a domain (the user's own, e.g. "shaper.io"),
 * else shaper-gen.io (core and built-in groups like "apps").
 */
export function defaultWebhookName(path: string, rules: readonly { readonly groups: readonly string[] }[] = []): string {
  const domain = rules.flatMap((rule) => rule.groups).find((group) => group.includes('.') && DNS_SUBDOMAIN.test(group)) ?? DEFAULT_NAME_SUFFIX;
  return `${path.replace(/^\//, '').replace(/[/.]/g, '-')}.${domain}`;
}

/**
 * What is wrong with a webhook path, if anything. The API server requires each
 * segment after the leading "/" to be a lowercase RFC 1123 subdomain
 * (k8s.io/apiserver pkg/util/webhook ValidateWebhookService); the prefix
 * `/validate-` or `/mutate-` and no trailing "/" are this project's rules.
 */
function pathProblem(path: string): string | undefined {
  if (!/^\/(validate|mutate)-/.test(path)) return `path "${path}" must be "/validate-<name>" or "/mutate-<name>"`;
  if (path.endsWith('/')) return `path "${path}" must not end with "/"`;
  const segments = path.slice(1).split('/');
  for (const [i, segment] of segments.entries()) {
    if (segment === '') return `path "${path}": segment[${i}] may not be empty (no "//")`;
    if (segment.length > MAX_DNS_SUBDOMAIN) return `path "${path}": segment[${i}] is ${segment.length} characters; the API server allows at most ${MAX_DNS_SUBDOMAIN} per segment`;
    if (!DNS_SUBDOMAIN.test(segment)) {
      return `path "${path}": segment[${i}] "${segment}" must be a lowercase RFC 1123 subdomain (letters, digits, "-" and ".", beginning and ending with a letter or digit), as the API server requires of every path segment`;
    }
  }
  return undefined;
}

/**
 * Validates decorator options and applies defaults. Every problem is reported
 * (not just the first), each with the option path it concerns.
 */
export function resolveWebhookOptions(raw: unknown): { webhook?: ResolvedWebhook; problems: OptionProblem[] } {
  const problems: OptionProblem[] = [];
  const report = (path: OptionPath, message: string) => problems.push({ path, message });

  if (!isPlainObject(raw)) {
    report([], '@Webhook expects an options object');
    return { problems };
  }
  for (const key of Object.keys(raw)) {
    if (!(key in FIELDS)) report([key], `unknown option "${key}"; ${didYouMean(key, Object.keys(FIELDS))}known options: ${Object.keys(FIELDS).join(', ')}`);
  }
  const resolved: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(FIELDS) as [keyof WebhookOptions, Field][]) {
    const value = raw[key];
    if (value === undefined) {
      if (field.required) report([key], `option "${key}" is required`);
      continue;
    }
    resolved[key] = field.check(value, [key], report);
  }

  const mutating = raw.mutating;
  const pathIsValid = typeof raw.path === 'string' && pathProblem(raw.path) === undefined;
  if (pathIsValid && raw.name === undefined) {
    const name = defaultWebhookName(raw.path as string, Array.isArray(raw.rules) ? raw.rules.filter(hasGroups) : []);
    if (name.length > MAX_DNS_SUBDOMAIN) {
      report(['path'], `the default webhook name "${name}" derived from this path is ${name.length} characters, over the ${MAX_DNS_SUBDOMAIN} the API server allows: set \`name\` or shorten the path`);
    }
  }
  if (typeof raw.path === 'string' && typeof mutating === 'boolean' && pathIsValid) {
    const prefix = mutating ? '/mutate-' : '/validate-';
    if (!raw.path.startsWith(prefix)) {
      report(['path'], `a ${mutating ? 'mutating' : 'validating'} webhook's path must start with "${prefix}", got "${raw.path}"`);
    }
  }
  if (mutating === false && raw.reinvocationPolicy !== undefined) {
    report(['reinvocationPolicy'], 'reinvocationPolicy applies to mutating webhooks only');
  }
  if (problems.length > 0) return { problems };

  const options = raw as unknown as WebhookOptions;
  const webhook: ResolvedWebhook = {
    path: options.path,
    mutating: options.mutating,
    name: options.name ?? defaultWebhookName(options.path, options.rules),
    configuration: options.configuration,
    rules: options.rules.map((rule) => ({
      groups: [...rule.groups],
      versions: [...rule.versions],
      resources: [...rule.resources],
      operations: [...rule.operations],
      scope: rule.scope ?? '*',
    })),
    failurePolicy: options.failurePolicy ?? 'Fail',
    sideEffects: options.sideEffects ?? 'None',
    timeoutSeconds: options.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    matchPolicy: options.matchPolicy ?? 'Equivalent',
    reinvocationPolicy: options.mutating ? (options.reinvocationPolicy ?? 'Never') : undefined,
    admissionReviewVersions: [...(options.admissionReviewVersions ?? ['v1'])],
    namespaceSelector: options.namespaceSelector,
    objectSelector: options.objectSelector,
    matchConditions: options.matchConditions,
    rbac: options.rbac ?? [],
    cache: (options.cache ?? []).map(({ group, version, resource }) => ({ group, version, resource })),
  };
  return { webhook, problems };
}

/** A set of webhooks served together: paths are unique, names unique within a configuration. */
export function checkWebhookSet(webhooks: readonly ResolvedWebhook[]): { index: number; problem: OptionProblem }[] {
  const found: { index: number; problem: OptionProblem }[] = [];
  const paths = new Map<string, number>();
  const names = new Map<string, number>();
  webhooks.forEach((webhook, index) => {
    const otherPath = paths.get(webhook.path);
    if (otherPath === undefined) paths.set(webhook.path, index);
    else found.push({ index, problem: { path: ['path'], message: `duplicate webhook path "${webhook.path}"` } });

    const nameKey = `${webhook.mutating ? 'mutating' : 'validating'}/${webhook.configuration ?? ''}/${webhook.name}`;
    const other = names.get(nameKey);
    if (other === undefined) names.set(nameKey, index);
    else if (webhooks[other]!.path !== webhook.path) {
      const where = webhook.configuration ? `configuration "${webhook.configuration}"` : 'the default configuration';
      const defaulted = (w: ResolvedWebhook) => w.name === defaultWebhookName(w.path, w.rules);
      const first = webhooks[other]!;
      if (defaulted(webhook) && defaulted(first)) {
        found.push({
          index,
          problem: { path: ['path'], message: `paths "${first.path}" and "${webhook.path}" give the same default webhook name "${webhook.name}" in ${where}: set \`name\` on one of them` },
        });
      } else found.push({ index, problem: { path: ['name'], message: `duplicate webhook name "${webhook.name}" in ${where}` } });
    }
  });
  return found;
}

type Report = (path: OptionPath, message: string) => void;

/**
 * Problems of a metav1.LabelSelector, with paths relative to it — the same
 * rules the decorator's namespaceSelector and objectSelector follow, for
 * applications whose own objects carry selectors.
 */
export function labelSelectorProblems(selector: unknown): OptionProblem[] {
  const problems: OptionProblem[] = [];
  checkSelector(selector, [], (path, message) => problems.push({ path, message }));
  return problems;
}

interface Field {
  readonly required?: boolean;
  check(value: unknown, path: OptionPath, report: Report): unknown;
}

const FIELDS = {
  path: {
    required: true,
    check: (value, path, report) => {
      if (!expectString(value, path, report)) return;
      const problem = pathProblem(value);
      if (problem) report(path, problem);
    },
  },
  mutating: {
    required: true,
    check: (value, path, report) => {
      if (typeof value !== 'boolean') report(path, `mutating must be true or false, got ${describe(value)}`);
    },
  },
  name: {
    check: (value, path, report) => {
      if (!expectString(value, path, report)) return;
      if (value.length > MAX_DNS_SUBDOMAIN || !DNS_SUBDOMAIN.test(value) || value.split('.').length < 3) {
        report(path, `name "${value}" must be a lower-case DNS subdomain with at least three segments, like "validate-profile.shaper.io"`);
      }
    },
  },
  configuration: {
    check: (value, path, report) => {
      if (!expectString(value, path, report)) return;
      if (value.length > 40 || !DNS_LABEL.test(value)) {
        report(path, `configuration "${value}" must be a lower-case DNS label of at most 40 characters`);
      }
    },
  },
  rules: {
    required: true,
    check: (value, path, report) => {
      if (!expectArray(value, path, report)) return;
      if (value.length === 0) report(path, 'rules must list at least one rule');
      value.forEach((rule, i) => checkRule(rule, [...path, i], report));
    },
  },
  failurePolicy: { check: enumField(FAILURE_POLICIES) },
  sideEffects: {
    check: (value, path, report) => {
      if (value === 'Some' || value === 'Unknown') {
        report(path, `sideEffects "${value}" is not allowed by admissionregistration.k8s.io/v1; use None, or NoneOnDryRun and honour request.dryRun`);
        return;
      }
      enumField(SIDE_EFFECTS)(value, path, report);
    },
  },
  timeoutSeconds: {
    check: (value, path, report) => {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 30) {
        report(path, `timeoutSeconds must be a whole number from 1 to 30, got ${describe(value)}`);
      }
    },
  },
  matchPolicy: { check: enumField(MATCH_POLICIES) },
  reinvocationPolicy: { check: enumField(REINVOCATION_POLICIES) },
  admissionReviewVersions: {
    check: (value, path, report) => {
      if (!expectArray(value, path, report)) return;
      if (value.length === 0) report(path, 'admissionReviewVersions must list at least one version');
      value.forEach((item, i) => enumField(ADMISSION_REVIEW_VERSIONS)(item, [...path, i], report));
      reportDuplicates(value, path, report);
    },
  },
  namespaceSelector: { check: checkSelector },
  objectSelector: { check: checkSelector },
  matchConditions: {
    check: (value, path, report) => {
      if (!expectArray(value, path, report)) return;
      if (value.length > MAX_MATCH_CONDITIONS) {
        report(path, `at most ${MAX_MATCH_CONDITIONS} matchConditions are allowed, got ${value.length}`);
      }
      const seen = new Set<string>();
      value.forEach((condition, i) => {
        const at = [...path, i];
        if (!expectObject(condition, at, report, ['name', 'expression'])) return;
        const { name, expression } = condition;
        if (expectString(name, [...at, 'name'], report)) {
          if (!isQualifiedName(name)) {
            report([...at, 'name'], `matchCondition name "${name}" must be a qualified name (letters, digits, "-", "_", "."; at most 63 characters, optional DNS prefix)`);
          } else if (seen.has(name)) {
            report([...at, 'name'], `duplicate matchCondition name "${name}"`);
          }
          seen.add(name);
        }
        if (expectString(expression, [...at, 'expression'], report) && expression.trim() === '') {
          report([...at, 'expression'], 'matchCondition expression must not be empty');
        }
      });
    },
  },
  rbac: { check: checkRbacRules },
  cache: { check: checkCacheOption },
} satisfies { readonly [K in keyof Required<WebhookOptions>]: Field };

/** The option names, in declaration order: exported for the generator's messages and docs. */
export const WEBHOOK_OPTION_NAMES = Object.keys(FIELDS) as (keyof WebhookOptions)[];

/** Options for the server and the chart's RBAC, never written into a webhook configuration. */
export const SERVER_ONLY_OPTION_NAMES = ['rbac', 'cache'] as const satisfies readonly (keyof WebhookOptions)[];

function checkRule(rule: unknown, path: OptionPath, report: Report): void {
  if (!expectObject(rule, path, report, ['groups', 'versions', 'resources', 'operations', 'scope'])) return;
  const list = (key: string, each: (item: string, at: OptionPath) => void) => {
    const value = rule[key];
    const at = [...path, key];
    if (value === undefined) return report(at, `rule option "${key}" is required`);
    if (!expectArray(value, at, report)) return;
    if (value.length === 0) return report(at, `${key} must not be empty`);
    value.forEach((item, i) => {
      if (expectString(item, [...at, i], report)) each(item, [...at, i]);
    });
    reportDuplicates(value, at, report);
    if (key !== 'resources' && value.includes('*') && value.length > 1) report(at, `"*" in ${key} must be the only entry`);
  };
  list('groups', (group, at) => {
    if (group !== '' && group !== '*' && !DNS_SUBDOMAIN.test(group)) report(at, `API group "${group}" must be "", "*" or a DNS subdomain`);
  });
  list('versions', (version, at) => {
    if (version !== '*' && !API_VERSION.test(version)) report(at, `API version "${version}" must be "*" or like "v1", "v1alpha1"`);
  });
  list('resources', (resource, at) => {
    const parts = resource.split('/');
    if (parts.length > 2 || !parts.every((part) => RESOURCE_PART.test(part))) {
      report(at, `resource "${resource}" must be "<resource>" or "<resource>/<subresource>" (lower-case, "*" allowed)`);
    }
  });
  const resources = rule.resources;
  if (Array.isArray(resources) && resources.length > 1) checkResourceWildcards(resources.filter((r): r is string => typeof r === 'string'), [...path, 'resources'], report);
  list('operations', (operation, at) => enumField(OPERATIONS)(operation, at, report));
  if (rule.scope !== undefined) enumField(SCOPES)(rule.scope, [...path, 'scope'], report);
}

/** The API server's wildcard rules for a rule's resources (admissionregistration validation, validateResources). */
function checkResourceWildcards(resources: readonly string[], at: OptionPath, report: Report): void {
  if (resources.includes('*/*')) return report(at, 'resources containing "*/*" must not list other resources');
  if (resources.includes('*') && resources.some((r) => r !== '*' && !r.includes('/'))) {
    report(at, 'resources containing "*" must not list other resources without a subresource');
  }
  const wildcardSubresources = new Set<string>();
  const wildcardResources = new Set<string>();
  resources.forEach((entry, i) => {
    const [resource, subresource] = entry.split('/', 2) as [string, string | undefined];
    if (subresource === undefined) return;
    if (wildcardSubresources.has(resource)) report([...at, i], `"${entry}" is already covered by "${resource}/*"`);
    if (wildcardResources.has(subresource)) report([...at, i], `"${entry}" is already covered by "*/${subresource}"`);
    if (subresource === '*') wildcardSubresources.add(resource);
    if (resource === '*') wildcardResources.add(subresource);
  });
}

function checkSelector(value: unknown, path: OptionPath, report: Report): void {
  if (!expectObject(value, path, report, ['matchLabels', 'matchExpressions'])) return;
  const { matchLabels, matchExpressions } = value;
  if (matchLabels !== undefined && expectObject(matchLabels, [...path, 'matchLabels'], report)) {
    for (const [key, label] of Object.entries(matchLabels)) {
      const at = [...path, 'matchLabels', key];
      if (!isQualifiedName(key)) report(at, `label key "${key}" is not a valid qualified name`);
      if (expectString(label, at, report) && (label.length > 63 || !LABEL_VALUE.test(label))) {
        report(at, `label value "${label}" is not valid (at most 63 letters, digits, "-", "_", ".")`);
      }
    }
  }
  if (matchExpressions === undefined || !expectArray(matchExpressions, [...path, 'matchExpressions'], report)) return;
  matchExpressions.forEach((requirement, i) => {
    const at = [...path, 'matchExpressions', i];
    if (!expectObject(requirement, at, report, ['key', 'operator', 'values'])) return;
    const { key, operator, values } = requirement;
    if (expectString(key, [...at, 'key'], report) && !isQualifiedName(key)) {
      report([...at, 'key'], `label key "${key}" is not a valid qualified name`);
    }
    if (!enumField(SELECTOR_OPERATORS)(operator, [...at, 'operator'], report)) return;
    const needsValues = operator === 'In' || operator === 'NotIn';
    if (needsValues) {
      if (values === undefined || (Array.isArray(values) && values.length === 0)) {
        report([...at, 'values'], `operator ${operator} needs a non-empty values list`);
        return;
      }
    } else if (values !== undefined && (!Array.isArray(values) || values.length > 0)) {
      report([...at, 'values'], `operator ${operator} must not have values`);
      return;
    }
    if (values !== undefined && expectArray(values, [...at, 'values'], report)) {
      values.forEach((item, j) => {
        if (expectString(item, [...at, 'values', j], report) && (item.length > 63 || !LABEL_VALUE.test(item))) {
          report([...at, 'values', j], `label value "${item}" is not valid (at most 63 letters, digits, "-", "_", ".")`);
        }
      });
    }
  });
}

function enumField<T extends string>(allowed: readonly T[]) {
  return (value: unknown, path: OptionPath, report: Report): value is T => {
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return true;
    report(path, `${lastName(path)} must be one of ${allowed.map((a) => `"${a}"`).join(', ')}, got ${describe(value)}`);
    return false;
  };
}

function isQualifiedName(value: string): boolean {
  const parts = value.split('/');
  if (parts.length > 2) return false;
  const name = parts.at(-1) ?? '';
  const prefix = parts.length === 2 ? parts[0]! : undefined;
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) return false;
  return name.length > 0 && name.length <= 63 && QUALIFIED_NAME_PART.test(name);
}

function reportDuplicates(values: readonly unknown[], path: OptionPath, report: Report): void {
  const seen = new Set<unknown>();
  values.forEach((value, i) => {
    if (seen.has(value)) report([...path, i], `duplicate entry ${describe(value)}`);
    seen.add(value);
  });
}

function expectString(value: unknown, path: OptionPath, report: Report): value is string {
  if (typeof value === 'string') return true;
  report(path, `${lastName(path)} must be a string, got ${describe(value)}`);
  return false;
}

function expectArray(value: unknown, path: OptionPath, report: Report): value is unknown[] {
  if (Array.isArray(value)) return true;
  report(path, `${lastName(path)} must be an array, got ${describe(value)}`);
  return false;
}

function expectObject(
  value: unknown,
  path: OptionPath,
  report: Report,
  knownKeys?: readonly string[],
): value is Record<string, unknown> {
  if (!isPlainObject(value)) {
    report(path, `${lastName(path)} must be an object, got ${describe(value)}`);
    return false;
  }
  if (knownKeys) {
    for (const key of Object.keys(value)) {
      if (!knownKeys.includes(key)) report([...path, key], `unknown key "${key}" in ${lastName(path)}; ${didYouMean(key, knownKeys)}expected ${knownKeys.join(', ')}`);
    }
  }
  return true;
}

function hasGroups(rule: unknown): rule is { groups: string[] } {
  return isPlainObject(rule) && Array.isArray(rule.groups) && rule.groups.every((group) => typeof group === 'string');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lastName(path: OptionPath): string {
  const name = [...path].reverse().find((part) => typeof part === 'string');
  const index = path.at(-1);
  return typeof index === 'number' && name !== undefined ? `${name}[${index}]` : (name ?? 'value');
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
