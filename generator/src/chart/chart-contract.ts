/**
 * What the generated templates need from the chart they are written into: the
 * one list the check below applies and docs/reference/chart-contract.md is
 * generated from (npm run docs). A chart from `shaper-gen init` has all of it;
 * a hand-made or renamed chart is told what is missing, file by file, instead
 * of failing later in `helm template` with a nil pointer.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { diagnosticIn, type Diagnostic } from '../diagnostics.js';
import { POLICY_ENFORCEMENT_FILE, RBAC_RULES_FILE } from './generated-templates.js';

export const CHART_CONTRACT = {
  /** Helpers `<chart name>.<helper>` the generated webhook configurations include. */
  helpers: ['fullname', 'labels', 'caSource'],
  /** Values the generated webhook configurations read (values.yaml must declare them). */
  values: ['webhook.url', 'webhook.caBundle', 'webhook.excludeSystemNamespaces', 'service.port'],
  /** Values the generated CRD templates read, when the sources declare kinds. */
  crdValues: ['crds.install', 'crds.keep'],
  /** The cert-manager Certificate whose CA cainjector injects: `<fullname>` + this suffix. */
  servingCertificateSuffix: '-serving-cert',
  /**
   * The helper `<chart name>.<rbacHelper>` the generator writes (templates/_rbac-rules.tpl) with the rules
   * webhooks declare in `rbac` or need for `cache`; when some webhook does, another template must include it.
   */
  rbacHelper: 'rbacRules',
  /**
   * The helper `<chart name>.<servedPoliciesHelper>` the generator writes (templates/_policy-enforcement.tpl): the
   * ServerConfig's `policies.served`, the policies the server enforces where the API server does not; when the
   * sources declare policies, the server's configuration must include it.
   */
  servedPoliciesHelper: 'servedPolicies',
} as const;

/** How every problem message below ends: where a user reads the contract. */
export const CHART_CONTRACT_HINT = '(see "Chart contract" in the shaper-gen README)';

/**
 * Problems of the chart in `chartDir` for generated templates; `grantsRbac`: some webhook declares `rbac` or `cache`
 * (or some policy may be served, which reads namespaces); `crds`: the sources declare kinds; `policies`: policies.
 */
export function chartContractProblems(chartDir: string, chartName: string, grantsRbac: boolean, crds = false, policies = false): Diagnostic[] {
  const problems: Diagnostic[] = [];
  const at = (file: string, message: string) => problems.push(diagnosticIn(file, `${message} ${CHART_CONTRACT_HINT}`));
  const valuesFile = path.join(chartDir, 'values.yaml');
  const values = existsSync(valuesFile) ? (parseYaml(readFileSync(valuesFile, 'utf8')) as unknown) : undefined;
  for (const key of CHART_CONTRACT.values) {
    if (!hasPath(values, key.split('.'))) at(valuesFile, `values.yaml does not declare ${key}, which the generated webhook configurations read`);
  }
  for (const key of crds ? CHART_CONTRACT.crdValues : []) {
    if (!hasPath(values, key.split('.'))) at(valuesFile, `values.yaml does not declare ${key}, which the generated CRD templates read`);
  }
  const templates = readTemplates(path.join(chartDir, 'templates'));
  const all = templates.map((t) => t.text).join('\n');
  for (const helper of CHART_CONTRACT.helpers) {
    const name = `${chartName}.${helper}`;
    if (!new RegExp(`define\\s+"${escape(name)}"`).test(all)) {
      at(
        path.join(chartDir, 'templates', '_helpers.tpl'),
        `no template defines "${name}", which the generated webhook configurations include (helpers are named after Chart.yaml's name "${chartName}")`,
      );
    }
  }
  const certificate = templates.some((t) => /kind:\s*Certificate\b/.test(t.text) && t.text.includes(CHART_CONTRACT.servingCertificateSuffix));
  if (!certificate) {
    at(
      path.join(chartDir, 'templates'),
      `no template makes the cert-manager Certificate "<fullname>${CHART_CONTRACT.servingCertificateSuffix}" whose CA cainjector injects into the generated webhook configurations`,
    );
  }
  const rbacHelper = `${chartName}.${CHART_CONTRACT.rbacHelper}`;
  if (grantsRbac && !templates.some((t) => t.file !== RBAC_RULES_FILE && t.text.includes(`"${rbacHelper}"`))) {
    at(path.join(chartDir, 'templates'), `webhooks declare rbac or cache, but no template includes "${rbacHelper}": the server's ServiceAccount would not get those permissions`);
  }
  const servedHelper = `${chartName}.${CHART_CONTRACT.servedPoliciesHelper}`;
  if (policies && !templates.some((t) => t.file !== POLICY_ENFORCEMENT_FILE && t.text.includes(`"${servedHelper}"`))) {
    at(
      path.join(chartDir, 'templates', '_helpers.tpl'),
      `the sources declare policies, but no template includes "${servedHelper}" in the server's configuration (policies.served): where the API server does not serve a policy's kind, the server would not enforce it`,
    );
  }
  return problems;
}

function readTemplates(dir: string): { file: string; text: string }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => /\.(ya?ml|tpl|txt)$/.test(file))
    .sort()
    .map((file) => ({ file, text: readFileSync(path.join(dir, file), 'utf8') }));
}

function hasPath(value: unknown, keys: readonly string[]): boolean {
  let current = value;
  for (const key of keys) {
    if (typeof current !== 'object' || current === null || !(key in current)) return false;
    current = (current as Record<string, unknown>)[key];
  }
  return true;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
