/**
 * CRD fields typed with @kubernetes/client-node models expand to the full
 * schema of the Kubernetes type (Kubernetes 1.37's OpenAPI, shipped in
 * generator/kubernetes-schemas/), as controller-gen inlines them:
 * structural, no $ref, the API's list and map types, int-or-string, and an
 * embedded ObjectMeta as `type: object`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Schema } from '../../../../generator/src/crd/types.js';
import { scanProject } from './fixture.js';

const removals: (() => void)[] = [];
afterAll(() => {
  for (const remove of removals) remove();
});

const IMPORTS = "import type { V1Condition, V1Container, V1ObjectReference, V1PodTemplateSpec } from '@kubernetes/client-node';";

function specOf(spec: string, imports = IMPORTS): { messages: string[]; spec: Schema | undefined } {
  const result = scanProject({
    'src/api/thing.ts': `${imports}\nimport type { KubernetesObject } from 'shaper-gen';\n/** @shaper:resource */\nexport interface Thing extends KubernetesObject {\n  spec: {\n${spec}\n  };\n}\n`,
  });
  removals.push(() => result.project.remove());
  return { messages: result.messages, spec: result.crds[0]?.versions[0]?.schema.properties?.spec };
}

const OBJECT_REFERENCE: Schema = {
  type: 'object',
  description: 'ObjectReference contains enough information to let you inspect or modify the referred object.',
  'x-kubernetes-map-type': 'atomic',
  properties: {
    apiVersion: { type: 'string', description: 'API version of the referent.' },
    fieldPath: {
      type: 'string',
      description:
        'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: "spec.containers{name}" (where "name" refers to the name of the container that triggered the event) or if no container name is specified "spec.containers[2]" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.',
    },
    kind: { type: 'string', description: 'Kind of the referent. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds' },
    name: { type: 'string', description: 'Name of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names' },
    namespace: { type: 'string', description: 'Namespace of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/' },
    resourceVersion: {
      type: 'string',
      description:
        'Specific resourceVersion to which this reference is made, if any. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#concurrency-control-and-consistency',
    },
    uid: { type: 'string', description: 'UID of the referent. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#uids' },
  },
};

/** metav1.Condition without descriptions (@shaper:maxDescLen 0). */
const CONDITION: Schema = {
  type: 'object',
  required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  properties: {
    lastTransitionTime: { type: 'string', format: 'date-time' },
    message: { type: 'string' },
    observedGeneration: { type: 'integer', format: 'int64' },
    reason: { type: 'string' },
    status: { type: 'string' },
    type: { type: 'string' },
  },
};

describe('a field typed with a Kubernetes model', () => {
  it('is the structural schema of the Kubernetes type, complete', () => {
    const { messages, spec } = specOf(
      [
        '    ref: V1ObjectReference;',
        '    /** The owner, described here. */',
        '    owner?: V1ObjectReference;',
        '    /**',
        '     * @shaper:listType map',
        '     * @shaper:listMapKey type',
        '     * @shaper:maxItems 16',
        '     * @shaper:maxDescLen 0',
        '     */',
        '    conditions?: V1Condition[];',
      ].join('\n'),
    );
    expect(messages).toEqual([]);
    expect(spec).toEqual({
      type: 'object',
      required: ['ref'],
      properties: {
        conditions: { type: 'array', maxItems: 16, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'], items: CONDITION },
        owner: { ...OBJECT_REFERENCE, description: 'The owner, described here.' },
        ref: OBJECT_REFERENCE,
      },
    });
  });

  it('is found written as a namespace member, an import type, in a list and in a map', () => {
    const { messages, spec } = specOf(
      [
        '    /** @shaper:maxDescLen 0 */',
        '    byNamespace?: k8s.V1ObjectReference;',
        "    /** @shaper:maxDescLen 0 */\n    byImport?: import('@kubernetes/client-node').V1ObjectReference;",
        '    /** @shaper:maxDescLen 0 */\n    list?: k8s.V1ObjectReference[];',
        '    /** @shaper:maxDescLen 0 */\n    map?: Record<string, k8s.V1ObjectReference>;',
      ].join('\n'),
      "import type * as k8s from '@kubernetes/client-node';",
    );
    expect(messages).toEqual([]);
    const { description: _, ...reference } = OBJECT_REFERENCE;
    const bare = { ...reference, properties: Object.fromEntries(Object.entries(reference.properties!).map(([name, { type }]) => [name, { type }])) };
    expect(spec).toEqual({
      type: 'object',
      properties: { byImport: bare, byNamespace: bare, list: { type: 'array', items: bare }, map: { type: 'object', additionalProperties: bare } },
    });
  });
});

/** Every node of a schema, with its path. */
function* nodes(schema: Schema, path = ''): Generator<[string, Schema]> {
  yield [path, schema];
  for (const [name, property] of Object.entries(schema.properties ?? {})) yield* nodes(property, `${path}.${name}`);
  if (schema.items) yield* nodes(schema.items, `${path}[]`);
  if (schema.additionalProperties) yield* nodes(schema.additionalProperties, `${path}{}`);
}

/** The schema at a dotted path below `schema`: property names, `[]` for a list's items, `{}` for a map's values. */
function at(schema: Schema | undefined, path: string): Schema | undefined {
  return path.split('.').reduce<Schema | undefined>((node, part) => (part === '[]' ? node?.items : part === '{}' ? node?.additionalProperties : node?.properties?.[part]), schema);
}

function structuralProblems(path: string, node: Schema): string[] {
  const problems: string[] = [];
  if (node.type === undefined && !node['x-kubernetes-int-or-string']) problems.push(`${path}: no type`);
  if ('$ref' in node || 'allOf' in node || 'oneOf' in node) problems.push(`${path}: a reference`);
  if (node.properties && node.additionalProperties) problems.push(`${path}: properties and additionalProperties`);
  if (typeof node.default === 'object') problems.push(`${path}: default ${JSON.stringify(node.default)}`);
  for (const name of node.required ?? []) if (node.properties?.[name]?.default !== undefined) problems.push(`${path}.${name}: required, with a default`);
  return problems;
}

describe('a V1PodTemplateSpec field', () => {
  const { messages, spec } = specOf('    /** The pods to run. */\n    template: V1PodTemplateSpec;\n    /** @shaper:maxItems 8 */\n    sidecars?: V1Container[];');
  const template = spec?.properties?.template;
  const podSpec = template?.properties?.spec;
  const container = podSpec?.properties?.containers?.items;

  it('has the embedded metadata as a bare object, as controller-gen writes it', () => {
    expect(messages).toEqual([]);
    expect(template?.description).toBe('The pods to run.');
    expect(template?.properties?.metadata).toEqual({
      type: 'object',
      description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
    });
    expect(podSpec?.required).toEqual(['containers']);
  });

  it("keeps the API's list maps, defaults of their keys, int-or-string and quantities", () => {
    const containers = at(podSpec, 'containers');
    expect([containers?.['x-kubernetes-list-type'], containers?.['x-kubernetes-list-map-keys']]).toEqual(['map', ['name']]);
    expect(at(container, 'ports')?.['x-kubernetes-list-map-keys']).toEqual(['containerPort', 'protocol']);
    expect(at(container, 'ports.[].protocol')).toEqual({ type: 'string', description: 'Protocol for port. Must be UDP, TCP, or SCTP. Defaults to "TCP".', default: 'TCP' });
    expect(at(podSpec, 'imagePullSecrets.[].name')?.default).toBe('');
    const { description: _, ...limits } = at(container, 'resources.limits.{}') ?? {};
    expect(limits).toEqual({
      anyOf: [{ type: 'integer' }, { type: 'string' }],
      pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
      'x-kubernetes-int-or-string': true,
    });
    const { description: __, ...port } = at(container, 'livenessProbe.httpGet.port') ?? {};
    expect(port).toEqual({ anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true });
  });

  it('is structural: every node typed, no $ref, no default on a required field nor of an object, properties and additionalProperties apart', () => {
    expect([...nodes(spec ?? {})].flatMap(([path, node]) => structuralProblems(path, node))).toEqual([]);
  });

  it('takes markers on the field itself, where the CEL cost estimator reads them', () => {
    expect(spec?.properties?.sidecars?.maxItems).toBe(8);
    expect(spec?.properties?.sidecars?.items).toEqual(container);
  });
});

describe('@shaper:embeddedObjectMeta and @shaper:maxDescLen', () => {
  const EMBEDDED_META = {
    type: 'object',
    properties: {
      annotations: { type: 'object', additionalProperties: { type: 'string' } },
      finalizers: { type: 'array', items: { type: 'string' } },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      name: { type: 'string' },
      namespace: { type: 'string' },
    },
  };

  it("declare each embedded metadata's fields, and shorten or drop descriptions, below the field", () => {
    const { messages, spec } = specOf(
      '    /**\n     * @shaper:embeddedObjectMeta\n     * @shaper:maxDescLen 0\n     */\n    job: k8s.V1JobTemplateSpec;\n    /** @shaper:maxDescLen 40 */\n    ref?: k8s.V1ObjectReference;',
      "import type * as k8s from '@kubernetes/client-node';",
    );
    expect(messages).toEqual([]);
    const job = spec?.properties?.job;
    expect(job?.properties?.metadata).toEqual(EMBEDDED_META);
    expect(job?.properties?.spec?.properties?.template?.properties?.metadata).toEqual(EMBEDDED_META);
    expect([...nodes(job ?? {})].filter(([, node]) => node.description !== undefined)).toEqual([]);
    expect(Object.fromEntries(Object.entries(spec?.properties?.ref?.properties ?? {}).map(([name, node]) => [name, node.description]))).toEqual({
      apiVersion: 'API version of the referent.',
      fieldPath: 'If referring to a piece of an object',
      kind: 'Kind of the referent.',
      name: 'Name of the referent.',
      namespace: 'Namespace of the referent.',
      resourceVersion: 'Specific resourceVersion to which this',
      uid: 'UID of the referent.',
    });
  });

  it("on a kind apply to its whole schema but leave the kind's own metadata to the API server", () => {
    const result = scanProject({
      'src/api/thing.ts': `import type { V1PodTemplateSpec } from '@kubernetes/client-node';\nimport type { KubernetesObject } from 'shaper-gen';\n/**\n * A thing.\n * @shaper:resource\n * @shaper:embeddedObjectMeta\n * @shaper:maxDescLen 0\n */\nexport interface Thing extends KubernetesObject {\n  spec: { template: V1PodTemplateSpec };\n}\n`,
    });
    removals.push(() => result.project.remove());
    expect(result.messages).toEqual([]);
    const schema = result.crds[0]!.versions[0]!.schema;
    expect(schema.properties?.metadata).toEqual({ type: 'object' });
    expect(schema.properties?.spec?.properties?.template?.properties?.metadata).toEqual(EMBEDDED_META);
    expect([...nodes(schema)].filter(([, node]) => node.description !== undefined)).toEqual([]);
  });
});
