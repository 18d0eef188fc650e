/**
 * The CRD validateCustomResource builds from a kind of the project's TypeScript
 * sources (generator/src/crd/crd-object.ts) is the CRD the chart installs:
 * each of the sample's kinds compared whole with what helm renders from the
 * template `shaper-gen manifests` generated, but for the chart's labels and
 * annotations and the conversion webhook, which no in-process request calls.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGeneratorConfig } from '../../../generator/src/config.js';
import { sources } from '../../../generator/src/create/run-create-api.js';
import { customResourceDefinition } from '../../../generator/src/crd/crd-object.js';
import { scanCustomResources } from '../../../generator/src/crd/generate.js';
import { REPO_ROOT } from '../../../support/repo-root.js';
import { helmTemplate } from '../../support/helm.js';

describe('customResourceDefinition', () => {
  it("is the sample chart's CRD of each kind, without its labels, annotations and conversion webhook", async () => {
    const config = loadGeneratorConfig(undefined, REPO_ROOT);
    const scan = scanCustomResources(config.tsconfig, await sources(config), config.root);
    const rendered = (await helmTemplate(path.join(REPO_ROOT, 'charts/shaper-webhooks'))).filter((object) => object.kind === 'CustomResourceDefinition');
    const installed = rendered.map((crd) => {
      const { conversion: _conversion, ...spec } = crd.spec as Record<string, unknown>;
      return { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: crd.metadata.name }, spec };
    });
    expect(installed.map((crd) => crd.metadata.name)).toEqual(['assignments.shaper.io', 'profiles.shaper.io']);
    expect(scan.crds.map(customResourceDefinition).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))).toEqual(installed);
  });
});
