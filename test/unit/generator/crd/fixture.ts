/** A throwaway project with API types, scanned for CRDs as `shaper-gen manifests` scans them. */
import path from 'node:path';
import { scanCustomResources, type CrdScan } from '../../../../generator/src/crd/generate.js';
import { formatDiagnostic } from '../../../../generator/src/diagnostics.js';
import { EXAMPLE_GROUP } from '../../../support/crd-fixture-sources.js';
import { createFixtureProject, type FixtureProject } from '../../../support/fixture-project.js';

/** Scans `files` (paths under the project root; src/api/group.ts is added unless given). */
export function scanProject(files: Record<string, string>): CrdScan & { project: FixtureProject; messages: string[] } {
  const project = createFixtureProject({ 'src/api/group.ts': EXAMPLE_GROUP, ...files });
  const names = Object.keys({ 'src/api/group.ts': '', ...files });
  const result = scanCustomResources(project.file('tsconfig.json'), names.map((name) => project.file(name)).sort(), project.dir);
  const messages = result.diagnostics.map((d) => formatDiagnostic(d, project.dir));
  return { ...result, project, messages };
}

export function relative(project: FixtureProject, file: string): string {
  return path.relative(project.dir, file);
}

const HEAD = "import type { KubernetesObject } from 'shaper-gen';\n";

/** A kind whose spec has the given members, the first on line 5. */
export function kindWithSpec(...members: string[]): string {
  return `${HEAD}/** @shaper:resource */\nexport interface Thing extends KubernetesObject {\n  spec?: {\n${members.map((m) => `    ${m}`).join('\n')}\n  };\n}\n`;
}
