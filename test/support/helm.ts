/** Runs the project's pinned helm (scripts/install-helm.sh) and parses what it renders. */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: any;
}

export function helmBinary(): string {
  const cache = process.env.SHAPER_GEN_CACHE ?? path.join(os.homedir(), '.cache', 'shaper-gen');
  const helm = path.join(cache, 'bin', 'helm');
  if (!existsSync(helm)) throw new Error(`helm is not installed at ${helm}; run: bash scripts/install-helm.sh`);
  return helm;
}

export interface HelmOptions {
  release?: string;
  namespace?: string;
  /** `--set-json` style values, applied in order. */
  set?: Record<string, unknown>;
  valuesFiles?: string[];
  /** `--kube-version`: the Kubernetes version `helm template` renders for (.Capabilities.KubeVersion). */
  kubeVersion?: string;
  /** `--api-versions`: what .Capabilities.APIVersions has besides helm's defaults, e.g. `admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy`. */
  apiVersions?: string[];
}

function valueArgs(options: HelmOptions): string[] {
  const args: string[] = [];
  for (const file of options.valuesFiles ?? []) args.push('--values', file);
  for (const [key, value] of Object.entries(options.set ?? {})) args.push('--set-json', `${key}=${JSON.stringify(value)}`);
  return args;
}

/** `helm template` output as helm prints it. */
export async function helmTemplateText(chartDir: string, options: HelmOptions = {}): Promise<string> {
  const capabilities = [...(options.kubeVersion ? ['--kube-version', options.kubeVersion] : []), ...(options.apiVersions ?? []).flatMap((version) => ['--api-versions', version])];
  const { stdout } = await run(helmBinary(), ['template', options.release ?? 'shaper', chartDir, '--namespace', options.namespace ?? 'shaper-system', ...capabilities, ...valueArgs(options)], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

export async function helmTemplate(chartDir: string, options: HelmOptions = {}): Promise<K8sObject[]> {
  return parseAllDocuments(await helmTemplateText(chartDir, options))
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`helm rendered invalid YAML: ${doc.errors[0]!.message}`);
      return doc.toJS() as K8sObject | null;
    })
    .filter((obj): obj is K8sObject => obj !== null);
}

export async function helmLint(chartDir: string, options: HelmOptions = {}): Promise<string> {
  const { stdout } = await run(helmBinary(), ['lint', '--strict', chartDir, ...valueArgs(options)]);
  return stdout;
}

export function findObject(objects: readonly K8sObject[], kind: string, name?: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (!found) throw new Error(`no ${kind}${name ? ` named ${name}` : ''} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
}

/** The environment the sample chart's Deployment gives the server container (NODE_OPTIONS and the rest), as helm renders it. */
export async function chartContainerEnv(chartDir: string, options: HelmOptions = {}): Promise<Record<string, string>> {
  const container = findObject(await helmTemplate(chartDir, options), 'Deployment').spec.template.spec.containers[0] as { env: { name: string; value: string }[] };
  return Object.fromEntries(container.env.map(({ name, value }) => [name, value]));
}
