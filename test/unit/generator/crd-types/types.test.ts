/**
 * CRDs to TypeScript (crd-types/): a hand-made CRD with every schema feature
 * `create types` maps, compared as the complete modules; kopium's names and
 * their collisions; the CRD files refused, each at its file and line.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findCrdFiles, readCrdFiles } from '../../../../generator/src/crd-types/crd-files.js';
import { typesModules } from '../../../../generator/src/crd-types/modules.js';
import { constantCase, NameAllocator, pascalCase } from '../../../../generator/src/crd-types/type-names.js';
import { formatDiagnostic, sortDiagnostics } from '../../../../generator/src/diagnostics.js';
import { WIDGETS_CRD } from './widget-crd.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'shaper-gen-crd-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(relative: string, text: string): string {
  const file = path.join(dir, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/** The modules of the CRD files, or the problems as the CLI prints them. */
function generate(files: Record<string, string>) {
  const { crds, diagnostics } = readCrdFiles(Object.entries(files).map(([name, text]) => write(name, text)));
  const result = typesModules(crds, path.join(dir, 'src/api'), dir);
  return { ...result, problems: sortDiagnostics([...diagnostics, ...result.diagnostics]).map((diagnostic) => formatDiagnostic(diagnostic, dir)) };
}

describe('a CRD with every schema feature', () => {
  it('becomes one module per version, compared whole', () => {
    const { modules, problems } = generate({ 'crds/widgets.yaml': WIDGETS_CRD });
    expect(problems).toEqual([]);
    expect(modules).toEqual([
      { path: path.join(dir, 'src/api/example.com/v1.ts'), sources: ['crds/widgets.yaml'], kinds: ['Widget', 'WidgetSpecPart'], content: V1 },
      { path: path.join(dir, 'src/api/example.com/v1beta1.ts'), sources: ['crds/widgets.yaml'], kinds: ['Widget'], content: V1BETA1 },
    ]);
  });

  it('is the same text on every run, whatever the order the files are read in', () => {
    const [first, second] = WIDGETS_CRD.split('---\n').map((text, i) => write(`split/${i}.yaml`, text));
    const modules = (files: string[]) => typesModules(readCrdFiles(files).crds, path.join(dir, 'src/api'), dir).modules;
    const once = modules([first!, second!]);
    expect(modules([second!, first!])).toEqual(once);
    expect(modules([first!, second!])).toEqual(once);
  });
});

describe("kopium's names", () => {
  it('are the enclosing name and the field in PascalCase, each word raised and the rest kept', () => {
    expect(['privateKey', 'x-kubernetes-list', 'emailSANs', 'ipv4', '$ref', '-'].map(pascalCase)).toEqual(['PrivateKey', 'XKubernetesList', 'EmailSANs', 'Ipv4', 'Ref', 'Field']);
    expect(['certificates', 'foo-bars'].map(constantCase)).toEqual(['CERTIFICATES', 'FOO_BARS']);
  });

  it('take the first free number when taken, and a suffix first where one is given', () => {
    const names = new NameAllocator(['GROUP']);
    expect([names.claim('A'), names.claim('A'), names.claim('A'), names.claim('GROUP', '_RESOURCE'), names.claim('GROUP', '_RESOURCE')]).toEqual([
      'A',
      'A2',
      'A3',
      'GROUP_RESOURCE',
      'GROUP_RESOURCE2',
    ]);
  });
});

describe('CRD files refused', () => {
  it('names the file and line of each document that is not an apiextensions.k8s.io/v1 CRD, and of a kind defined twice', () => {
    const crd = (name: string, apiVersion = 'apiextensions.k8s.io/v1') =>
      `apiVersion: ${apiVersion}\nkind: CustomResourceDefinition\nspec:\n  group: example.com\n  names: { kind: ${name}, plural: ${name.toLowerCase()}s }\n  versions: [{ name: v1 }]\n`;
    expect(
      generate({
        'bad/mixed.yaml': `${crd('Gadget')}---\napiVersion: v1\nkind: ConfigMap\n---\n${crd('Old', 'apiextensions.k8s.io/v1beta1')}`,
        'bad/again.yaml': crd('Gadget'),
        'bad/broken.yaml': 'spec: [\n',
      }).problems,
    ).toEqual([
      'bad/again.yaml:1:1: kind Gadget of example.com is also defined at bad/mixed.yaml:1: give each CRD once',
      'bad/again.yaml:1:1: resource gadgets of example.com is also defined at bad/mixed.yaml:1: give each CRD once',
      'bad/broken.yaml:2:1: cannot read this CRD file: Flow sequence in block collection must be sufficiently indented and end with a ]',
      'bad/mixed.yaml:8:1: not a CustomResourceDefinition with spec.group, spec.names.kind, spec.names.plural and spec.versions: list only CRD files (the `crds` and `types` of shaper.yaml, `create types --from`)',
      "bad/mixed.yaml:11:1: a CustomResourceDefinition of apiextensions.k8s.io/v1beta1: only apiextensions.k8s.io/v1 is read (v1beta1 was removed in Kubernetes 1.22; regenerate it, e.g. with controller-gen's crd:crdVersions=v1)",
    ]);
  });

  it("finds a directory's *.yaml and *.yml files, and says which entries name nothing", async () => {
    write('found/a.yaml', '');
    write('found/b.yml', '');
    write('found/readme.md', '');
    write('found/nested/c.yaml', '');
    expect(await findCrdFiles(dir, ['found', 'found/a.yaml', 'missing.yaml', 'found/*.json'])).toEqual({
      files: [path.join(dir, 'found/a.yaml'), path.join(dir, 'found/b.yml')],
      unmatched: ['missing.yaml', 'found/*.json'],
    });
  });
});

const V1 = `// Generated by \`shaper-gen create types\` from crds/widgets.yaml: do not edit.
// \`shaper-gen manifests\` rewrites it when they change (the \`types\` of shaper.yaml list them), and \`manifests --check\` fails until it has.

import type { CachedResource, ObjectMeta } from 'shaper-gen';

/** The API group of the kinds below. */
export const GROUP = 'example.com';
/** Their version. */
export const VERSION = 'v1';
/** The \`apiVersion\` of their objects. */
export const API_VERSION = 'example.com/v1';

/** The widgets resource (Widget, namespaced): for the rules of \`@Webhook\` and \`@ValidatingPolicy\` (\`resources: [WIDGETS.resource]\`) and \`ctx.cache\`. */
export const WIDGETS: CachedResource = { group: GROUP, version: VERSION, resource: 'widgets' };

/** The parts resource (WidgetSpecPart, cluster-scoped): for the rules of \`@Webhook\` and \`@ValidatingPolicy\` (\`resources: [PARTS.resource]\`) and \`ctx.cache\`. */
export const PARTS: CachedResource = { group: GROUP, version: VERSION, resource: 'parts' };

/**
 * A widget.
 *
 * Widget example.com/v1 (widgets.example.com, served, the storage version), from crds/widgets.yaml.
 */
export interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  /**
   * What the widget should be.
   * Comments end with *\\/ in C.
   */
  spec?: WidgetSpec;
  status?: WidgetStatus;
}

/**
 * What the widget should be.
 * Comments end with *\\/ in C.
 */
export interface WidgetSpec {
  size: number;
  ratio?: number;
  enabled?: boolean;
  since?: string;
  mode?: 'Fast' | 'Slow' | "it's";
  level?: 'low' | 'high' | null;
  port?: number | string;
  /** A set (\`x-kubernetes-list-type: set\`): no item appears twice. */
  tags?: string[];
  matrix?: number[][];
  usages?: ('a' | 'b')[];
  /**
   * The ports.
   *
   * A list map (\`x-kubernetes-list-type: map\`) keyed by \`name\`, \`protocol\`: no two items have the same key, and server-side apply merges items by it.
   */
  ports?: WidgetSpecPorts[];
  labels?: { [key: string]: string };
  limits?: { [key: string]: number | string };
  backends?: { [key: string]: WidgetSpecBackends };
  anything?: { [key: string]: unknown };
  raw?: { [key: string]: unknown };
  extra?: WidgetSpecExtra;
  template?: WidgetSpecTemplate;
  pod?: WidgetSpecPod;
  empty?: { [key: string]: never };
  untyped?: unknown;
  owner?: WidgetSpecOwner | null;
  'x-custom'?: string;
  part?: WidgetSpecPart2;
  fooBar?: WidgetSpecFooBar;
  foo?: WidgetSpecFoo;
}

export interface WidgetSpecPorts {
  name: string;
  protocol?: string;
}

export interface WidgetSpecBackends {
  url?: string;
}

export interface WidgetSpecExtra {
  known?: string;
  /** Fields the schema does not declare are kept (\`x-kubernetes-preserve-unknown-fields\`). */
  [field: string]: unknown;
}

export interface WidgetSpecTemplate {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  /** Fields the schema does not declare are kept (\`x-kubernetes-preserve-unknown-fields\`). */
  [field: string]: unknown;
}

export interface WidgetSpecPod {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: WidgetSpecPodSpec;
}

export interface WidgetSpecPodSpec {
  nodeName?: string;
}

export interface WidgetSpecOwner {
  name?: string;
}

export interface WidgetSpecPart2 {
  id?: string;
}

export interface WidgetSpecFooBar {
  a?: string;
}

export interface WidgetSpecFoo {
  bar?: WidgetSpecFooBar2;
}

export interface WidgetSpecFooBar2 {
  b?: string;
}

export interface WidgetStatus {
  ready?: boolean;
}

/** WidgetSpecPart example.com/v1 (parts.example.com, served, the storage version), from crds/widgets.yaml. */
export interface WidgetSpecPart {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: WidgetSpecPartSpec;
}

export interface WidgetSpecPartSpec {
  serial?: string;
}
`;

const V1BETA1 = `// Generated by \`shaper-gen create types\` from crds/widgets.yaml: do not edit.
// \`shaper-gen manifests\` rewrites it when they change (the \`types\` of shaper.yaml list them), and \`manifests --check\` fails until it has.

import type { CachedResource, ObjectMeta } from 'shaper-gen';

/** The API group of the kinds below. */
export const GROUP = 'example.com';
/** Their version. */
export const VERSION = 'v1beta1';
/** The \`apiVersion\` of their objects. */
export const API_VERSION = 'example.com/v1beta1';

/** The widgets resource (Widget, namespaced): for the rules of \`@Webhook\` and \`@ValidatingPolicy\` (\`resources: [WIDGETS.resource]\`) and \`ctx.cache\`. */
export const WIDGETS: CachedResource = { group: GROUP, version: VERSION, resource: 'widgets' };

/**
 * Widget example.com/v1beta1 (widgets.example.com, served), from crds/widgets.yaml.
 * @deprecated example.com/v1beta1 Widget is deprecated; use example.com/v1
 */
export interface Widget {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: WidgetSpec;
}

export interface WidgetSpec {
  size?: number;
}
`;
