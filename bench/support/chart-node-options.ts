/**
 * How the chart runs the server process, as `helm template` renders its
 * Deployment: the NODE_OPTIONS (its nodeOptions plus the heap it derives from
 * resources.limits.memory) and the rest of the container's environment, so
 * that every benchmark runs `serve` — and the floor beside it — as deployed.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

/** The container's env entries, or undefined when helm is missing. */
function renderedContainerEnv(repo: string): Record<string, string> | undefined {
  const cached = path.join(process.env.SHAPER_GEN_CACHE ?? path.join(os.homedir(), '.cache/shaper-gen'), 'bin/helm');
  for (const helm of ['helm', cached]) {
    const rendered = spawnSync(helm, ['template', 'bench', path.join(repo, 'charts/shaper-webhooks'), '--show-only', 'templates/deployment.yaml'], { encoding: 'utf8' });
    if (rendered.status !== 0 || !rendered.stdout) continue;
    const deployment = parseAllDocuments(rendered.stdout)[0]!.toJS() as { spec: { template: { spec: { containers: { env?: { name: string; value: string }[] }[] } } } };
    return Object.fromEntries((deployment.spec.template.spec.containers[0]!.env ?? []).map(({ name, value }) => [name, value]));
  }
  return undefined;
}

/** The chart's NODE_OPTIONS as node flags. */
export function chartNodeOptions(repo: string): string[] {
  const options = renderedContainerEnv(repo)?.NODE_OPTIONS;
  if (options !== undefined) return options.split(' ').filter(Boolean);
  const fromValues = /^nodeOptions:\s*"([^"]*)"/m.exec(readFileSync(path.join(repo, 'charts/shaper-webhooks/values.yaml'), 'utf8'))?.[1] ?? '';
  console.log(`bench: helm is not installed (scripts/install-helm.sh); using values.yaml's nodeOptions "${fromValues}" without the heap the chart derives from the memory limit`);
  return fromValues.split(' ').filter(Boolean);
}

/** The process environment plus the chart's container environment other than NODE_OPTIONS (which chartNodeOptions gives as flags). */
export function chartProcessEnv(repo: string): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _flags, ...rest } = renderedContainerEnv(repo) ?? {};
  return { ...process.env, ...rest };
}
