/**
 * Kinds for the CRD tests: one with every kind of field and marker (the unit
 * test's expected schema, the e2e render, the cluster's acceptance), and the
 * API package that declares their group and version.
 */

/** src/api/group.ts: example.com/v1. */
export const EXAMPLE_GROUP = `/** @shaper:groupName */
export const GROUP = 'example.com';
/** @shaper:versionName */
export const VERSION = 'v1';
`;

/** src/api/widget.ts: the kind Widget, cluster-scoped, with every kind of field. */
export const WIDGET = `import type { KubernetesObject, ObjectMeta } from 'shaper-gen';

export const SIZES = ['small', 'medium', 'large'] as const;
export type Size = (typeof SIZES)[number];
export const MAX_REPLICAS = 10;

/** How a widget runs. */
export enum Mode {
  Safe = 'safe',
  Fast = 'fast',
}

/**
 * A lower-case name.
 * @shaper:pattern ^[a-z]+$
 * @shaper:maxLength 20
 */
export type Name = string;

export type Names = Name[];
export type List<T> = T[];
export type Lookup<V> = Readonly<Record<string, V>>;

/** A port a widget listens on. */
export interface Port {
  /** The port's name, unique in the list. */
  name: Name;
  port: number;
  protocol?: 'TCP' | 'UDP';
}

export interface WidgetSpec {
  /** How big. */
  size: Size;
  mode?: Mode;
  /**
   * Copies to run.
   * @shaper:minimum 0
   * @shaper:maximum {@link MAX_REPLICAS}
   * @shaper:default 1
   */
  replicas?: number;
  /**
   * @shaper:type number
   * @shaper:minimum 0
   * @shaper:exclusiveMinimum
   */
  ratio?: number;
  /**
   * @shaper:listType set
   * @shaper:maxItems 5
   */
  aliases?: readonly Name[];
  /**
   * @shaper:listType map
   * @shaper:listMapKey name
   */
  ports?: Port[];
  /** @shaper:maxItems 3 */
  nicknames?: Names;
  owners?: List<Name>;
  teams?: Lookup<Name>;
  labels?: Readonly<Record<string, string>>;
  limits?: { [resource: string]: string | number };
  quota?: number | string;
  extra?: unknown;
  settings?: Record<string, unknown>;
  note?: string | null;
  /** @shaper:embeddedResource */
  template?: KubernetesObject;
  meta?: ObjectMeta;
  matrix?: number[][];
  enabled?: boolean;
  levels?: (1 | 2 | 3)[];
  /**
   * Free text.
   * @shaper:validation rule="self.size() <= 100" message="too long"
   * @shaper:validation rule="!self.contains('{{')" messageExpression="'no templates in ' + self"
   */
  comment?: string;
}

/**
 * A widget: the fixture's kind.
 *
 * @shaper:resource scope=Cluster shortName=wd;wdg categories=all;things
 * @shaper:subresource status
 * @shaper:subresource scale specReplicasPath=.spec.replicas statusReplicasPath=.status.replicas labelSelectorPath=.status.selector
 * @shaper:printcolumn name=Size type=string jsonPath=.spec.size description="The size, small to large" priority=1
 * @shaper:printcolumn name=Age type=date jsonPath=.metadata.creationTimestamp
 * @shaper:selectablefield jsonPath=.spec.size
 * @shaper:validation rule="self.spec.size != 'large' || has(self.spec.ports)" message="a large widget needs ports"
 */
export interface Widget extends KubernetesObject {
  spec: WidgetSpec;
  status?: {
    replicas?: number;
    selector?: string;
  };
}
`;

/** src/api/gauge.ts: the kind Gauge, with the markers Widget does not use. */
export const GAUGE = `import type { KubernetesObject } from 'shaper-gen';
/**
 * @shaper:resource plural=gaugez singular=gauge-one
 * @shaper:printcolumn name=When type=date jsonPath=.spec.when format=date-time
 */
export interface Gauge extends KubernetesObject {
  spec?: {
    /**
     * @shaper:multipleOf 0.5
     * @shaper:maximum 10
     * @shaper:exclusiveMaximum
     * @shaper:type number
     */
    step?: number;
    /** @shaper:format date-time */
    when?: string;
    /**
     * @shaper:minLength 1
     * @shaper:enum "a b";c;"d"
     */
    code?: string;
    /**
     * @shaper:minItems 1
     * @shaper:listType atomic
     */
    tags?: string[];
    /**
     * @shaper:minProperties 1
     * @shaper:maxProperties 3
     * @shaper:mapType granular
     */
    weights?: Record<string, number>;
    /** @shaper:mapType atomic */
    limits?: { cpu?: string };
    /** @shaper:nullable */
    maybe?: string;
    /** @shaper:preserveUnknownFields */
    open?: { known?: string };
    /**
     * @shaper:validation rule="!oldSelf.hasValue() || oldSelf.value() == self" message="immutable" reason=FieldValueForbidden fieldPath=.x optionalOldSelf=true
     */
    fixed?: { x?: string };
  };
}
`;
