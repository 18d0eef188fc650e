/** `serve --dev`'s staleness check after the real `shaper-gen manifests`, as `shaper-gen dev` runs them. */
import { rmSync, utimesSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runManifests } from '../../../../generator/src/manifests/run-manifests.js';
import { staleHandlersWarnings } from '../../../../runtime/server/stale-handlers.js';
import { createFixtureProject, type FixtureProject } from '../../../support/fixture-project.js';

const validator = (body: string) => `import { Webhook } from 'shaper-gen';
@Webhook({ path: '/validate-profile', mutating: false, rules: [{ groups: ['shaper.io'], versions: ['v1alpha1'], resources: ['profiles'], operations: ['CREATE'] }] })
export class ProfileValidator { validateCreate() { ${body} } }
`;
const COMPILED = 'dist/webhooks.generated.js';

let project: FixtureProject;
const secondsAgo = (file: string, seconds: number) => {
  const at = Date.now() / 1000 - seconds;
  utimesSync(project.file(file), at, at);
};
/** `shaper-gen manifests`, then the build's output written after it. */
const generateAndBuild = async () => {
  expect(await runManifests({}, project.dir)).toBe(0);
  project.write(COMPILED, 'export const webhooks = [];\n');
};

beforeEach(() => {
  project = createFixtureProject({ 'src/profile-validator.ts': validator(''), 'src/util.ts': 'export const x = 1;\n' });
  vi.spyOn(console, 'log').mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
  project.remove();
});

describe('serve --dev on stale handlers', () => {
  it('says nothing right after generating, also when the handlers module was left unchanged with its old time', async () => {
    await generateAndBuild();
    expect(staleHandlersWarnings([COMPILED], project.dir)).toEqual([]);

    // An edit that leaves the module's text as it was: manifests does not rewrite it, so it keeps its old time.
    secondsAgo('src/webhooks.generated.ts', 60);
    project.write('src/profile-validator.ts', validator('return [];'));
    await generateAndBuild();
    expect(staleHandlersWarnings([COMPILED], project.dir)).toEqual([]);
  });

  it('names each source changed, added or removed since generation, whatever the times say', async () => {
    await generateAndBuild();
    project.write('src/profile-validator.ts', validator('return [];'));
    project.write('src/added.ts', 'export const y = 2;\n');
    secondsAgo('src/added.ts', 600);
    rmSync(project.file('src/util.ts'));
    expect(staleHandlersWarnings([COMPILED], project.dir)).toEqual([
      'src/added.ts, src/profile-validator.ts, src/util.ts changed since src/webhooks.generated.ts was generated: if @Webhook options changed, run shaper-gen manifests and rebuild (shaper-gen dev does both)',
    ]);
  });

  it('names a compiled module older than the generated one', async () => {
    await generateAndBuild();
    secondsAgo(COMPILED, 60);
    expect(staleHandlersWarnings([COMPILED], project.dir)).toEqual([`${COMPILED} is older than src/webhooks.generated.ts: rebuild (npm run build)`]);
  });

  it('says when the handlers module was never generated, and nothing outside a project or without a record of the inputs', async () => {
    expect(staleHandlersWarnings([], project.dir)).toEqual(['src/webhooks.generated.ts does not exist: run shaper-gen manifests (or shaper-gen dev)']);
    project.write('src/webhooks.generated.ts', 'export const webhooks = [];\n');
    expect(staleHandlersWarnings([], project.dir)).toEqual([]);
    expect(staleHandlersWarnings([], project.file('src'))).toEqual([]);
  });
});
