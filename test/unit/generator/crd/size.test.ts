/**
 * A CRD near what the API server stores: a warning at the kind, naming its
 * largest fields and @shaper:maxDescLen, which generation does not stop for;
 * the same kind with its descriptions dropped has none.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../../../generator/src/diagnostics.js';
import { crdSize, CRD_SIZE_WARNING } from '../../../../generator/src/crd/size.js';
import { scanProject } from './fixture.js';

const removals: (() => void)[] = [];
afterAll(() => {
  for (const remove of removals) remove();
});

/** A kind whose spec holds two pod templates (each about half a MiB with its descriptions), with `markers` on the kind. */
function twoTemplates(...markers: string[]) {
  const result = scanProject({
    'src/api/thing.ts': `import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import type { KubernetesObject } from 'shaper-gen';
/**
 * @shaper:resource
${markers.map((marker) => ` * ${marker}\n`).join('')} */
export interface Thing extends KubernetesObject {
  spec: { primary: V1PodTemplateSpec; canary?: V1PodTemplateSpec };
}
`,
  });
  removals.push(() => result.project.remove());
  return { ...result, warnings: result.warnings.map((w) => formatDiagnostic(w, result.project.dir)) };
}

describe('the size of a generated CRD', () => {
  it('over a third of etcd’s 1.5 MiB request limit (two pod templates): a warning at @shaper:resource naming the largest fields and @shaper:maxDescLen; the CRD is still generated', () => {
    const { crds, messages, warnings } = twoTemplates();
    expect(messages).toEqual([]);
    expect(crds.map((crd) => crd.name)).toEqual(['things.example.com']);
    const size = crdSize(crds[0]!);
    expect(size.bytes).toBeGreaterThan(CRD_SIZE_WARNING);
    expect(size.largest.map((field) => field.path)).toEqual(['spec.canary.spec', 'spec.primary.spec']);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^src\/api\/thing\.ts:4:4: warning: the CRD things\.example\.com is \d+ KiB as JSON, over a third of the 1\.50 MiB etcd stores in one request \(a server-side apply's managedFields can double it\); its largest fields: spec\.canary\.spec \(\d+ KiB\), spec\.primary\.spec \(\d+ KiB\): shorten their descriptions with @shaper:maxDescLen \(0 drops them\) on those fields or on the kind, or declare fewer versions$/,
      ),
    ]);
  });

  it('under it with the descriptions dropped: no warning', () => {
    const { crds, messages, warnings } = twoTemplates('@shaper:maxDescLen 0');
    expect(messages).toEqual([]);
    expect(crdSize(crds[0]!).bytes).toBeLessThan(CRD_SIZE_WARNING);
    expect(warnings).toEqual([]);
  });
});
