/**
 * `@MutatingPolicy` in the generator: its CEL compiled as the API server
 * compiles it (message construction, the patch types, the result types) and
 * against the resource's schema; and its local evaluation in the API server's
 * evaluator and JSON patcher (the CEL engine), ApplyConfiguration merged as
 * server-side apply merges, errors under both failure policies.
 */
import { describe, expect, it } from 'vitest';
import { rewriteMessageConstruction } from '../../../../generator/src/cel/message-construction.js';
import { evaluateMutatingPolicy, SchemaNotDeclared } from '../../../../generator/src/policy/evaluate/mutating.js';
import { checkPolicyExpressions } from '../../../../generator/src/policy/expressions.js';
import { resolveMutatingPolicyOptions } from '../../../../runtime/policy/options/policy-resolve.js';
import type { Mutation } from '../../../../runtime/policy/options/mutating-policy-types.js';

const SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        tier: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        args: { type: 'array', items: { type: 'string' } },
        selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { app: { type: 'string' } } },
      },
    },
  },
} as const;
const RULES = [{ groups: ['example.com'], versions: ['v1'], resources: ['widgets'], operations: ['CREATE', 'UPDATE'] }] as const;

function policyOf(mutations: Mutation[], extra: object = {}) {
  const { policy, problems } = resolveMutatingPolicyOptions({ rules: RULES, mutations, ...extra }, 'WidgetDefaults');
  if (!policy) throw new Error(problems.map((p) => p.message).join('; '));
  return policy;
}
const apply = (expression: string): Mutation => ({ patchType: 'ApplyConfiguration', applyConfiguration: { expression } });
const jsonPatch = (expression: string): Mutation => ({ patchType: 'JSONPatch', jsonPatch: { expression } });
const problems = (mutation: Mutation, typed = true) =>
  checkPolicyExpressions(policyOf([mutation]), typed ? { name: 'widgets.example.com/v1', schema: SCHEMA } : undefined).map((p) => [p.offset, p.message]);

describe('message construction', () => {
  it('is rewritten into the macro outside strings and map literals, every offset mapped back', () => {
    const source = "'a{' in {'a{': 1} ? [] : [JSONPatch{op: 'add', path: \"/x}\"}]";
    const rewritten = rewriteMessageConstruction(source);
    expect(rewritten.text).toBe("'a{' in {'a{': 1} ? [] : [__message__(JSONPatch, {op: 'add', path: \"/x}\"})]");
    expect(rewritten.typeNames).toEqual(['JSONPatch']);
    expect(source.slice(rewritten.originOf(rewritten.text.indexOf('op:')))).toBe('op: \'add\', path: "/x}"}]');
  });
});

describe('mutation expressions, compiled', () => {
  it('accept the API documentation examples on the server and against the schema', () => {
    expect(problems(apply("Object{spec: Object.spec{replicas: 3, tags: ['a'], ports: [Object.spec.ports{name: 'http', port: 80}]}}"))).toEqual([]);
    expect(problems(apply("Object{metadata: Object.metadata{labels: {'team': 'web'}}}"))).toEqual([]);
    expect(problems(jsonPatch("[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('example.com/team'), value: 'web'}]"))).toEqual([]);
  });

  it('refuse what the API server refuses when the policy is stored, with its result types', () => {
    expect(problems(apply('object'), false)).toEqual([[0, 'mutations[0].applyConfiguration.expression must evaluate to Object but got dyn']]);
    expect(problems(jsonPatch("JSONPatch{op: 'remove', path: '/x'}"), false)).toEqual([[0, 'mutations[0].jsonPatch.expression must evaluate to list<JSONPatch> but got JSONPatch']]);
    expect(problems(apply('Widget{spec: 1}'), false)).toEqual([
      [0, "mutations[0].applyConfiguration.expression: CEL compilation failed at column 1: undeclared reference to 'Widget' (in container '')"],
    ]);
    expect(problems(jsonPatch("[JSONPatch{op: 'add', pth: '/x'}]"), false)).toEqual([
      [22, "mutations[0].jsonPatch.expression: CEL compilation failed at column 23: JSONPatch has no field 'pth' (JSONPatch has the fields op, path, from and value)"],
    ]);
  });

  it('refuse a misspelt field or a wrong type against the schema, at its column', () => {
    expect(problems(apply('Object{spec: Object.spec{replicaz: 3}}'))).toEqual([
      [
        25,
        "mutations[0].applyConfiguration.expression: CEL compilation failed at column 26: Object.spec has no field 'replicaz' in the resource's schema (object is widgets.example.com/v1, typed from its schema)",
      ],
    ]);
    expect(problems(apply("Object{spec: Object.spec{replicas: '3'}}"))).toEqual([
      [
        35,
        "mutations[0].applyConfiguration.expression: CEL compilation failed at column 36: field 'replicas' of Object.spec is int, got string (object is widgets.example.com/v1, typed from its schema)",
      ],
    ]);
  });
});

describe('evaluateMutatingPolicy', () => {
  const widget = (spec: object, labels?: Record<string, string>) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns', ...(labels && { labels }) }, spec });
  const request = (object: object) => ({
    request: {
      operation: 'CREATE',
      kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
      resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      name: 'w',
      namespace: 'ns',
      object,
    },
    schema: SCHEMA,
  });

  it("merges an ApplyConfiguration as server-side apply does: set and map lists by value and key, the object's other items kept", () => {
    const policy = policyOf([apply("Object{spec: Object.spec{tags: ['b', 'c'], ports: [Object.spec.ports{name: 'http', port: 8080}, Object.spec.ports{name: 'metrics', port: 9090}]}}")]);
    const result = evaluateMutatingPolicy(
      policy,
      request(
        widget({
          tags: ['a', 'b'],
          ports: [
            { name: 'grpc', port: 9000 },
            { name: 'http', port: 80 },
          ],
          args: ['x'],
        }),
      ),
    );
    expect(result).toEqual({
      matched: true,
      allowed: true,
      object: widget({
        tags: ['a', 'b', 'c'],
        ports: [
          { name: 'grpc', port: 9000 },
          { name: 'http', port: 8080 },
          { name: 'metrics', port: 9090 },
        ],
        args: ['x'],
      }),
    });
  });

  it('refuses an atomic list or struct and a field the schema does not declare, as the API server words it', () => {
    // The atomic paths come in structured-merge-diff's set order, which varies from run to run (on the API server too).
    const pathsSorted = (message: string | undefined) => message?.replace(/(structs: )(.*)$/, (_, head: string, paths: string) => head + paths.split(', ').sort().join(', '));
    const refusal = (expression: string) => pathsSorted(evaluateMutatingPolicy(policyOf([apply(expression)]), request(widget({}))).status?.message);
    expect(refusal("Object{spec: Object.spec{args: ['y'], selector: Object.spec.selector{app: 'web'}}}")).toBe(
      "policy 'widget-defaults.example.com' with binding 'widget-defaults.example.com' denied request: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.args, .spec.selector",
    );
    expect(refusal('Object{spec: Object.spec{size: 1}}')).toBe(
      "policy 'widget-defaults.example.com' with binding 'widget-defaults.example.com' denied request: error applying patch: failed to convert patch object to typed object: .spec.size: field not declared in schema",
    );
    expect(refusal('Object{spec: Object.tier{}}')).toBe(
      'policy \'widget-defaults.example.com\' with binding \'widget-defaults.example.com\' denied request: type mismatch: unexpected type name "Object.tier", expected "Object.spec", which matches field name path from root Object type',
    );
  });

  it('applies mutations in order, each on the one before; an error refuses under Fail and is skipped under Ignore', () => {
    const mutations = [
      jsonPatch("[JSONPatch{op: 'add', path: '/spec/replicas', value: 2}]"),
      jsonPatch("[JSONPatch{op: 'replace', path: '/spec/replicas', value: object.spec.replicas * 10 / int(object.spec.tier)}]"),
      apply("Object{spec: Object.spec{tier: 'set'}}"),
    ];
    const failing = evaluateMutatingPolicy(policyOf(mutations), request(widget({ tier: 'x' })));
    expect(failing).toEqual({
      matched: true,
      allowed: false,
      status: {
        code: 403,
        reason: 'Invalid',
        message:
          "policy 'widget-defaults.example.com' with binding 'widget-defaults.example.com' denied request: expression '[JSONPatch{op: 'replace', path: '/spec/replicas', value: object.spec.replicas * 10 / int(object.spec.tier)}]' resulted in error: type conversion error from 'string' to 'int'",
        causes: [
          {
            message:
              "policy 'widget-defaults.example.com' with binding 'widget-defaults.example.com' denied request: expression '[JSONPatch{op: 'replace', path: '/spec/replicas', value: object.spec.replicas * 10 / int(object.spec.tier)}]' resulted in error: type conversion error from 'string' to 'int'",
          },
        ],
      },
      object: widget({ tier: 'x' }),
    });
    expect(evaluateMutatingPolicy(policyOf(mutations, { failurePolicy: 'Ignore' }), request(widget({ tier: 'x' })))).toEqual({
      matched: true,
      allowed: true,
      object: widget({ tier: 'set', replicas: 2 }),
    });
    expect(evaluateMutatingPolicy(policyOf(mutations), request(widget({ tier: '4' })))).toEqual({ matched: true, allowed: true, object: widget({ tier: 'set', replicas: 5 }) });
  });
});

describe("an ApplyConfiguration merged by the API server's patcher", () => {
  const request = (object: object, kind = { group: 'example.com', version: 'v1', kind: 'Widget' }, resource = 'widgets') => ({
    request: {
      operation: 'CREATE',
      kind,
      resource: { group: kind.group, version: kind.version, resource },
      name: 'w',
      namespace: 'ns',
      object,
    },
  });
  const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns' }, spec: {} };

  it("asks for a custom resource's schema rather than guess its merge", () => {
    expect(() => evaluateMutatingPolicy(policyOf([apply('Object{spec: Object.spec{replicas: 1}}')]), request(widget))).toThrow(
      new SchemaNotDeclared(
        "policy widget-defaults.example.com merges an ApplyConfiguration into Widget.example.com/v1, a custom resource the project does not declare, by its schema: pass the CRD's openAPIV3Schema to runPolicy as `schema`",
      ),
    );
  });

  it("merges a built-in kind by its shipped schema: a sidecar into a Pod's containers (a map list keyed by name), labels into metadata", () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'w', namespace: 'ns', labels: { app: 'web' } },
      spec: { containers: [{ name: 'app', image: 'nginx' }] },
    };
    const sidecar = apply("Object{metadata: Object.metadata{labels: {'mesh': 'on'}}, spec: Object.spec{containers: [Object.spec.containers{name: 'proxy', image: 'proxy:1'}]}}");
    expect(
      evaluateMutatingPolicy(
        policyOf([sidecar], { rules: [{ groups: [''], versions: ['v1'], resources: ['pods'], operations: ['CREATE'] }] }),
        request(pod, { group: '', version: 'v1', kind: 'Pod' }, 'pods'),
      ),
    ).toEqual({
      matched: true,
      allowed: true,
      object: {
        ...pod,
        metadata: { name: 'w', namespace: 'ns', labels: { app: 'web', mesh: 'on' } },
        spec: {
          containers: [
            { name: 'app', image: 'nginx' },
            { name: 'proxy', image: 'proxy:1' },
          ],
        },
      },
    });
  });
});
