/**
 * A custom resource written to a CRD as kube-apiserver answers it, in-process:
 * the CRD found (an object, YAML, or a kind of the project's TypeScript
 * sources, as `shaper-gen manifests` generates it), then the request run
 * through apiextensions-apiserver's own decoding, defaulting, pruning and
 * validation in the CEL engine (cel-engine/custom_resource.go). What
 * shaper-gen/testing's validateCustomResource and runWebhook load.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { CrdSource, CustomResourceInput, CustomResourceResult, CustomResourceValidator } from 'shaper-gen/internal/generator';
import { validateCustomResource as runInEngine, type CustomResourceAnswer, type CustomResourceRequest } from '../cel/engine/index.js';
import { loadGeneratorConfig } from '../config.js';
import { sources } from '../create/run-create-api.js';
import { customResourceDefinition } from '../crd/crd-object.js';
import { scanCustomResources } from '../crd/generate.js';
import { findCrdFiles } from '../crd-types/crd-files.js';
import { formatDiagnostic } from '../diagnostics.js';
import { decodingMayChange } from './decoding-changes.js';

interface CrdObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly spec: { readonly group: string; readonly names: { readonly kind: string } };
}

const projects = new Map<string, Promise<readonly CrdObject[]>>();

/** The CRDs a project declares: its TypeScript kinds (as `manifests` generates them), then its shaper.yaml `crds` files. */
function projectCrds(root: string): Promise<readonly CrdObject[]> {
  let crds = projects.get(root);
  if (!crds) {
    crds = readProjectCrds(root);
    projects.set(root, crds);
  }
  return crds;
}

async function readProjectCrds(root: string): Promise<readonly CrdObject[]> {
  const config = loadGeneratorConfig(undefined, root);
  const scan = scanCustomResources(config.tsconfig, await sources(config), config.root);
  if (scan.diagnostics.length > 0) throw new Error(scan.diagnostics.map((d) => formatDiagnostic(d, root)).join('\n'));
  const { files } = await findCrdFiles(config.root, config.crds);
  return [...scan.crds.map((crd) => customResourceDefinition(crd) as unknown as CrdObject), ...files.flatMap((file) => crdDocuments(readFileSync(file, 'utf8'), file))];
}

function crdDocuments(text: string, origin: string): CrdObject[] {
  return parseAllDocuments(text).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${origin}: ${document.errors[0]!.message}`);
    const value = document.toJS() as unknown;
    return isCrdObject(value) ? [value] : [];
  });
}

function isCrdObject(value: unknown): value is CrdObject {
  const object = value as Partial<CrdObject> | null;
  return typeof object === 'object' && object !== null && object.apiVersion === 'apiextensions.k8s.io/v1' && object.kind === 'CustomResourceDefinition';
}

const sameKind = (group: string | undefined, kind: string) => (crd: CrdObject) => crd.spec.names.kind === kind && (group === undefined || crd.spec.group === group);

/**
 * The CRD `source` names: the object itself, the one CRD of a YAML file or text (else its document of `kind` in
 * `group`), or the project's kind. Like the resource of a request's URL, it need not be the body's kind.
 */
async function crdFrom(source: CrdSource, group: string, kind: string, root: string): Promise<CrdObject | undefined> {
  if (typeof source === 'string') {
    const isText = source.includes('\n') || !existsSync(path.resolve(root, source));
    const documents = isText ? crdDocuments(source, 'the CRD text') : crdDocuments(readFileSync(path.resolve(root, source), 'utf8'), source);
    if (documents.length === 0) throw new Error(`${isText ? 'the CRD text' : source} holds no apiextensions.k8s.io/v1 CustomResourceDefinition${isText ? ' (nor is it a file)' : ''}`);
    return documents.length === 1 ? documents[0] : documents.find(sameKind(group, kind));
  }
  if ('apiVersion' in source) {
    if (!isCrdObject(source)) throw new Error(`crd is a ${source.apiVersion} ${source.kind}, not an apiextensions.k8s.io/v1 CustomResourceDefinition`);
    return source;
  }
  const declared = (await projectCrds(root)).filter(sameKind(source.group, source.kind));
  if (declared.length !== 1) {
    const what = `${source.kind}${source.group ? ` in ${source.group}` : ''}`;
    throw new Error(
      `the project at ${root} declares ${declared.length === 0 ? 'no kind' : 'several kinds'} ${what} (with @shaper: markers or in shaper.yaml's crds)${declared.length === 0 ? '' : ': add group'}`,
    );
  }
  return declared[0];
}

function groupVersionOf(object: object): { group: string; version: string; kind: string } {
  const { apiVersion, kind } = object as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') throw new TypeError('validateCustomResource: the object needs its apiVersion and kind');
  const slash = apiVersion.indexOf('/');
  return { group: slash === -1 ? '' : apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
}

function resultOf(answer: CustomResourceAnswer, operation: string): CustomResourceResult {
  const status = answer.status;
  return {
    allowed: answer.allowed,
    code: status?.code ?? (operation === 'CREATE' ? 201 : 200),
    ...(status && { reason: status.reason, message: status.message, status: structuredClone(status) as CustomResourceResult['status'] }),
    causes: (status?.details?.causes ?? []).map((cause) => ({ ...cause })),
    ...(answer.object && { object: answer.object }),
    warnings: [...answer.warnings],
  };
}

async function validateCustomResource(input: CustomResourceInput): Promise<CustomResourceResult> {
  const root = path.resolve(input.root ?? process.cwd());
  const { group, kind } = groupVersionOf(input.object);
  const crd = input.crd === undefined ? (await projectCrds(root)).find(sameKind(group, kind)) : await crdFrom(input.crd, group, kind, root);
  if (!crd) {
    throw new Error(
      input.crd === undefined
        ? `validateCustomResource: the project at ${root} declares no ${kind} in ${group} (TypeScript kinds with @shaper: markers, shaper.yaml's crds); pass crd`
        : `validateCustomResource: the CRD text holds several CRDs, none of them for ${kind} in ${group}, the object's kind`,
    );
  }
  const operation = input.operation ?? (input.oldObject ? 'UPDATE' : 'CREATE');
  const request: CustomResourceRequest = {
    crd,
    operation,
    object: input.object,
    ...(input.oldObject && { oldObject: input.oldObject }),
    ...(input.version !== undefined && { version: input.version }),
    ...(input.subresource !== undefined && { subresource: input.subresource }),
    ...(input.namespace !== undefined && { namespace: input.namespace }),
    ...(input.fieldValidation !== undefined && { fieldValidation: input.fieldValidation }),
  };
  return resultOf(runInEngine(request), operation);
}

type AdmissionInput = Parameters<CustomResourceValidator['admittedObjects']>[0];

/** The CRD of the request's kind among the test's `crds`, else the project's. */
async function admissionCrd(input: AdmissionInput): Promise<CrdObject | undefined> {
  const root = path.resolve(input.root ?? process.cwd());
  if (!input.crds) return (await projectCrds(root)).find(sameKind(input.group, input.kind));
  for (const source of input.crds) {
    const candidate = await crdFrom(source, input.group, input.kind, root);
    if (candidate && sameKind(input.group, input.kind)(candidate)) return candidate;
  }
  return undefined;
}

const admittedObjects: CustomResourceValidator['admittedObjects'] = async (input) => {
  if (input.operation !== 'CREATE' && input.operation !== 'UPDATE') return undefined;
  if (!input.object || (input.operation === 'UPDATE' && !input.oldObject)) return undefined;
  const crd = await admissionCrd(input);
  if (!crd) return undefined;
  const { object, oldObject } = input as { object: Record<string, unknown>; oldObject?: Record<string, unknown> };
  if (!decodingMayChange((crd.spec as { versions?: [] }).versions ?? [], input.version, object, oldObject)) return { object, ...(oldObject && { oldObject }) };
  const answer = runInEngine({
    crd,
    version: input.version,
    operation: input.operation,
    ...(input.subResource === 'status' && { subresource: 'status' }),
    ...(input.namespace && { namespace: input.namespace }),
    object,
    ...(oldObject && { oldObject }),
  });
  if (!answer.admitted) throw new Error(`the API server refuses this ${input.kind} before admission: ${answer.status?.message ?? 'no answer'}`);
  return answer.admitted;
};

const projectSchema: CustomResourceValidator['projectSchema'] = async ({ group, kind, version, root }) => {
  const crd = (await projectCrds(path.resolve(root ?? process.cwd()))).find(sameKind(group, kind));
  const versions = (crd?.spec as { versions?: readonly { name: string; schema?: { openAPIV3Schema?: object } }[] } | undefined)?.versions;
  return versions?.find((candidate) => candidate.name === version)?.schema?.openAPIV3Schema;
};

/** What shaper-gen/testing loads: checked against the runtime's contract. */
export const customResources = { validateCustomResource, admittedObjects, projectSchema } satisfies CustomResourceValidator;
