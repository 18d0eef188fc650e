/**
 * `manifests --static <dir>`: the project's webhooks and policies as files
 * for kube-apiserver's staticManifestsDir (manifest-based admission,
 * Kubernetes 1.37), one directory per admission plugin and one file per
 * object (a policy with its binding), named by the object.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from 'shaper-gen/internal/generator';
import type { Templates } from '../chart/render.js';
import { diagnosticIn } from '../diagnostics.js';
import type { GeneratedFile } from '../manifests/output.js';
import type { DecoratedPolicy } from '../policy/scan-policy.js';
import type { DecoratedWebhook } from '../webhook/scan-webhook.js';
import { STATIC_SUFFIX } from './names.js';
import { STATIC_PLUGINS, staticPolicyModels, staticWebhookModels, type StaticKind } from './model.js';
import type { StaticSettings } from './settings.js';

export interface StaticOutput {
  /** Absolute; its subdirectories are the plugins' staticManifestsDir. */
  readonly dir: string;
  readonly settings: StaticSettings;
}

export interface StaticDeclarations {
  readonly webhooks: readonly DecoratedWebhook[];
  readonly policies: readonly DecoratedPolicy[];
  readonly chartName: string;
  readonly root: string;
  /** Where a missing URL is to be set. */
  readonly configFile: string;
}

export function staticAdmissionFiles(declared: StaticDeclarations, templates: Templates, output: StaticOutput): { files: GeneratedFile[]; obsolete: string[] } {
  const { url } = output.settings;
  if (declared.webhooks.length > 0 && url === undefined) {
    throw new ConfigError(
      [diagnosticIn(declared.configFile, 'static admission calls webhooks by URL, not through a Service: set --static-url https://<host>:<port> or static.url in shaper.yaml')],
      'static admission',
    );
  }
  const render: Readonly<Record<StaticKind, Templates[keyof Templates]>> = {
    MutatingWebhookConfiguration: templates.staticWebhookConfiguration,
    ValidatingWebhookConfiguration: templates.staticWebhookConfiguration,
    MutatingAdmissionPolicy: templates.staticMutatingPolicy,
    ValidatingAdmissionPolicy: templates.staticValidatingPolicy,
  };
  const objects = [
    ...(url === undefined ? [] : staticWebhookModels(declared.webhooks, { ...output.settings, url }, declared.chartName, declared.root)),
    ...staticPolicyModels(declared.policies, 'mutating', declared.chartName, declared.root),
    ...staticPolicyModels(declared.policies, 'validating', declared.chartName, declared.root),
  ];
  const files = objects.map(({ kind, name, model }) => ({ path: path.join(output.dir, STATIC_PLUGINS[kind].directory, `${name}.yaml`), content: render[kind](model) }));
  return { files, obsolete: obsoleteStaticFiles(output.dir, files) };
}

/** Static files of an earlier run whose object is no longer declared. */
function obsoleteStaticFiles(dir: string, files: readonly GeneratedFile[]): string[] {
  const current = new Set(files.map((file) => file.path));
  return Object.values(STATIC_PLUGINS).flatMap(({ directory }) => {
    const folder = path.join(dir, directory);
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return [];
    }
    return names
      .filter((name) => name.endsWith(`${STATIC_SUFFIX}.yaml`))
      .map((name) => path.join(folder, name))
      .filter((file) => !current.has(file))
      .sort();
  });
}
