/**
 * The NODE_OPTIONS the chart gives the container, as `helm template` renders
 * them (its nodeOptions plus the heap it derives from resources.limits.memory),
 * so that every benchmark runs `serve` — and the floor beside it — as deployed.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function chartNodeOptions(repo: string): string[] {
  const cached = path.join(process.env.SHAPER_GEN_CACHE ?? path.join(os.homedir(), '.cache/shaper-gen'), 'bin/helm');
  for (const helm of ['helm', cached]) {
    const rendered = spawnSync(helm, ['template', 'bench', path.join(repo, 'charts/shaper-webhooks'), '--show-only', 'templates/deployment.yaml'], { encoding: 'utf8' });
    const options = /name: NODE_OPTIONS\s+value: "([^"]*)"/.exec(rendered.stdout || '')?.[1];
    if (options !== undefined) return options.split(' ').filter(Boolean);
  }
  const fromValues = /^nodeOptions:\s*"([^"]*)"/m.exec(readFileSync(path.join(repo, 'charts/shaper-webhooks/values.yaml'), 'utf8'))?.[1] ?? '';
  console.log(`bench: helm is not installed (scripts/install-helm.sh); using values.yaml's nodeOptions "${fromValues}" without the heap the chart derives from the memory limit`);
  return fromValues.split(' ').filter(Boolean);
}
