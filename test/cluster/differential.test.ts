/**
 * Differential test against the real kube-apiserver: for a few hundred
 * `@Webhook` option sets, does `shaper-gen manifests` accept exactly what the
 * API server would store?
 *
 * Accepted cases are rendered by the pinned helm (in-cluster Service with
 * cert-manager, and an external URL with a CA bundle) and every webhook
 * configuration is dry-run created. Refused cases are written as a user would
 * have written them by hand and dry-run created too. The generator must never
 * accept what the API server refuses, and may refuse what it accepts only in
 * the deliberate categories of classify.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_ONLY_OPTION_NAMES, WEBHOOK_OPTION_NAMES } from '../../runtime/webhook/options/fields.js';
import { startControlPlane, type ControlPlane } from '../../support/kindenv/control-plane.js';
import { createFixtureProject, type FixtureProject } from '../support/fixture-project.js';
import { createTestCA } from '../../support/pki.js';
import { judge, optionsOfField, STRICTER, VERDICTS, type Judged, type Refusal } from './differential/classify.js';
import { corpus, type Case } from './differential/corpus.js';
import { dryRunClient, mapLimit, type DryRunClient } from './differential/dry-run.js';
import { runGenerator, type ChartVariant, type GeneratorOutcome } from './differential/generate.js';
import { handWrittenConfigurations } from './differential/hand-written.js';

const cases = corpus();
let dir: string | undefined;
let controlPlane: ControlPlane | undefined;
let project: FixtureProject | undefined;
let client: DryRunClient | undefined;
let results: Judged[] = [];

const log = (line: string) => process.stderr.write(`differential: ${line}\n`);

async function chartVariants(): Promise<ChartVariant[]> {
  const ca = await createTestCA('differential test CA');
  return [
    { name: 'service', values: {} },
    {
      name: 'url',
      values: {
        'certManager.enabled': false,
        'webhook.url': 'https://webhooks.example.com:8443/hooks',
        'webhook.caBundle': Buffer.from(ca.cert).toString('base64'),
        'webhook.excludeSystemNamespaces': false,
      },
    },
  ];
}

async function apiServerRefusals(testCase: Case, outcome: GeneratorOutcome): Promise<Refusal[]> {
  const refusals: Refusal[] = outcome.renderFailures.map((message) => ({ source: 'helm', message, fields: [] }));
  const submissions = outcome.accepted
    ? outcome.rendered.map(({ variant, object }) => ({ source: `${object.kind}/${object.metadata.name} (${variant})`, object }))
    : handWrittenConfigurations(testCase).map((object) => ({ source: `${object.kind}/${object.metadata.name} (hand-written)`, object }));
  for (const { source, object } of submissions) {
    const result = await client!.create(object);
    if (!result.accepted) refusals.push({ source, message: result.message, fields: result.fields });
  }
  return refusals;
}

/** An accepted case renders, in every chart variant, each of its webhooks once, one object per kind. */
function checkRendered(testCase: Case, outcome: GeneratorOutcome, variants: readonly ChartVariant[]): void {
  if (!outcome.accepted || outcome.renderFailures.length > 0) return;
  const kinds = new Set(testCase.webhooks.map((w) => w.mutating)).size;
  for (const { name } of variants) {
    const objects = outcome.rendered.filter((r) => r.variant === name).map((r) => r.object);
    const webhooks = objects.reduce((sum, object) => sum + (object.webhooks as unknown[]).length, 0);
    if (objects.length !== kinds || webhooks !== testCase.webhooks.length) {
      throw new Error(
        `case ${testCase.id} (${testCase.label}), ${name}: rendered ${objects.length} configurations with ${webhooks} webhooks for ${testCase.webhooks.length} webhooks of ${kinds} kinds`,
      );
    }
  }
}

beforeAll(async () => {
  const started = Date.now();
  dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-differential-'));
  project = createFixtureProject({});
  const variants = await chartVariants();
  // The generator runs while the control plane starts.
  const [plane, generated] = await Promise.allSettled([startControlPlane({ dir, hostAddress: '127.0.0.1', log }), runGenerator(project, cases, variants)]);
  if (plane.status === 'fulfilled') controlPlane = plane.value;
  if (plane.status === 'rejected') throw plane.reason;
  if (generated.status === 'rejected') throw generated.reason;
  log(`generator done, control plane up in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  client = dryRunClient(controlPlane!);
  const outcomes = generated.value;
  for (const c of cases) checkRendered(c, outcomes.get(c.id)!, variants);
  results = await mapLimit(cases, 4, async (c) => judge(c, outcomes.get(c.id)!, await apiServerRefusals(c, outcomes.get(c.id)!)));
  printSummary(results);
  log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

afterAll(async () => {
  client?.close();
  await controlPlane?.stop();
  project?.remove();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function printSummary(judged: readonly Judged[]): void {
  const count = (verdict: string) => judged.filter((j) => j.verdict === verdict).length;
  const lines = [`${judged.length} cases (${cases.filter((c) => c.id.startsWith('e')).length} edge, ${cases.filter((c) => c.id.startsWith('r')).length} random):`];
  for (const verdict of VERDICTS) lines.push(`  ${verdict.padEnd(24)} ${count(verdict)}`);
  lines.push('we-refuse-they-accept by stricter category (cases):');
  for (const { category } of STRICTER) {
    lines.push(`  ${category.padEnd(28)} ${judged.filter((j) => j.categories.includes(category)).length}`);
  }
  console.log(lines.join('\n'));
}

const describeCase = (j: Judged) => `${j.case.id} ${j.case.label}: ${clip(JSON.stringify(j.case.webhooks))}`;
/** API server messages echo the refused value, which can be 100 kB of CEL. */
const clip = (text: string, length = 400) => (text.length > length ? `${text.slice(0, length)}…` : text);

describe('shaper-gen manifests against the kube-apiserver', () => {
  it('never writes a webhook configuration the API server refuses', () => {
    const offending = results
      .filter((j) => j.verdict === 'we-accept-they-refuse')
      .map((j) => `${describeCase(j)}\n    ${j.refusals.map((r) => `${r.source}: ${clip(r.message, 2000)}`).join('\n    ')}`);
    expect(offending).toEqual([]);
  });

  it('refuses what the API server accepts only in the deliberate stricter categories', () => {
    const offending = results
      .filter((j) => j.verdict === 'we-refuse-they-accept' && j.categories.includes(undefined))
      .map(
        (j) =>
          `${describeCase(j)}\n    ${j.generator.problems
            .filter((_, i) => j.categories[i] === undefined)
            .map((p) => p.printed)
            .join('\n    ')}`,
      );
    expect(offending).toEqual([]);
  });

  it('exercises every stricter category it allows', () => {
    const seen = new Set(results.flatMap((j) => j.categories));
    expect(STRICTER.map((s) => s.category).filter((category) => !seen.has(category))).toEqual([]);
  });

  it('where both refuse, names every option the API server refused', () => {
    const offending = results
      .filter((j) => j.unexplained.length > 0)
      .map((j) => `${describeCase(j)}\n    API server: ${j.unexplained.join('; ')}\n    generator: ${j.generator.problems.map((p) => p.printed).join('\n               ')}`);
    expect(offending).toEqual([]);
  });

  it('covers every option in cases the API server accepts, and in refusals it names', () => {
    // mutating picks the kind of configuration and is never wrong by itself; rbac and cache go into the ClusterRole.
    const serverOnly: readonly string[] = SERVER_ONLY_OPTION_NAMES;
    const options = WEBHOOK_OPTION_NAMES.filter((option) => option !== 'mutating' && !serverOnly.includes(option));
    const accepted = new Set(results.filter((j) => j.refusals.length === 0).flatMap((j) => j.case.webhooks.flatMap((w) => Object.keys(w))));
    const named = new Set(results.flatMap((j) => j.refusals.flatMap((r) => r.fields.flatMap(optionsOfField))));
    expect({ accepted: options.filter((o) => !accepted.has(o)), refused: options.filter((o) => !named.has(o)) }).toEqual({ accepted: [], refused: [] });
  });
});
