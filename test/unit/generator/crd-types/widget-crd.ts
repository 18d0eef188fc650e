/** A hand-made CRD with every schema feature `create types` maps, for the unit tests. */
export const WIDGETS_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: { kind: Widget, plural: widgets }
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          description: A widget.
          type: object
          properties:
            apiVersion: { type: string }
            kind: { type: string }
            metadata: { type: object }
            spec:
              description: |-
                What the widget should be.
                Comments end with */ in C.
              type: object
              required: [size]
              properties:
                size: { type: integer, format: int32 }
                ratio: { type: number }
                enabled: { type: boolean }
                since: { type: string, format: date-time }
                mode:
                  type: string
                  enum: [Fast, Slow, "it's"]
                level:
                  type: string
                  nullable: true
                  enum: [low, high]
                port: { x-kubernetes-int-or-string: true, anyOf: [{ type: integer }, { type: string }] }
                tags: { type: array, items: { type: string }, x-kubernetes-list-type: set }
                matrix: { type: array, items: { type: array, items: { type: number } } }
                usages: { type: array, items: { type: string, enum: [a, b] } }
                ports:
                  description: The ports.
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [name, protocol]
                  items:
                    type: object
                    required: [name]
                    properties:
                      name: { type: string }
                      protocol: { type: string }
                labels: { type: object, additionalProperties: { type: string } }
                limits: { type: object, additionalProperties: { x-kubernetes-int-or-string: true, anyOf: [{ type: integer }, { type: string }] } }
                backends:
                  type: object
                  additionalProperties:
                    type: object
                    properties:
                      url: { type: string }
                anything: { type: object, additionalProperties: true }
                raw: { type: object, x-kubernetes-preserve-unknown-fields: true }
                extra:
                  type: object
                  x-kubernetes-preserve-unknown-fields: true
                  properties:
                    known: { type: string }
                template:
                  type: object
                  x-kubernetes-embedded-resource: true
                  x-kubernetes-preserve-unknown-fields: true
                pod:
                  type: object
                  x-kubernetes-embedded-resource: true
                  properties:
                    spec: { type: object, properties: { nodeName: { type: string } } }
                empty: { type: object }
                untyped: { x-kubernetes-preserve-unknown-fields: true }
                owner: { type: object, nullable: true, properties: { name: { type: string } } }
                x-custom: { type: string }
                part: { type: object, properties: { id: { type: string } } }
                fooBar: { type: object, properties: { a: { type: string } } }
                foo: { type: object, properties: { bar: { type: object, properties: { b: { type: string } } } } }
            status:
              type: object
              properties:
                ready: { type: boolean }
    - name: v1beta1
      served: true
      storage: false
      deprecated: true
      deprecationWarning: example.com/v1beta1 Widget is deprecated; use example.com/v1
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { size: { type: integer } } }
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: parts.example.com
spec:
  group: example.com
  names: { kind: WidgetSpecPart, plural: parts }
  scope: Cluster
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec: { type: object, properties: { serial: { type: string } } }
`;
