/**
 * Extracts the Kubernetes API's component schemas that shaper-gen needs from
 * the OpenAPI v3 documents Kubernetes publishes (api/openapi-spec/v3 of
 * k8s.io/kubernetes at the pinned KUBERNETES_VERSION, read from the Go module
 * cache) into generator/kubernetes-schemas/v<minor>.json: users'
 * machines have no Go, so the generator ships this data.
 *
 *   node scripts/kubernetes-schemas/extract.ts          write the file
 *   node scripts/kubernetes-schemas/extract.ts --check  exit 1 when it is not current
 *
 * Kept: the definitions of io.k8s.api.* at GA versions (v1, v2: beta APIs are
 * off by default since Kubernetes 1.24, alpha ones always) and of
 * io.k8s.apimachinery.*, and what they reference — everything a GA built-in
 * kind is made of; resources of beta and alpha versions are left out. Left out:
 * apiextensions (JSONSchemaProps is recursive, it has no structural schema)
 * and the aggregator's. Of each schema, what a CRD or a CEL type is made of;
 * `allOf: [{$ref}]` is written `$ref` (the name alone) beside its description
 * and default; merge-patch and union extensions and GVK tags are dropped.
 * Also written: the resources of the kept kinds (`apps/v1/deployments` →
 * definition) and the model names @kubernetes/client-node gives them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const REF_PREFIX = '#/components/schemas/';
const DROPPED = new Set(['x-kubernetes-group-version-kind', 'x-kubernetes-patch-merge-key', 'x-kubernetes-patch-strategy', 'x-kubernetes-unions']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = Record<string, Json>;

interface OpenApiDocument {
  paths?: Record<string, Record<string, JsonObject>>;
  components?: { schemas?: Record<string, JsonObject> };
}

/** The pinned Kubernetes version (scripts/cluster/versions.env). */
export function pinnedKubernetesVersion(): string {
  const line = readFileSync(path.join(ROOT, 'scripts/cluster/versions.env'), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('KUBERNETES_VERSION='));
  if (!line) throw new Error('scripts/cluster/versions.env has no KUBERNETES_VERSION');
  return line.slice('KUBERNETES_VERSION='.length).trim();
}

/** generator/kubernetes-schemas/v1.37.json for v1.37.2. */
export function schemasFile(version: string): string {
  const minor = /^v(\d+\.\d+)\./.exec(version)?.[1];
  if (!minor) throw new Error(`not a Kubernetes version: ${version}`);
  return path.join(ROOT, 'generator/kubernetes-schemas', `v${minor}.json`);
}

/** The OpenAPI v3 directory of k8s.io/kubernetes@version in the Go module cache, downloaded when missing. */
export function specDirectory(version: string): string {
  const cache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
  const dir = path.join(cache, `k8s.io/kubernetes@${version}`, 'api/openapi-spec/v3');
  if (!existsSync(dir)) execFileSync('go', ['mod', 'download', '-json', `k8s.io/kubernetes@${version}`], { stdio: ['ignore', 'ignore', 'inherit'], cwd: path.join(ROOT, 'scripts') });
  if (!existsSync(dir)) throw new Error(`${dir} is missing after go mod download`);
  return dir;
}

function isGeneralAvailability(name: string): boolean {
  if (name.startsWith('io.k8s.apimachinery.')) return true;
  return name.startsWith('io.k8s.api.') && /^v\d+$/.test(name.split('.').at(-2)!);
}

/** The GA definitions and those they reference (a GA field may hold an alpha type: batch/v1 Job's schedulingConfiguration). */
function keptDefinitions(definitions: ReadonlyMap<string, Json>): Set<string> {
  const kept = new Set<string>();
  const visit = (name: string): void => {
    if (kept.has(name) || !definitions.has(name)) return;
    kept.add(name);
    for (const match of JSON.stringify(definitions.get(name)).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) visit(match[1]!);
  };
  for (const name of [...definitions.keys()].sort()) if (isGeneralAvailability(name)) visit(name);
  return kept;
}

/** A schema as stored: `$ref` names, dropped extensions. */
function compact(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(compact);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonObject = {};
  const allOf = schema.allOf;
  if (Array.isArray(allOf) && allOf.length === 1 && isRef(allOf[0]!)) out.$ref = refName(allOf[0]);
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key) || (key === 'allOf' && out.$ref !== undefined)) continue;
    if (key === '$ref' && typeof value === 'string') out.$ref = value.slice(REF_PREFIX.length);
    else if (key === 'properties' && value && typeof value === 'object' && !Array.isArray(value))
      out.properties = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, compact(property)]));
    else out[key] = compact(value);
  }
  return out;
}

function isRef(value: Json): value is { $ref: string } {
  return !!value && typeof value === 'object' && !Array.isArray(value) && typeof value.$ref === 'string';
}

function refName(value: { $ref: string }): string {
  return value.$ref.slice(REF_PREFIX.length);
}

/**
 * The model names kubernetes-client/gen gives definitions (its
 * preprocess_spec.py remove_model_prefixes): the last two dotted parts,
 * one more for every name that would clash, camel-cased by the TypeScript
 * generator (`core.v1.Event` → CoreV1Event, `v1.PodSpec` → V1PodSpec).
 */
export function clientNodeNames(definitions: readonly string[]): Map<string, string> {
  const parts = new Map(definitions.filter((name) => name.startsWith('io.k8s')).map((name) => [name, 2]));
  for (;;) {
    const short = new Map<string, string[]>();
    for (const [name, count] of parts) {
      const key = name.split('.').slice(-count).join('.');
      short.set(key, [...(short.get(key) ?? []), name]);
    }
    const clashing = [...short.values()].filter((names) => names.length > 1).flat();
    if (clashing.length === 0) break;
    for (const name of clashing) parts.set(name, parts.get(name)! + 1);
  }
  const names = new Map<string, string>();
  for (const [name, count] of parts) {
    const model = name
      .split('.')
      .slice(-count)
      .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
      .join('');
    names.set(model, name);
  }
  return names;
}

/** `group/version/resource` → definition, from the create (post) operations of each kind's collection path. */
function resourcesOf(documents: readonly OpenApiDocument[], kept: ReadonlySet<string>): Map<string, string> {
  const resources = new Map<string, string>();
  const collection = /^\/(?:api|apis\/([^/]+))\/([^/]+)\/(?:namespaces\/\{namespace\}\/)?([^/{]+)$/;
  for (const document of documents) {
    for (const [route, item] of Object.entries(document.paths ?? {})) {
      const match = collection.exec(route);
      const body = item.post?.requestBody;
      if (!match || !body || typeof body !== 'object' || Array.isArray(body)) continue;
      const content = body.content as Record<string, { schema?: Json }> | undefined;
      const schema = content?.['application/json']?.schema ?? content?.['*/*']?.schema;
      if (!schema || !isRef(schema) || !kept.has(refName(schema))) continue;
      resources.set(`${match[1] ?? ''}/${match[2]!}/${match[3]!}`, refName(schema));
    }
  }
  return resources;
}

function sorted<T>(entries: Iterable<[string, T]>): [string, T][] {
  return [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The file's text: a header, then one definition a line (diffs stay readable, the file compact). */
export function extract(specDir: string, version: string): string {
  const documents = readdirSync(specDir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => JSON.parse(readFileSync(path.join(specDir, file), 'utf8')) as OpenApiDocument);
  const definitions = new Map<string, Json>();
  // Every document repeats the apimachinery schemas it uses; the first (alphabetically: the core group's) is kept.
  for (const document of documents) for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) if (!definitions.has(name)) definitions.set(name, schema);
  const kept = keptDefinitions(definitions);
  const models = sorted([...clientNodeNames([...definitions.keys()])].filter(([, name]) => kept.has(name)));
  const resources = sorted(resourcesOf(documents, kept));
  const lines = [
    '{',
    `"source": ${JSON.stringify(`k8s.io/kubernetes@${version} api/openapi-spec/v3, extracted by scripts/kubernetes-schemas/extract.ts (npm run kubernetes-schemas); do not edit`)},`,
    `"kubernetesVersion": ${JSON.stringify(version)},`,
    `"resources": ${JSON.stringify(Object.fromEntries(resources))},`,
    `"clientNodeModels": ${JSON.stringify(Object.fromEntries(models))},`,
    '"definitions": {',
    sorted([...definitions].filter(([name]) => kept.has(name)))
      .map(([name, schema]) => `${JSON.stringify(name)}: ${JSON.stringify(compact(schema))}`)
      .join(',\n'),
    '}',
    '}',
    '',
  ];
  return lines.join('\n');
}

function main(): void {
  const version = pinnedKubernetesVersion();
  const file = schemasFile(version);
  const text = extract(specDirectory(version), version);
  const relative = path.relative(ROOT, file);
  if (process.argv.includes('--check')) {
    const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (current === text) return;
    process.stderr.write(`${relative} is not current for Kubernetes ${version}: run npm run kubernetes-schemas\n`);
    process.exitCode = 1;
    return;
  }
  writeFileSync(file, text);
  process.stdout.write(`wrote ${relative} (${text.length} bytes) from k8s.io/kubernetes@${version}\n`);
}

if (import.meta.filename === process.argv[1]) main();
