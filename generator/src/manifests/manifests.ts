/**
 * `shaper-gen manifests`: scan, validate, render. Either every file is
 * produced or none is: any problem stops generation before anything is written.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';
import { parse as parseYaml } from 'yaml';
import { callsAuthorizer, ConfigError, digestInputs, rbacRulesOf, type InputDigests } from 'shaper-gen/internal/generator';
import { chartContractProblems } from '../chart/chart-contract.js';
import { diagnosticIn, sortDiagnostics, type Diagnostic } from '../diagnostics.js';
import type { GeneratorConfig } from '../config.js';
import { pathsModel } from '../chart/paths-model.js';
import { policiesModel, servedPoliciesModel } from '../policy/model.js';
import { servedPolicyRbacRules } from '../policy/served-reads.js';
import { helmHelpers } from '../chart/helm-helpers.js';
import { MUTATING_POLICIES_FILE, POLICY_ENFORCEMENT_FILE, RBAC_RULES_FILE, VALIDATING_POLICIES_FILE, WEBHOOK_PATHS_FILE } from '../chart/generated-templates.js';
import { CONFIGURATION_KINDS, configurationsModel, rbacRulesModel } from '../webhook/model.js';
import { handlersIndexModel } from './handlers-index.js';
import type { GeneratedFile } from './output.js';

export type { GeneratedFile } from './output.js';
import { withBuiltInResources } from '../kubernetes/built-in-resources.js';
import { loadCrdSchemas } from '../policy/crd-schemas.js';
import { generateTypes } from '../crd-types/generate.js';
import type { DecoratedPolicy } from '../policy/scan-policy.js';
import type { DecoratedConversion } from '../conversion/scan-conversion.js';
import { conversionModels } from '../conversion/model.js';
import type { Crd } from '../crd/types.js';
import type { DecoratedWebhook } from '../webhook/scan-webhook.js';
import type { StaticOutput } from '../static/files.js';
import type { Templates } from '../chart/render.js';

export interface GenerationResult {
  readonly files: readonly GeneratedFile[];
  readonly webhooks: readonly DecoratedWebhook[];
  readonly policies: readonly DecoratedPolicy[];
  readonly conversions: readonly DecoratedConversion[];
  readonly crds: readonly Crd[];
  /** Modules of TypeScript types from CRD files (the `types` of shaper.yaml), among `files`. */
  readonly typesModules: number;
  /** Found, and printed, but not stopping generation (a CRD near the size the API server stores). */
  readonly warnings: readonly Diagnostic[];
  /** Generated files left from an earlier run (a CRD no longer declared): removed on write, stale on --check. */
  readonly obsolete: readonly string[];
  readonly scannedFiles: number;
  readonly candidateFiles: number;
  /** The sources as read for this generation, for `serve --dev`'s staleness check. */
  readonly inputs: InputDigests;
}

export interface GenerateOptions {
  /** `--static <dir>`: static admission files instead of the chart's, refusing what they cannot hold. */
  readonly static?: StaticOutput;
}

export async function generateManifests(config: GeneratorConfig, options: GenerateOptions = {}): Promise<GenerationResult> {
  const sources = await glob([...config.sources], {
    cwd: config.root,
    ignore: [...config.exclude],
    absolute: true,
    onlyFiles: true,
  });
  sources.sort();
  // Before the scan: a file edited while it runs then shows as changed, never as current.
  const inputs = digestInputs(config.root, sources);
  const chartName = readChartName(config.chartDir);
  // The TypeScript compiler and handlebars load only when they are needed, each on its first use.
  const { scanDecorators } = await import('./scan.js');
  const { crdFiles, obsoleteCrdFiles, scanCustomResources, withGeneratedCrds } = await import('../crd/generate.js');
  const crdScan = scanCustomResources(config.tsconfig, sources, config.root);
  const types = await generateTypes(config.root, config.types, config.configFile ?? path.join(config.root, 'shaper.yaml'));
  if (types.diagnostics.length > 0) throw new ConfigError(sortDiagnostics(types.diagnostics), 'CRDs');
  // Policies' `object` is typed from the generated CRDs, then from the CRD files shaper.yaml lists, then from Kubernetes' own schemas.
  const ownedCrds = [...config.crds, ...config.types.flatMap((entry) => entry.from)];
  const policySchemas = withGeneratedCrds(crdScan.crds, withBuiltInResources(await loadCrdSchemas(config.root, ownedCrds)));
  const { webhooks, policies, conversions, diagnostics, candidateFiles } = scanDecorators(config.tsconfig, sources, {
    policies: policySchemas,
    customResources: crdScan.crds,
    // Handlers import the types: scanned as this run writes them, so a module missing or stale on disk is no problem.
    pending: new Map(types.modules.map((module) => [module.path, module.content])),
    staticAdmission: options.static !== undefined,
  });
  if (diagnostics.length > 0 || crdScan.diagnostics.length > 0) {
    throw new ConfigError(sortDiagnostics([...diagnostics, ...crdScan.diagnostics]), diagnostics.length > 0 ? 'webhooks' : 'custom resources');
  }
  const chartProblems = chartContractProblems(
    config.chartDir,
    chartName,
    webhooks.some((w) => rbacRulesOf(w.webhook).length > 0) || policies.length > 0,
    crdScan.crds.length > 0,
    policies.length > 0,
  );
  if (chartProblems.length > 0) throw new ConfigError(chartProblems, 'chart');

  const { loadTemplates } = await import('../chart/render.js');
  const templates = await loadTemplates();
  const counts = {
    webhooks,
    policies,
    conversions,
    crds: crdScan.crds,
    typesModules: 0,
    warnings: [...crdScan.warnings, ...policies.flatMap((found) => found.warnings)],
    scannedFiles: sources.length,
    candidateFiles,
    inputs,
  };
  if (options.static) {
    const { staticAdmissionFiles } = await import('../static/files.js');
    const configFile = config.configFile ?? path.join(config.root, 'shaper.yaml');
    return { ...counts, ...staticAdmissionFiles({ webhooks, policies, chartName, root: config.root, configFile }, templates, options.static) };
  }
  const files = chartFiles(config, templates, chartName, { webhooks, policies, conversions, crds: crdScan.crds });
  files.push(...crdFiles(crdScan.crds, templates, config.chartDir, chartName, conversionModels(conversions, config.root)));
  files.push(...types.modules);
  const obsolete = [...obsoleteCrdFiles(config.chartDir, files), ...types.obsolete];
  return { ...counts, files, typesModules: types.modules.length, obsolete };
}

/** The chart's generated templates and the handlers module. */
function chartFiles(
  config: GeneratorConfig,
  templates: Templates,
  chartName: string,
  { webhooks, policies, conversions, crds }: Pick<GenerationResult, 'webhooks' | 'policies' | 'conversions' | 'crds'>,
): GeneratedFile[] {
  const chartTemplates = path.join(config.chartDir, 'templates');
  const served = servedPoliciesModel(policies, chartName, config.root);
  const files: GeneratedFile[] = CONFIGURATION_KINDS.map((kind) => ({
    path: path.join(chartTemplates, kind.fileName),
    content: templates.webhookConfigurations(configurationsModel(kind, webhooks, chartName, config.root, served)),
  }));
  files.push({ path: path.join(chartTemplates, POLICY_ENFORCEMENT_FILE), content: templates.policyEnforcement({ helpers: helmHelpers(chartName), policies: served }) });
  files.push({ path: path.join(chartTemplates, VALIDATING_POLICIES_FILE), content: templates.validatingPolicies(policiesModel(policies, 'validating', chartName, config.root)) });
  files.push({ path: path.join(chartTemplates, MUTATING_POLICIES_FILE), content: templates.mutatingPolicies(policiesModel(policies, 'mutating', chartName, config.root)) });
  files.push({
    path: path.join(chartTemplates, WEBHOOK_PATHS_FILE),
    content: templates.webhookPaths(
      pathsModel(
        webhooks.map((w) => w.webhook),
        chartName,
        conversions.map((c) => c.conversion.path),
        conversionCrdNames(crds, conversions),
        served,
      ),
    ),
  });
  files.push({
    path: path.join(chartTemplates, RBAC_RULES_FILE),
    content: templates.rbacRules(
      rbacRulesModel(
        webhooks.map((w) => w.webhook),
        chartName,
        served.map((policy) => ({ ...policy, rules: servedPolicyRbacRules(policy.mutating, policy.paramKind ?? undefined, crds, callsAuthorizer(policy)) })),
      ),
    ),
  });
  files.push({ path: config.handlersModule, content: templates.handlersIndex(handlersIndexModel(webhooks, config.handlersModule, conversions)) });
  return files;
}

/** The CRDs whose kind has a `@Conversion`. */
function conversionCrdNames(crds: readonly Crd[], conversions: readonly DecoratedConversion[]): string[] {
  const converted = new Set(conversions.map(({ conversion }) => `${conversion.group}/${conversion.kind}`));
  return crds.filter((crd) => converted.has(`${crd.group}/${crd.names.kind}`)).map((crd) => crd.name);
}

function readChartName(chartDir: string): string {
  const chartFile = path.join(chartDir, 'Chart.yaml');
  let chart: unknown;
  try {
    chart = parseYaml(readFileSync(chartFile, 'utf8'));
  } catch (error) {
    const message =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'no chart here: run `shaper-gen init` to scaffold one, or set chartDir in shaper.yaml'
        : `cannot read the chart: ${(error as Error).message}`;
    throw new ConfigError([diagnosticIn(chartFile, message)], 'chart');
  }
  const name = (chart as { name?: unknown } | null)?.name;
  if (typeof name !== 'string' || name === '') {
    throw new ConfigError([diagnosticIn(chartFile, 'Chart.yaml has no name')], 'chart');
  }
  return name;
}
