/**
 * The generator's verdict on each case, as `shaper-gen manifests` gives it, and
 * for the cases it accepts the webhook configurations the pinned helm renders.
 *
 * Cases are generated in batches, one source file each. A batch never holds two
 * cases with the same path or configuration, so no case's problems come from
 * another; a first run collects every diagnostic (file → case, line → option),
 * a second run generates the chart from the accepted cases alone.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { loadGeneratorConfig } from '../../../generator/src/config.js';
import { formatDiagnostic, type Diagnostic } from '../../../generator/src/diagnostics.js';
import { ConfigError } from '../../../runtime/problems.js';
import { generateManifests } from '../../../generator/src/manifests/manifests.js';
import { writeGeneratedFiles } from '../../../generator/src/manifests/output.js';
import type { ProblemPath as OptionPath } from '../../../runtime/problems.js';
import type { FixtureProject } from '../../support/fixture-project.js';
import { helmTemplate, type K8sObject } from '../../support/helm.js';
import { caseSource, type CaseSource } from './case-source.js';
import type { Case } from './corpus.js';

export const FULLNAME = 'shaper-shaper-webhooks';
const CONFIGURATION_KINDS = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);

export interface GeneratorProblem {
  /** Which of the case's webhooks, and where in its options; [] for the whole case. */
  readonly path: OptionPath;
  readonly message: string;
  /** `src/cases/e017.ts:4:14: message`, as the CLI prints it. */
  readonly printed: string;
}

export interface ChartVariant {
  readonly name: string;
  readonly values: Record<string, unknown>;
}

export interface GeneratorOutcome {
  readonly accepted: boolean;
  readonly problems: readonly GeneratorProblem[];
  /** For accepted cases: each variant's configuration objects holding the case's webhooks. */
  readonly rendered: readonly { variant: string; object: K8sObject }[];
  /** For accepted cases: what helm said when it could not render them. */
  readonly renderFailures: readonly string[];
}

export async function runGenerator(project: FixtureProject, cases: readonly Case[], variants: readonly ChartVariant[]): Promise<Map<string, GeneratorOutcome>> {
  const outcomes = new Map<string, GeneratorOutcome>();
  for (const batch of batches(cases)) {
    const sources = writeCases(project, batch);
    const problems = await diagnosticsByCase(project, batch, sources);
    const accepted = batch.filter((c) => problems.get(c.id)!.length === 0);
    const { rendered, failures } = await renderAccepted(project, accepted, variants);
    for (const c of batch) {
      outcomes.set(c.id, { accepted: accepted.includes(c), problems: problems.get(c.id)!, rendered: rendered.get(c.id) ?? [], renderFailures: failures.get(c.id) ?? [] });
    }
  }
  return outcomes;
}

function batches(cases: readonly Case[]): Case[][] {
  const result: { cases: Case[]; keys: Set<string> }[] = [];
  for (const c of cases) {
    const keys = new Set(c.webhooks.flatMap((w) => [`path ${String(w.path)}`, `configuration ${String(w.configuration)}`]));
    let batch = result.find((b) => ![...keys].some((key) => b.keys.has(key)));
    if (!batch) result.push((batch = { cases: [], keys: new Set() }));
    batch.cases.push(c);
    for (const key of keys) batch.keys.add(key);
  }
  return result.map((b) => b.cases);
}

const caseFile = (c: Case) => `src/cases/${c.id}.ts`;

function writeCases(project: FixtureProject, batch: readonly Case[]): Map<string, CaseSource> {
  rmSync(project.file('src/cases'), { recursive: true, force: true });
  mkdirSync(project.file('src/cases'), { recursive: true });
  const sources = new Map<string, CaseSource>();
  for (const c of batch) {
    const source = caseSource(c);
    project.write(caseFile(c), source.text);
    sources.set(c.id, source);
  }
  return sources;
}

/** Runs `manifests` over exactly these cases' files. */
async function generate(project: FixtureProject, cases: readonly Case[]) {
  project.write('shaper.yaml', `apiVersion: shaper-gen.io/v1alpha1\nkind: GeneratorConfig\nsources: ${JSON.stringify(cases.map(caseFile))}\nhandlersModule: src/webhooks.generated.ts\n`);
  return generateManifests(loadGeneratorConfig(undefined, project.dir));
}

async function diagnosticsByCase(project: FixtureProject, batch: readonly Case[], sources: Map<string, CaseSource>): Promise<Map<string, GeneratorProblem[]>> {
  let diagnostics: readonly Diagnostic[] = [];
  try {
    await generate(project, batch);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    diagnostics = error.problems as readonly Diagnostic[];
  }
  const problems = new Map(batch.map((c) => [c.id, [] as GeneratorProblem[]]));
  for (const diagnostic of diagnostics) {
    const id = path.basename(diagnostic.source.file, '.ts');
    const list = problems.get(id);
    if (!list || path.dirname(diagnostic.source.file) !== project.file('src/cases')) {
      throw new Error(`a diagnostic outside the cases: ${formatDiagnostic(diagnostic, project.dir)}`);
    }
    let optionPath = sources.get(id)!.pathAt.get(diagnostic.source.line) ?? [];
    // A missing option is reported at the whole options object; its name is in the message.
    const missing = /^option "(\w+)" is required$/.exec(diagnostic.message)?.[1];
    if (missing && optionPath.length === 1) optionPath = [...optionPath, missing];
    list.push({ path: optionPath, message: diagnostic.message, printed: formatDiagnostic(diagnostic, project.dir) });
  }
  return problems;
}

async function renderAccepted(project: FixtureProject, accepted: readonly Case[], variants: readonly ChartVariant[]) {
  const rendered = new Map<string, { variant: string; object: K8sObject }[]>();
  const failures = new Map<string, string[]>();
  if (accepted.length === 0) return { rendered, failures };
  try {
    for (const [id, objects] of await renderCases(project, accepted, variants)) rendered.set(id, objects);
  } catch {
    // One case helm cannot render must not hide the others: render each alone.
    for (const c of accepted) {
      try {
        rendered.set(c.id, (await renderCases(project, [c], variants)).get(c.id) ?? []);
      } catch (error) {
        failures.set(c.id, [failureText(error, project)]);
      }
    }
  }
  return { rendered, failures };
}

async function renderCases(project: FixtureProject, cases: readonly Case[], variants: readonly ChartVariant[]) {
  const result = await generate(project, cases);
  writeGeneratedFiles(result.files);
  const owner = new Map<string, string>(cases.flatMap((c) => c.webhooks.map((w) => [`${FULLNAME}-${String(w.configuration)}`, c.id] as const)));
  const byCase = new Map<string, { variant: string; object: K8sObject }[]>();
  for (const variant of variants) {
    const objects = await helmTemplate(project.file('charts/shaper-webhooks'), { release: 'shaper', namespace: 'shaper-system', set: variant.values });
    for (const object of objects.filter((o) => CONFIGURATION_KINDS.has(o.kind))) {
      const id = owner.get(object.metadata.name);
      if (!id) throw new Error(`helm rendered ${object.kind} ${object.metadata.name}, which no case owns`);
      byCase.set(id, [...(byCase.get(id) ?? []), { variant: variant.name, object }]);
    }
  }
  return byCase;
}

function failureText(error: unknown, project: FixtureProject): string {
  if (error instanceof ConfigError) return error.problems.map((d) => formatDiagnostic(d, project.dir)).join('\n');
  return ((error as { stderr?: string }).stderr || (error as Error).message).trim();
}
