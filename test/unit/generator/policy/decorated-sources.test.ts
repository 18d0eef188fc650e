/**
 * A decorated policy class as `admit` takes it is exactly what the chart
 * installs by default: the sample's policies rendered plainly
 * (decorated-sources.ts) equal the same policies from `shaper-gen
 * manifests` and `helm template`, labels aside (plain rendering has none).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { decoratedPolicyYaml } from '../../../../generator/src/policy/evaluate/decorated-sources.js';
import { AssignmentProfileLabelPolicy } from '../../../../sample/policies/assignment-profile-label-policy.js';
import { ProfileDescriptionPolicy } from '../../../../sample/policies/profile-description-policy.js';
import { ProfileTierPolicy } from '../../../../sample/policies/profile-tier-policy.js';
import { TierLabelPolicy } from '../../../../sample/policies/tier-label-policy.js';
import { generatePolicyChart } from '../../../cluster/policy-differential/cluster.js';

const POLICY_KINDS = ['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding'];

interface Obj {
  kind: string;
  metadata: { name: string; labels?: unknown };
}

const withoutLabels = (objects: Obj[]) =>
  objects
    .filter((o) => POLICY_KINDS.includes(o.kind))
    .map(({ metadata: { labels: _labels, ...metadata }, ...rest }) => ({ ...rest, metadata }))
    .sort((a, b) => `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`));

describe('decorated policy classes as admit takes them', () => {
  it('are the objects helm renders from the generated chart', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'decorated-sources-'));
    try {
      const { objects } = await generatePolicyChart(dir, 'sample/policies/*-policy.ts', '1.37.2');
      const plain = parseAllDocuments(await decoratedPolicyYaml([AssignmentProfileLabelPolicy, ProfileDescriptionPolicy, ProfileTierPolicy, TierLabelPolicy]))
        .map((d) => d.toJS() as Obj | null)
        .filter((o): o is Obj => o !== null);
      expect(withoutLabels(plain)).toEqual(withoutLabels(objects as unknown as Obj[]));
      expect(plain.length).toBe(8);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
