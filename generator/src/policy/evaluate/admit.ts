/**
 * A request through the admission chain as the API server runs it: every
 * matching MutatingAdmissionPolicy (reinvoked as the server reinvokes), then
 * every ValidatingAdmissionPolicy — the API server's own plugins (the CEL
 * engine's `admit`) over plain `admissionregistration.k8s.io/v1` objects from
 * any source: objects, YAML text or files (a rendered chart's output works).
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { admit as engineAdmit, type AdmitAnswer, type AuthorizerRule } from '../../cel/engine/index.js';
import { builtinServes, ensureBuiltinSchemas } from './merge-schemas.js';
import { decoratedPolicyYaml, isPolicyClass } from './decorated-sources.js';
import { answered } from './runner.js';
import type { PolicyRequest } from './request.js';

/** A policy source: an object (or a list of them), YAML text (multi-document), the path of a YAML file, or a decorated policy class. */
export type PolicySource = string | object;

export interface ChainInput {
  readonly request: PolicyRequest;
  /** Policies and bindings (and CRDs they need): the other kinds in a chart's output are left out. */
  readonly policies: readonly PolicySource[];
  /** The cluster's Namespaces; default: the request's own, with its `kubernetes.io/metadata.name` label. */
  readonly namespaces?: readonly object[];
  /** Objects a binding's paramRef can select. */
  readonly params?: readonly object[];
  readonly authorizer?: readonly AuthorizerRule[];
}

interface KubernetesObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string; readonly labels?: Record<string, string> };
  readonly spec?: {
    readonly paramKind?: { readonly apiVersion?: string; readonly kind?: string };
    readonly scope?: string;
    readonly group?: string;
    readonly names?: { readonly kind?: string };
    readonly versions?: readonly { readonly name: string }[];
  };
  readonly items?: readonly unknown[];
}

const ADMISSION_V1 = 'admissionregistration.k8s.io/v1';
const POLICY_KINDS = ['MutatingAdmissionPolicy', 'MutatingAdmissionPolicyBinding', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding'] as const;
type PolicyKind = (typeof POLICY_KINDS)[number];

/** Built-in kinds served cluster-wide (every other built-in kind is namespaced). */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'ComponentStatus',
  ...POLICY_KINDS,
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'CustomResourceDefinition',
  'APIService',
  'CertificateSigningRequest',
  'ClusterTrustBundle',
  'FlowSchema',
  'PriorityLevelConfiguration',
  'IngressClass',
  'IPAddress',
  'ServiceCIDR',
  'RuntimeClass',
  'ClusterRole',
  'ClusterRoleBinding',
  'DeviceClass',
  'DeviceTaintRule',
  'ResourceSlice',
  'PriorityClass',
  'CSIDriver',
  'CSINode',
  'StorageClass',
  'VolumeAttachment',
  'VolumeAttributesClass',
  'StorageVersionMigration',
  'SelfSubjectReview',
  'TokenReview',
  'SelfSubjectAccessReview',
  'SelfSubjectRulesReview',
  'SubjectAccessReview',
]);

/** The objects of every source, in order: lists flattened, YAML parsed, empty documents left out. */
export function sourceObjects(sources: readonly PolicySource[]): KubernetesObject[] {
  return sources.flatMap((source) => {
    if (typeof source !== 'string') return flattened(source);
    const isFile = !source.includes('\n') && existsSync(source);
    const text = isFile ? readFileSync(source, 'utf8') : source;
    return parseAllDocuments(text).flatMap((document, index) => {
      if (document.errors.length > 0) throw new Error(`${isFile ? source : 'policies'}: YAML document ${index + 1}: ${document.errors[0]!.message.split('\n')[0]!}`);
      const value = document.toJS() as unknown;
      return value === null || value === undefined ? [] : flattened(value);
    });
  });
}

function flattened(value: unknown): KubernetesObject[] {
  if (Array.isArray(value)) return value.flatMap(flattened);
  if (typeof value !== 'object' || value === null) throw new TypeError(`a policy source is neither an object, YAML text nor a file: ${JSON.stringify(value)}`);
  const object = value as KubernetesObject;
  if (object.kind?.endsWith('List') && Array.isArray(object.items)) return object.items.flatMap(flattened);
  return [object];
}

function policyKind(object: KubernetesObject): PolicyKind | undefined {
  const kind = POLICY_KINDS.find((k) => k === object.kind);
  if (kind && object.apiVersion !== ADMISSION_V1)
    throw new Error(
      `${kind} ${object.metadata?.name ?? ''} is ${object.apiVersion ?? 'without apiVersion'}: the admission chain is evaluated over ${ADMISSION_V1} objects (render the chart for Kubernetes 1.36 or later)`,
    );
  return kind;
}

/** Each paramKind's scope: a CRD's own, a built-in kind's; a kind neither serves is left out, as the API server serves it not. */
function paramScopes(policies: readonly KubernetesObject[], crds: readonly KubernetesObject[]): Record<string, 'Namespaced' | 'Cluster'> {
  const scopes: Record<string, 'Namespaced' | 'Cluster'> = {};
  for (const policy of policies) {
    const paramKind = policy.spec?.paramKind;
    if (!paramKind?.apiVersion || !paramKind.kind) continue;
    const [group, version] = paramKind.apiVersion.includes('/') ? paramKind.apiVersion.split('/') : ['', paramKind.apiVersion];
    const crd = crds.find((c) => c.spec?.group === group && c.spec?.names?.kind === paramKind.kind && c.spec?.versions?.some((v) => v.name === version));
    const key = `${paramKind.apiVersion}/${paramKind.kind}`;
    if (crd) scopes[key] = crd.spec?.scope === 'Cluster' ? 'Cluster' : 'Namespaced';
    else if (builtinServes(group!, version!, paramKind.kind)) scopes[key] = CLUSTER_SCOPED.has(paramKind.kind) ? 'Cluster' : 'Namespaced';
  }
  return scopes;
}

export function defaultNamespaces(namespace: string | undefined): object[] {
  return namespace ? [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels: { 'kubernetes.io/metadata.name': namespace } } }] : [];
}

/** Runs the request through the API server's policy plugins over the given objects. */
export async function admitChain(input: ChainInput): Promise<AdmitAnswer> {
  ensureBuiltinSchemas();
  const classes = input.policies.filter(isPolicyClass);
  const sources = input.policies.filter((source) => !isPolicyClass(source));
  const objects = sourceObjects(classes.length > 0 ? [...sources, await decoratedPolicyYaml(classes)] : sources);
  const ofKind = (kind: PolicyKind) => objects.filter((object) => policyKind(object) === kind);
  const crds = objects.filter((object) => object.kind === 'CustomResourceDefinition');
  const policies = [...ofKind('MutatingAdmissionPolicy'), ...ofKind('ValidatingAdmissionPolicy')];
  const { request } = input;
  return answered(
    engineAdmit({
      input: { request, object: request.object ?? null, oldObject: request.oldObject ?? null, ...(input.authorizer && { authorizer: input.authorizer }) },
      mutatingPolicies: ofKind('MutatingAdmissionPolicy'),
      mutatingBindings: ofKind('MutatingAdmissionPolicyBinding'),
      validatingPolicies: ofKind('ValidatingAdmissionPolicy'),
      validatingBindings: ofKind('ValidatingAdmissionPolicyBinding'),
      params: input.params ?? [],
      paramScopes: paramScopes(policies, crds),
      namespaces: input.namespaces ?? defaultNamespaces(request.namespace),
      crds,
    }),
    "admit's authorizer option",
  );
}
