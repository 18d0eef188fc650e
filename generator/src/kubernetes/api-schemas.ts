/**
 * The Kubernetes API's own schemas for the target minor, as shipped in
 * kubernetes-schemas/ (extracted from the OpenAPI v3 documents Kubernetes
 * publishes by scripts/kubernetes-schemas/extract.ts): the component schemas
 * of the GA built-in kinds, the resource each kind is served as, and the
 * model names @kubernetes/client-node gives them. Read once, on first use.
 */
import { readFileSync } from 'node:fs';

/** The minor whose API the generator targets (scripts/cluster/versions.env pins its patch). */
export const KUBERNETES_MINOR = '1.37';

/** A component schema as stored: OpenAPI v3, with `$ref` holding a definition's name. */
export interface ApiSchema {
  readonly $ref?: string;
  readonly type?: string;
  readonly format?: string;
  readonly description?: string;
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  readonly properties?: Readonly<Record<string, ApiSchema>>;
  readonly required?: readonly string[];
  readonly items?: ApiSchema;
  readonly additionalProperties?: ApiSchema | boolean;
  readonly oneOf?: readonly ApiSchema[];
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-map-type'?: 'atomic' | 'granular';
}

interface ApiSchemasFile {
  readonly kubernetesVersion: string;
  /** `group/version/resource` (group empty for the core group) → definition name. */
  readonly resources: Readonly<Record<string, string>>;
  /** @kubernetes/client-node model name (`V1PodSpec`) → definition name. */
  readonly clientNodeModels: Readonly<Record<string, string>>;
  readonly definitions: Readonly<Record<string, ApiSchema>>;
}

let loaded: ApiSchemasFile | undefined;

function schemasFile(): ApiSchemasFile {
  // src/kubernetes/ and dist/kubernetes/ are both two levels below the package root.
  loaded ??= JSON.parse(readFileSync(new URL(`../../kubernetes-schemas/v${KUBERNETES_MINOR}.json`, import.meta.url), 'utf8')) as ApiSchemasFile;
  return loaded;
}

/** The Kubernetes release the schemas were extracted from (`v1.37.2`). */
export function kubernetesVersion(): string {
  return schemasFile().kubernetesVersion;
}

export function apiDefinition(name: string): ApiSchema | undefined {
  const definitions = schemasFile().definitions;
  return Object.hasOwn(definitions, name) ? definitions[name] : undefined;
}

/** The definition a @kubernetes/client-node model is generated from (`V1PodSpec` → io.k8s.api.core.v1.PodSpec). */
export function clientNodeDefinition(model: string): string | undefined {
  const models = schemasFile().clientNodeModels;
  return Object.hasOwn(models, model) ? models[model] : undefined;
}

/** The definition of the kind a built-in resource holds (`apps`, `v1`, `deployments` → io.k8s.api.apps.v1.Deployment). */
export function resourceDefinition(group: string, version: string, resource: string): string | undefined {
  const resources = schemasFile().resources;
  const key = `${group}/${version}/${resource}`;
  return Object.hasOwn(resources, key) ? resources[key] : undefined;
}

/** The whole shipped document's resources and definitions, as the CEL engine takes them (setApiSchemas). */
export function apiSchemas(): Pick<ApiSchemasFile, 'resources' | 'definitions'> {
  const { resources, definitions } = schemasFile();
  return { resources, definitions };
}
