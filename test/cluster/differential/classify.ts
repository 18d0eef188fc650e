/**
 * Where the generator and the API server agree, and where not. The generator
 * may refuse what the API server accepts only for the categories below, each
 * one deliberate; every other disagreement is a bug on one side.
 */
import type { ProblemPath as OptionPath } from '../../../runtime/problems.js';
import type { Case } from './corpus.js';
import type { GeneratorOutcome, GeneratorProblem } from './generate.js';

export type Verdict = 'agree-accept' | 'agree-reject' | 'we-accept-they-refuse' | 'we-refuse-they-accept';
export const VERDICTS: readonly Verdict[] = ['agree-accept', 'agree-reject', 'we-accept-they-refuse', 'we-refuse-they-accept'];

export interface Stricter {
  readonly category: string;
  readonly reason: string;
  /** Whether a generator problem (option path without the webhook index, message) is of this category. */
  matches(path: OptionPath, message: string): boolean;
}

const at = (option: string, pattern: RegExp) => (path: OptionPath, message: string) => path[0] === option && pattern.test(message);

export const STRICTER: readonly Stricter[] = [
  {
    category: 'path prefix',
    reason: 'paths are /validate-… or /mutate-… matching the webhook kind (kubebuilder\'s convention); the API server takes any path, even "/" or ""',
    matches: at('path', /must be "\/validate-<name>" or "\/mutate-<name>"|webhook's path must start with/),
  },
  {
    category: 'path trailing "/"',
    reason: 'one spelling per path: the API server ignores a trailing "/" when it checks segments but calls the path with it, a route the handler is not registered at',
    matches: at('path', /must not end with "\/"/),
  },
  {
    category: 'duplicate path',
    reason: 'the server routes requests by path, so two webhooks on one path would share one handler',
    matches: at('path', /^duplicate webhook path/),
  },
  {
    category: 'configuration name',
    reason: 'a DNS label of at most 40 characters keeps <fullname>-<configuration> short and readable; the API server allows any DNS subdomain name',
    matches: at('configuration', /must be a lower-case DNS label of at most 40 characters/),
  },
  {
    category: 'no rules',
    reason: 'a webhook without rules is never called, so an empty or missing rules list is a mistake the API server lets through',
    matches: at('rules', /^rules must list at least one rule$|^option "rules" is required$/),
  },
  {
    category: 'API group format',
    reason: 'the API server takes any non-empty group, but one that is not a DNS subdomain can never match an API group',
    matches: at('rules', /^API group ".+" must be "", "\*" or a DNS subdomain$/),
  },
  {
    category: 'API version format',
    reason: 'the API server takes any non-empty version, but only "*" or a version like v1, v1beta1 can ever match',
    matches: at('rules', /^API version ".+" must be "\*" or like "v1", "v1alpha1"$/),
  },
  {
    category: 'resource format',
    reason: 'the API server takes any non-empty resource, but only lower-case <resource>[/<subresource>] can ever match',
    matches: at('rules', /^resource ".+" must be "<resource>" or "<resource>\/<subresource>"/),
  },
  {
    category: 'duplicate rule entries',
    reason: 'a group, version, resource or operation listed twice is harmless to the API server but always a slip',
    matches: at('rules', /^duplicate entry /),
  },
  {
    category: '"*" beside plain resources',
    reason: 'the API server refuses "*" beside a resource without subresource only when the last entry is not "*" (validateResources keeps the last entry\'s answer); order must not matter',
    matches: at('rules', /^resources containing "\*" must not list other resources without a subresource$/),
  },
  {
    category: 'AdmissionReview versions',
    reason: 'the server speaks AdmissionReview v1 and v1beta1 only; the API server accepts other well-formed versions as long as one of those is listed',
    matches: at('admissionReviewVersions', /^admissionReviewVersions\[\d+\] must be one of "v1", "v1beta1"/),
  },
];

export interface Refusal {
  /** `ValidatingWebhookConfiguration/<name>` and the chart variant, or `hand-written`; or `helm`. */
  readonly source: string;
  readonly message: string;
  readonly fields: readonly string[];
}

export interface Judged {
  readonly case: Case;
  readonly verdict: Verdict;
  readonly generator: GeneratorOutcome;
  readonly refusals: readonly Refusal[];
  /** we-refuse-they-accept: each generator problem's stricter category, undefined where none applies. */
  readonly categories: readonly (string | undefined)[];
  /** agree-reject: options the API server refused that no generator problem is about. */
  readonly unexplained: readonly string[];
}

export function judge(testCase: Case, generator: GeneratorOutcome, refusals: readonly Refusal[]): Judged {
  const theyAccept = refusals.length === 0;
  const verdict: Verdict = generator.accepted ? (theyAccept ? 'agree-accept' : 'we-accept-they-refuse') : theyAccept ? 'we-refuse-they-accept' : 'agree-reject';
  const categories = verdict === 'we-refuse-they-accept' ? generator.problems.map(categoryOf) : [];
  const unexplained = verdict === 'agree-reject' ? unexplainedOptions(generator.problems, refusals) : [];
  return { case: testCase, verdict, generator, refusals, categories, unexplained };
}

function categoryOf(problem: GeneratorProblem): string | undefined {
  return STRICTER.find((s) => s.matches(problem.path.slice(1), problem.message))?.category;
}

/** The options an API server field path is about: `webhooks[0].clientConfig.service.path` → path. */
export function optionsOfField(field: string): string[] {
  if (field.startsWith('metadata')) return ['configuration'];
  const option = /^webhooks(?:\[\d+\])?\.(\w+)/.exec(field)?.[1];
  if (option === 'clientConfig') return ['path'];
  // A default name comes from the path, and the generator reports its problems there.
  if (option === 'name') return ['name', 'path'];
  return [option ?? field];
}

function unexplainedOptions(problems: readonly GeneratorProblem[], refusals: readonly Refusal[]): string[] {
  const named = new Set(problems.map((p) => (p.path.length > 1 ? String(p.path[1]) : '*')));
  if (named.has('*')) return [];
  const fields = refusals.flatMap((r) => (r.fields.length > 0 ? r.fields : [`(no field) ${r.message}`]));
  return [...new Set(fields.filter((field) => !optionsOfField(field).some((option) => named.has(option))))];
}
