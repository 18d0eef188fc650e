/**
 * Bad markers and types without a structural schema: each reported as
 * `file:line:col: message` at the marker, argument or type that is wrong,
 * every problem of a run at once. (That `manifests` then writes nothing:
 * test/e2e/generator/crd-render.test.ts.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { kindWithSpec, scanProject } from './fixture.js';

const removals: (() => void)[] = [];
afterAll(() => {
  for (const remove of removals) remove();
});

function problems(files: Record<string, string>): string[] {
  const result = scanProject(files);
  removals.push(() => result.project.remove());
  expect(result.crds.length + result.diagnostics.length).toBeGreaterThan(0);
  return result.messages;
}

const HEAD = "import type { KubernetesObject } from 'shaper-gen';\n";

describe('markers', () => {
  it('unknown or malformed names, with the closest known one, and text JSDoc would give a marker', () => {
    expect(
      problems({
        'src/api/k.ts': kindWithSpec(
          '/** @shaper:maximun 3 */',
          'a?: number;',
          '/** @shaper:frobnicate */',
          'b?: number;',
          '/**\n     * @shaper:minimum 1\n     * The description.\n     */',
          'c?: number;',
          '/** @shaper:minimum1 */',
          'd?: number;',
          '/** @shaper: */',
          'e?: number;',
        ),
      }),
    ).toEqual([
      'src/api/k.ts:5:9: unknown marker @shaper:maximun; did you mean "maximum"? see docs/reference/crd-markers.md for the markers',
      'src/api/k.ts:7:9: unknown marker @shaper:frobnicate; see docs/reference/crd-markers.md for the markers',
      'src/api/k.ts:11:8: a marker takes one line, and JSDoc gives the text after it to @shaper:minimum: put descriptions before the markers',
      'src/api/k.ts:14:9: unknown marker @shaper:minimum1; did you mean "minimum"? see docs/reference/crd-markers.md for the markers',
      'src/api/k.ts:16:9: a marker is `@shaper:<name>` followed by its arguments, e.g. `@shaper:minimum 0`',
    ]);
  });

  it('bad arguments, at the argument: numbers, words, flags, regular expressions, consts, CEL rules, defaults and enums', () => {
    expect(
      problems({
        'src/api/k.ts': kindWithSpec(
          '/** @shaper:minimum ten */',
          'a?: number;',
          '/** @shaper:maxLength -1 */',
          'b?: string;',
          '/** @shaper:listType bag */',
          'c?: string[];',
          '/** @shaper:nullable yes */',
          'd?: string;',
          '/** @shaper:pattern ([a-z */',
          'e?: string;',
          '/** @shaper:minimum {@link NOPE} */',
          'f?: number;',
          '/** @shaper:validation rule="self.x >" */',
          'g?: { x?: number };',
          '/** @shaper:validation message="m" */',
          'h?: string;',
          '/** @shaper:validation rule="self.size()" */',
          'i?: string;',
          '/** @shaper:validation rule="true" reason=Oops */',
          'j?: string;',
          '/** @shaper:default "big" */',
          'k?: number;',
          '/** @shaper:enum a;b */',
          'l?: number;',
          '/** @shaper:default c */',
          'm?: "a" | "b";',
        ),
      }),
    ).toEqual([
      'src/api/k.ts:5:25: @shaper:minimum takes a number, not "ten"',
      'src/api/k.ts:7:27: @shaper:maxLength takes a whole number from 0, not -1',
      'src/api/k.ts:9:26: @shaper:listType takes one of atomic, set, map, not "bag"',
      'src/api/k.ts:11:26: @shaper:nullable takes no argument',
      'src/api/k.ts:13:25: @shaper:pattern is not a regular expression: Invalid regular expression: /([a-z/u: Unterminated character class',
      'src/api/k.ts:15:25: cannot evaluate `NOPE` statically: its declaration could not be found (imports must resolve to project sources)',
      "src/api/k.ts:17:42: @shaper:validation rule: CEL compilation failed: Unexpected token: EOF (self is typed from the field's schema)",
      'src/api/k.ts:19:28: @shaper:validation needs rule=…',
      "src/api/k.ts:21:33: @shaper:validation rule: must evaluate to bool but got int (self is typed from the field's schema)",
      'src/api/k.ts:23:47: @shaper:validation reason takes one of FieldValueInvalid, FieldValueForbidden, FieldValueRequired, FieldValueDuplicate, not "Oops"',
      'src/api/k.ts:25:9: @shaper:default "big" does not fit the field: must be an integer',
      'src/api/k.ts:27:9: @shaper:enum "a" does not fit the field: must be an integer',
      'src/api/k.ts:27:9: @shaper:enum "b" does not fit the field: must be an integer',
      'src/api/k.ts:29:9: @shaper:default "c" does not fit the field: must be one of "a", "b"',
    ]);
  });

  it('CEL rules typed from the schema of their field: a misspelt field, a wrong type, oldSelf optional under optionalOldSelf', () => {
    expect(
      problems({
        'src/api/k.ts': kindWithSpec(
          '/** @shaper:validation rule="self.minimum <= self.max" */',
          'a?: { min?: number; max?: number };',
          '/** @shaper:validation rule="self.name == 3" */',
          'b?: { name?: string };',
          '/** @shaper:validation rule="self == oldSelf" optionalOldSelf=true */',
          'c?: { x?: string };',
          '/** @shaper:validation rule="self == oldSelf" messageExpression="self.x" */',
          'd?: { x?: number };',
          '/** @shaper:validation rule="self.all(item, item.port > 0)" */',
          'e?: { port?: number }[];',
        ),
      }),
    ).toEqual([
      "src/api/k.ts:5:39: @shaper:validation rule: CEL compilation failed: No such key: minimum (self is typed from the field's schema)",
      "src/api/k.ts:7:34: @shaper:validation rule: CEL compilation failed: no such overload: string == int (self is typed from the field's schema)",
      "src/api/k.ts:9:34: @shaper:validation rule: CEL compilation failed: no such overload: Self == optional<Self> (self is typed from the field's schema)",
      "src/api/k.ts:11:69: @shaper:validation messageExpression: must evaluate to string but got int (self is typed from the field's schema)",
    ]);
  });

  it('markers on fields they do not apply to, and list types without their keys', () => {
    expect(
      problems({
        'src/api/k.ts': kindWithSpec(
          '/** @shaper:minimum 1 */',
          'a?: string;',
          '/** @shaper:maxLength 3 */',
          'b?: number;',
          '/** @shaper:listType map */',
          'c?: { name?: string }[];',
          '/** @shaper:listType map\n     * @shaper:listMapKey id */',
          'd?: { name: string }[];',
          '/** @shaper:listMapKey name */',
          'e?: { name: string }[];',
          '/** @shaper:listType set */',
          'f?: { name: string }[];',
          '/** @shaper:exclusiveMinimum */',
          'g?: number;',
          '/** @shaper:minimum 5\n     * @shaper:maximum 1 */',
          'h?: number;',
          '/** @shaper:type number */',
          'i?: string;',
          '/** @shaper:listType map\n     * @shaper:listMapKey name */',
          'j?: { name?: string }[];',
        ),
      }),
    ).toEqual([
      'src/api/k.ts:5:9: @shaper:minimum applies to numbers, and this field is a string',
      'src/api/k.ts:7:9: @shaper:maxLength applies to strings, and this field is an integer',
      'src/api/k.ts:9:9: @shaper:listType map needs at least one @shaper:listMapKey naming a property of the items',
      'src/api/k.ts:12:8: @shaper:listMapKey id: the items have no property "id"',
      'src/api/k.ts:14:9: @shaper:listMapKey needs @shaper:listType map',
      'src/api/k.ts:16:9: @shaper:listType set needs scalar items (strings, numbers, booleans) or atomic ones',
      'src/api/k.ts:18:9: @shaper:exclusiveMinimum needs @shaper:minimum',
      'src/api/k.ts:21:8: @shaper:minimum 5 is above @shaper:maximum 1',
      'src/api/k.ts:23:9: @shaper:type applies to fields typed number, and this field is a string',
      'src/api/k.ts:26:8: @shaper:listMapKey name: a list-map key must be required (no `?`) or have a @shaper:default',
    ]);
  });

  it('markers in the wrong place', () => {
    expect(
      problems({
        'src/api/k.ts': `${HEAD}/** @shaper:groupName */\nexport const OTHER = 'x.io';\n/** @shaper:printcolumn name=A type=string jsonPath=.a */\nexport interface NotAKind { a?: string }\n/** @shaper:minimum 1 */\nexport function f() {}\n/** @shaper:resource */\nexport interface Thing extends KubernetesObject {\n  /** @shaper:storageversion */\n  spec?: { a?: number };\n}\n`,
      }),
    ).toEqual([
      'src/api/k.ts:2:5: the API group of src/api/ is already declared at src/api/group.ts:1:5; declare it once per directory',
      'src/api/k.ts:4:5: @shaper:printcolumn needs @shaper:resource on the same interface: only a kind has a CRD',
      'src/api/k.ts:6:5: @shaper:minimum belongs on a property, on a type used by properties, or on a kind',
      'src/api/k.ts:10:7: @shaper:storageversion belongs on the interface that declares a kind (with @shaper:resource)',
    ]);
  });
});

describe('kinds', () => {
  it('bad names, subresources and printer columns', () => {
    expect(
      problems({
        'src/api/k.ts': `${HEAD}/**
 * @shaper:resource plural=Things_ shortName=ok;Bad
 */
export interface Thing extends KubernetesObject {}
/**
 * @shaper:resource scope=Global
 */
export interface Other extends KubernetesObject {}
/**
 * @shaper:resource
 * @shaper:subresource status
 * @shaper:subresource status
 * @shaper:subresource scale specReplicasPath=replicas statusReplicasPath=.status.r
 * @shaper:printcolumn name=A type=string
 * @shaper:printcolumn name=B type=str jsonPath=.b
 * @shaper:printcolumn name=C type=string jsonPath=spec.c
 * @shaper:printcolumn name=C type=string jsonPath=.spec.c
 */
export interface Third extends KubernetesObject {
  spec?: { c?: string };
}
`,
      }),
    ).toEqual([
      'src/api/k.ts:3:28: @shaper:resource plural "Things_" must be a lower-case DNS label starting with a letter',
      'src/api/k.ts:3:46: @shaper:resource shortName "Bad" must be a lower-case DNS label starting with a letter',
      'src/api/k.ts:7:27: @shaper:resource scope takes one of Namespaced, Cluster, not "Global"',
      'src/api/k.ts:13:4: @shaper:subresource status is declared twice',
      'src/api/k.ts:14:47: @shaper:subresource scale specReplicasPath must be a JSON path under .spec',
      'src/api/k.ts:15:24: @shaper:printcolumn needs jsonPath=…',
      'src/api/k.ts:16:36: @shaper:printcolumn type takes one of integer, number, string, boolean, date, not "str"',
      'src/api/k.ts:17:52: @shaper:printcolumn jsonPath is a JSON path starting with "." (e.g. .spec.replicas)',
    ]);
  });

  it('keys spelt as kubebuilder spells them, or misspelt: one message each, naming the key here', () => {
    expect(
      problems({
        'src/api/k.ts': `${HEAD}/**
 * @shaper:resource
 * @shaper:subresource scale specpath=.spec.replicas statuspath=.status.replicas
 * @shaper:printcolumn name=Image type=string JSONPath=.spec.image
 * @shaper:printcolumn name=Size type=string jsonpaht=.spec.image
 */
export interface Thing extends KubernetesObject {
  spec?: { replicas?: number; image?: string };
  status?: { replicas?: number };
}
`,
      }),
    ).toEqual([
      'src/api/k.ts:4:30: @shaper:subresource: write specReplicasPath=, not specpath= ("specpath" is kubebuilder\'s name for it)',
      'src/api/k.ts:5:47: @shaper:printcolumn: write jsonPath=, not JSONPath= ("JSONPath" is kubebuilder\'s name for it)',
      'src/api/k.ts:6:46: @shaper:printcolumn has no key "jsonpaht"; did you mean "jsonPath"? its keys: name, type, jsonPath, description, format, priority',
    ]);
  });

  it('JSON paths of printer columns, scale and selectable fields followed through the schema, at the step that is wrong, naming the nearest field', () => {
    expect(
      problems({
        'src/api/k.ts': `${HEAD}/**
 * @shaper:resource
 * @shaper:subresource scale specReplicasPath=.spec.replica statusReplicasPath=.status.replicas labelSelectorPath=.status.selector
 * @shaper:printcolumn name=Image type=string jsonPath=.spec.imag
 * @shaper:printcolumn name=Ready type=string jsonPath=".status.conditions[?(@.type==\\"Ready\\")].stat"
 * @shaper:printcolumn name=Host type=string jsonPath=.spec.template.hostname
 * @shaper:printcolumn name=Port type=integer jsonPath=.spec.ports[0].number
 * @shaper:printcolumn name=Owner type=string jsonPath=.metadata.ownerRefs
 * @shaper:printcolumn name=Team type=string jsonPath=.metadata.labels.team
 * @shaper:printcolumn name=Free type=string jsonPath=.spec.extra.anything.below
 * @shaper:selectablefield jsonPath=.spec.image
 * @shaper:selectablefield jsonPath=.spec.ports
 * @shaper:selectablefield jsonPath=.metadata.name
 * @shaper:selectablefield jsonPath=.spec.colour
 */
export interface Thing extends KubernetesObject {
  spec?: { replicas?: number; image?: string; template?: { hostName?: string }; ports?: { port: number }[]; extra?: unknown };
  status?: { replicas?: number; selector?: { app?: string }; conditions?: { type: string; status: string }[] };
}
/**
 * @shaper:resource
 * @shaper:subresource scale specReplicasPath=.spec.size statusReplicasPath=.status.replicas[0]
 */
export interface Other extends KubernetesObject {
  spec?: { size?: string };
  status?: { replicas?: number[] };
}
`,
      }),
    ).toEqual([
      'src/api/k.ts:4:53: @shaper:subresource scale specReplicasPath: .spec has no field "replica"; did you mean "replicas"?',
      'src/api/k.ts:5:62: @shaper:printcolumn jsonPath: .spec has no field "imag"; did you mean "image"?',
      'src/api/k.ts:6:56: @shaper:printcolumn jsonPath: .status.conditions[*] has no field "stat"; did you mean "status"?',
      'src/api/k.ts:7:70: @shaper:printcolumn jsonPath: .spec.template has no field "hostname"; did you mean "hostName"?',
      'src/api/k.ts:8:71: @shaper:printcolumn jsonPath: .spec.ports[*] has no field "number"; its fields: port',
      'src/api/k.ts:9:66: @shaper:printcolumn jsonPath: .metadata has no field "ownerRefs"; did you mean "ownerReferences"?',
      'src/api/k.ts:13:37: @shaper:selectablefield jsonPath .spec.ports must name a string, integer or boolean field, not a field of type array',
      'src/api/k.ts:14:37: @shaper:selectablefield jsonPath must not name a field of metadata (the API server selects metadata.name and metadata.namespace itself)',
      'src/api/k.ts:15:43: @shaper:selectablefield jsonPath: .spec has no field "colour"; its fields: extra, image, ports, replicas, template',
      'src/api/k.ts:23:47: @shaper:subresource scale specReplicasPath .spec.size is a field of type string; it must hold the replica count, an integer',
    ]);
  });

  it('a kind outside an API package, and bad group and version consts', () => {
    expect(
      problems({
        'src/other/k.ts': `${HEAD}/** @shaper:resource */\nexport interface Thing extends KubernetesObject {}\n`,
        'src/api/group.ts': `/** @shaper:groupName */\nexport const GROUP = 'Example';\n/** @shaper:versionName */\nexport const VERSION = 'V1';\n/** @shaper:groupName */\nexport let G = 'x.io';\n/** @shaper:groupName */\nexport const N = 3;\n`,
        'src/api/k.ts': `${HEAD}/** @shaper:resource */\nexport interface Thing extends KubernetesObject {}\n`,
      }),
    ).toEqual([
      'src/api/group.ts:1:5: the API group "Example" must be a lower-case DNS subdomain with at least one dot, like example.com',
      'src/api/group.ts:3:5: the version "V1" must be a lower-case DNS label starting with a letter, like v1 or v1alpha1',
      "src/api/group.ts:5:5: @shaper:groupName belongs on an exported string const (the API package's group or version)",
      'src/api/group.ts:7:5: @shaper:groupName needs a string const, and N is 3',
      'src/api/k.ts:2:5: Thing: no @shaper:groupName and @shaper:versionName in src/api/; declare the API group and version once per directory, on exported string consts (docs/guides/crds.md)',
      'src/other/k.ts:2:5: Thing: no @shaper:groupName and @shaper:versionName in src/other/; declare the API group and version once per directory, on exported string consts (docs/guides/crds.md)',
    ]);
  });

  it('versions that disagree, no or two storage versions, a plural taken twice', () => {
    const group = (version: string) => `/** @shaper:groupName */\nexport const GROUP = 'example.com';\n/** @shaper:versionName */\nexport const VERSION = '${version}';\n`;
    expect(
      problems({
        'src/api/v1/group.ts': group('v1'),
        'src/api/v1/k.ts': `${HEAD}/** @shaper:resource */\nexport interface Thing extends KubernetesObject {}\n/** @shaper:resource\n * @shaper:storageversion */\nexport interface Gadget extends KubernetesObject {}\n/** @shaper:resource plural=widgets */\nexport interface Gizmo extends KubernetesObject {}\n`,
        'src/api/v2/group.ts': group('v2'),
        'src/api/v2/k.ts': `${HEAD}/** @shaper:resource scope=Cluster */\nexport interface Thing extends KubernetesObject {}\n/** @shaper:resource\n * @shaper:storageversion */\nexport interface Gadget extends KubernetesObject {}\n/** @shaper:resource */\nexport interface Widget extends KubernetesObject {}\n`,
      }),
    ).toEqual([
      'src/api/v1/k.ts:2:5: the versions of Thing disagree on scope: @shaper:resource must say the same in every version (v2 at src/api/v2/k.ts:2:5)',
      'src/api/v1/k.ts:4:5: Gadget: only one version can be @shaper:storageversion (v2, v1 are)',
      'src/api/v2/k.ts:2:5: Thing has several versions (v2, v1): mark the one stored in etcd with @shaper:storageversion',
      'src/api/v2/k.ts:7:5: Widget and Gizmo (src/api/v1/k.ts:7:5) have the same plural "widgets" in example.com; set plural= on one',
    ]);
  });
});

describe('types without a structural schema', () => {
  it('are refused at the type, with what to write instead', () => {
    expect(
      problems({
        'src/api/k.ts': `${HEAD}import type { V1beta1LeaseCandidate } from '@kubernetes/client-node';
import type { Foo } from 'some-lib';
/** @shaper:resource */
export interface Thing extends KubernetesObject {
  spec?: {
    pod?: V1beta1LeaseCandidate;
    foo?: Foo;
    when?: Date;
    map?: Map<string, string>;
    pair?: [string, number];
    either?: { a: string } | { b: number };
    mixed?: string | boolean;
    fn?: () => void;
    big?: bigint;
    self?: Thing;
    typo?: Misspelt;
    both?: { x?: string; [key: string]: number };
    keys?: { [index: number]: string };
    inline?: import('@kubernetes/client-node').V1NoSuchModel;
  };
}
`,
      }),
    ).toEqual([
      "src/api/k.ts:7:11: V1beta1LeaseCandidate from @kubernetes/client-node is not a model of Kubernetes 1.37's GA API (the schemas of beta and alpha APIs are not shipped): use a GA type (V1…), declare the fields you need in an interface of your own, or type the field `unknown` (kept as is, with x-kubernetes-preserve-unknown-fields)",
      "src/api/k.ts:8:11: Foo from some-lib: the CRD scan reads the types of the project's sources and of shaper-gen, not of other packages",
      'src/api/k.ts:9:12: Date is not JSON: the API server stores a string; type the field `string` with `@shaper:format date-time`',
      'src/api/k.ts:10:11: Map is not JSON: use Record<string, T> for a map, or T[] with `@shaper:listType set` for a set',
      'src/api/k.ts:11:12: `[string, number]`: a tuple has no structural schema; use a list (T[]) or an object',
      'src/api/k.ts:12:14: `{ a: string; } | { b: number; }`: a union of object types has no structural schema; use one interface with optional fields (and a @shaper:validation rule for which may be set together)',
      'src/api/k.ts:13:13: `string | boolean`: only string | number (int-or-string) may mix scalar types',
      'src/api/k.ts:14:10: `() => void` is a function, not JSON data',
      'src/api/k.ts:15:11: `bigint` is not JSON data: a CRD field is a string, number, boolean, list or object',
      'src/api/k.ts:16:12: `Thing` contains itself: a CRD schema cannot be recursive; type the inner occurrence `unknown`',
      'src/api/k.ts:17:12: cannot find the type Misspelt',
      'src/api/k.ts:18:26: an object with properties cannot also be a map of typed values (properties and additionalProperties exclude each other); index it with `unknown`, or move the map into a property of its own',
      "src/api/k.ts:19:14: an index signature with `number` keys has no JSON schema; a map's keys are strings",
      "src/api/k.ts:20:14: V1NoSuchModel from @kubernetes/client-node is not a model of Kubernetes 1.37's GA API (the schemas of beta and alpha APIs are not shipped): use a GA type (V1…), declare the fields you need in an interface of your own, or type the field `unknown` (kept as is, with x-kubernetes-preserve-unknown-fields)",
    ]);
  });
});
