/** The generated reference pages: where each is written, what renders it from the code, and which differ from the files. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chartContractPage } from './chart-contract.ts';
import { chartValuesPage } from './chart-values.ts';
import { cliPage } from './cli-reference.ts';
import { crdMarkersPage } from './crd-markers.ts';
import { decoratorOptionsPage } from './decorator-options.ts';
import { metricsPage } from './metrics.ts';
import { mutatingPolicyOptionsPage, policyOptionsPage } from './policy-options.ts';
import { serverConfigPage } from './server-config.ts';

export interface ReferencePage {
  /** Repository-relative path of the page. */
  readonly file: string;
  readonly content: string;
}

const PAGES: readonly { readonly file: string; readonly render: (root: string) => string | Promise<string> }[] = [
  { file: 'docs/reference/decorator-options.md', render: decoratorOptionsPage },
  { file: 'docs/reference/validating-policy-options.md', render: policyOptionsPage },
  { file: 'docs/reference/mutating-policy-options.md', render: mutatingPolicyOptionsPage },
  { file: 'docs/reference/cli.md', render: cliPage },
  { file: 'docs/reference/chart-values.md', render: chartValuesPage },
  { file: 'docs/reference/server-config.md', render: serverConfigPage },
  { file: 'docs/reference/metrics.md', render: metricsPage },
  { file: 'docs/reference/chart-contract.md', render: chartContractPage },
  { file: 'docs/reference/crd-markers.md', render: crdMarkersPage },
];

/** Every page as the code in `root` gives it now. */
export async function renderReferencePages(root: string): Promise<ReferencePage[]> {
  const pages: ReferencePage[] = [];
  for (const { file, render } of PAGES) pages.push({ file, content: await render(root) });
  return pages;
}

export interface DifferingPage {
  readonly file: string;
  readonly state: 'missing' | 'stale';
}

/** The pages whose file under `root` is missing or differs from `pages`. */
export function differingPages(pages: readonly ReferencePage[], root: string): DifferingPage[] {
  return pages.flatMap(({ file, content }): DifferingPage[] => {
    const target = path.join(root, file);
    if (!existsSync(target)) return [{ file, state: 'missing' }];
    return readFileSync(target, 'utf8') === content ? [] : [{ file, state: 'stale' }];
  });
}
