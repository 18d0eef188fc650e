/**
 * What `shaper-gen create api` writes, decided from the request and the API
 * packages and kinds the project already declares (read by the CRD scan):
 *
 * - the API package's directory: --dir, else the one that declares the group
 *   and version, else `src/api/<group's first label>/<version>/`, with a
 *   `groupversion.ts` declaring them when no file there does;
 * - the kind's interface, `<kind in lower case>.ts`, its @shaper:resource
 *   names and scope copied from the kind's other versions, which must agree;
 * - with --validator / --defaulter, a webhook and its test under
 *   `src/webhooks/<group's first label>/<version>/`, importing the package's
 *   own group and version consts.
 *
 * Every refusal is a CreateApiError of one line; nothing is decided twice.
 */
import path from 'node:path';
import { pluralize } from '../crd/api-names.js';
import { where, type ApiPackage, type Declared } from '../crd/api-packages.js';
import type { KindVersion } from '../crd/kinds.js';
import type { ResourceNames, Scope } from '../crd/types.js';
import { scaffoldText } from '../init/scaffold.js';
import { loadTypeScript } from '../typescript/compiler.js';
import { CreateApiError, type ApiRequest } from './api-request.js';

export interface PlannedFile {
  /** Absolute. */
  readonly path: string;
  readonly content: string;
}

export interface ApiPlan {
  readonly kind: string;
  readonly group: string;
  readonly version: string;
  readonly scope: Scope;
  readonly plural: string;
  readonly kindFile: string;
  readonly files: readonly PlannedFile[];
  /** The kind's versions declared before this one, each with where. */
  readonly otherVersions: readonly { readonly version: string; readonly at: string }[];
}

export interface Declarations {
  readonly packages: readonly ApiPackage[];
  readonly kinds: readonly KindVersion[];
}

export function planApi(request: ApiRequest, declared: Declarations, root: string, cwd: string): ApiPlan {
  const { group, version, kind } = request;
  const versions = declared.kinds.filter((k) => k.group === group && k.names.kind === kind);
  const same = versions.find((k) => k.version.name === version);
  if (same) throw new CreateApiError(`${kind} ${group}/${version} is already declared at ${where(root, same.marker)}; pass another --version to add a version of it`);
  const { names, scope } = kindNames(request, versions[0], root);
  const clash = declared.kinds.find((k) => k.group === group && k.names.kind !== kind && k.names.plural === names.plural);
  if (clash) throw new CreateApiError(`${clash.names.kind} (${where(root, clash.marker)}) already has the plural ${JSON.stringify(names.plural)} in ${group}; pass --plural with another one`);

  const groupLabel = group.split('.')[0]!;
  const packageDir = packageDirectory(request, declared.packages, path.join(root, 'src', 'api', groupLabel, version), root, cwd);
  const existing = declared.packages.find((p) => p.directory === packageDir);
  const groupConsts = existing ? declaredConsts(existing, request, packageDir, root) : undefined;
  const lower = kind.toLowerCase();
  const kindFile = path.join(packageDir, `${lower}.ts`);
  const files: PlannedFile[] = [];
  if (!groupConsts) files.push({ path: path.join(packageDir, 'groupversion.ts'), content: scaffoldText('api/groupversion.ts', { GROUP: group, VERSION: version }) });
  files.push({ path: kindFile, content: scaffoldText('api/kind.ts', { KIND: kind, GROUP: group, VERSION: version, RESOURCEMARKER: resourceMarker(names, scope) }) });

  const webhooks = [...(request.validator ? (['validator'] as const) : []), ...(request.defaulter ? (['defaulter'] as const) : [])];
  if (webhooks.length > 0) {
    const webhookDir = path.join(root, 'src', 'webhooks', groupLabel, version);
    const consts = groupConsts ?? { group: { name: 'GROUP', file: files[0]!.path }, version: { name: 'VERSION', file: files[0]!.path } };
    const values = {
      KIND: kind,
      GROUP: group,
      VERSION: version,
      FILE: lower,
      PLURAL: names.plural,
      SCOPE: scope,
      PATHNAME: `${group.replaceAll('.', '-')}-${version}-${lower}`,
      GROUPCONST: consts.group.name,
      VERSIONCONST: consts.version.name,
      APIIMPORTS: apiImports(webhookDir, consts, kind, kindFile),
      KINDMODULE: moduleSpecifier(webhookDir, kindFile),
      METADATA: scope === 'Namespaced' ? "{ name: 'example', namespace: 'default' }" : "{ name: 'example' }",
    };
    for (const webhook of webhooks) {
      files.push({ path: path.join(webhookDir, `${lower}-${webhook}.ts`), content: scaffoldText(`webhook/${webhook}.ts`, values) });
      files.push({ path: path.join(webhookDir, `${lower}-${webhook}.test.ts`), content: scaffoldText(`webhook/${webhook}.test.ts`, values) });
    }
  }
  return {
    kind,
    group,
    version,
    scope,
    plural: names.plural,
    kindFile,
    files,
    otherVersions: versions.map((k) => ({ version: k.version.name, at: where(root, k.marker) })),
  };
}

/** A new kind's names from the flags; a new version's from the kind's other versions, which the flags must not contradict. */
function kindNames(request: ApiRequest, other: KindVersion | undefined, root: string): { names: ResourceNames; scope: Scope } {
  if (!other) {
    const lower = request.kind.toLowerCase();
    const names = { kind: request.kind, listKind: `${request.kind}List`, plural: request.plural ?? pluralize(lower), singular: lower, shortNames: [], categories: [] };
    return { names, scope: request.scope ?? 'Namespaced' };
  }
  const at = `${request.kind} ${other.version.name} (${where(root, other.marker)})`;
  if (request.scope !== undefined && request.scope !== other.scope) {
    throw new CreateApiError(`${at} is ${other.scope}, and every version of a kind has the same scope: drop --${request.scope === 'Cluster' ? 'cluster' : 'namespaced'}`);
  }
  if (request.plural !== undefined && request.plural !== other.names.plural) {
    throw new CreateApiError(`${at} has the plural ${JSON.stringify(other.names.plural)}, and every version of a kind has the same names: drop --plural`);
  }
  return { names: other.names, scope: other.scope };
}

function packageDirectory(request: ApiRequest, packages: readonly ApiPackage[], fallback: string, root: string, cwd: string): string {
  if (request.dir !== undefined) {
    const dir = path.resolve(cwd, request.dir);
    if (path.relative(root, dir).startsWith('..')) throw new CreateApiError(`--dir ${request.dir} is outside the project (${root}); pass a directory under it`);
    return dir;
  }
  const declaring = packages.filter((p) => p.group?.value === request.group && p.version?.value === request.version).sort((a, b) => (a.directory < b.directory ? -1 : 1));
  return declaring[0]?.directory ?? fallback;
}

interface ConstRef {
  readonly name: string;
  readonly file: string;
}

/** The group and version consts of a directory that already declares both; they must be the request's. */
function declaredConsts(existing: ApiPackage, request: ApiRequest, packageDir: string, root: string): { group: ConstRef; version: ConstRef } {
  const dir = `${path.relative(root, packageDir) || '.'}/`;
  for (const [key, wanted, declared] of [
    ['group', request.group, existing.group],
    ['version', request.version, existing.version],
  ] as const) {
    if (!declared) throw new CreateApiError(`${dir} declares an API package without a ${key} (@shaper:${key}Name); add it, or pass --dir with another directory`);
    if (declared.value !== wanted) {
      throw new CreateApiError(`${dir} is the API package of ${key} ${JSON.stringify(declared.value)} (${where(root, declared.marker)}), not ${wanted}; pass --dir with another directory`);
    }
  }
  return { group: constOf(existing.group!), version: constOf(existing.version!) };
}

/** The exported const a @shaper:groupName or @shaper:versionName marker is on. */
function constOf(declared: Declared): ConstRef {
  const ts = loadTypeScript();
  const { sourceFile, start } = declared.marker;
  const statement = sourceFile.statements.find((s) => s.pos <= start && start < s.end);
  if (!statement || !ts.isVariableStatement(statement)) throw new Error(`${sourceFile.fileName}: no const at the marker`);
  return { name: statement.declarationList.declarations[0]!.name.getText(sourceFile), file: sourceFile.fileName };
}

function resourceMarker(names: ResourceNames, scope: Scope): string {
  const lower = names.kind.toLowerCase();
  const keys = [
    scope === 'Cluster' ? 'scope=Cluster' : undefined,
    names.plural === pluralize(lower) ? undefined : `plural=${names.plural}`,
    names.singular === lower ? undefined : `singular=${names.singular}`,
    names.shortNames.length > 0 ? `shortName=${names.shortNames.join(';')}` : undefined,
    names.categories.length > 0 ? `categories=${names.categories.join(';')}` : undefined,
  ].filter((key) => key !== undefined);
  return ['@shaper:resource', ...keys].join(' ');
}

function apiImports(from: string, consts: { group: ConstRef; version: ConstRef }, kind: string, kindFile: string): string {
  const lines =
    consts.group.file === consts.version.file
      ? [`import { ${consts.group.name}, ${consts.version.name} } from '${moduleSpecifier(from, consts.group.file)}';`]
      : [`import { ${consts.group.name} } from '${moduleSpecifier(from, consts.group.file)}';`, `import { ${consts.version.name} } from '${moduleSpecifier(from, consts.version.file)}';`];
  return [...lines, `import type { ${kind} } from '${moduleSpecifier(from, kindFile)}';`].join('\n');
}

/** The relative ESM specifier of a .ts file, as its compiled .js. */
export function moduleSpecifier(fromDir: string, file: string): string {
  const relative = path
    .relative(fromDir, file)
    .split(path.sep)
    .join('/')
    .replace(/\.(m?)ts$/, '.$1js');
  return relative.startsWith('.') ? relative : `./${relative}`;
}
