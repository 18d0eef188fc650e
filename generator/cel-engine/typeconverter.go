package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/client-go/openapi"
	"k8s.io/kube-openapi/pkg/spec3"
)

// apiSchemas are the built-in kinds' OpenAPI v3 component schemas as the generator ships them
// (generator/kubernetes-schemas: `$ref` holds a definition's name), set once per process.
type apiSchemas struct {
	// Resources maps `group/version/resource` to the definition of the kind it serves.
	Resources   map[string]string          `json:"resources"`
	Definitions map[string]json.RawMessage `json:"definitions"`
}

var builtinDocuments map[string][]byte

// handleSetAPISchemas makes the shipped schemas one OpenAPI v3 document per group-version, as the
// API server publishes them at /openapi/v3/apis/<group>/<version>.
func handleSetAPISchemas(raw json.RawMessage) (any, error) {
	schemas, err := decode[apiSchemas](raw)
	if err != nil {
		return nil, err
	}
	kinds := map[string][]map[string]string{}
	groupVersions := map[string]bool{}
	for key, definition := range schemas.Resources {
		parts := strings.SplitN(key, "/", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("cel-engine: api schemas: resource %q is not group/version/resource", key)
		}
		groupVersions[parts[0]+"/"+parts[1]] = true
		kind := definition[strings.LastIndex(definition, ".")+1:]
		gvk := map[string]string{"group": parts[0], "version": parts[1], "kind": kind}
		if !containsGVK(kinds[definition], gvk) {
			kinds[definition] = append(kinds[definition], gvk)
		}
	}
	components := map[string]any{}
	for name, definition := range schemas.Definitions {
		var schema map[string]any
		if err := json.Unmarshal(definition, &schema); err != nil {
			return nil, fmt.Errorf("cel-engine: api schemas: %s: %w", name, err)
		}
		rewriteRefs(schema)
		if gvks, ok := kinds[name]; ok {
			schema["x-kubernetes-group-version-kind"] = gvks
		}
		components[name] = schema
	}
	document, err := json.Marshal(map[string]any{"openapi": "3.0.0", "info": map[string]string{"title": "Kubernetes", "version": "shipped"}, "paths": map[string]any{}, "components": map[string]any{"schemas": components}})
	if err != nil {
		return nil, err
	}
	builtinDocuments = map[string][]byte{}
	for gv := range groupVersions {
		builtinDocuments[openAPIPath(gv)] = document
	}
	return map[string]int{"groupVersions": len(groupVersions), "definitions": len(components)}, nil
}

func containsGVK(list []map[string]string, gvk map[string]string) bool {
	for _, item := range list {
		if item["group"] == gvk["group"] && item["version"] == gvk["version"] && item["kind"] == gvk["kind"] {
			return true
		}
	}
	return false
}

// rewriteRefs turns the shipped `$ref: <name>` into OpenAPI v3's `#/components/schemas/<name>`.
func rewriteRefs(node any) {
	switch value := node.(type) {
	case map[string]any:
		if ref, ok := value["$ref"].(string); ok && !strings.HasPrefix(ref, "#/") {
			value["$ref"] = "#/components/schemas/" + ref
		}
		for _, item := range value {
			rewriteRefs(item)
		}
	case []any:
		for _, item := range value {
			rewriteRefs(item)
		}
	}
}

func openAPIPath(groupVersion string) string {
	if strings.HasPrefix(groupVersion, "/") {
		return "api" + groupVersion
	}
	return "apis/" + groupVersion
}

// typeConverters is the mutating plugin's own TypeConverterManager over an OpenAPI v3 client that
// serves the shipped built-in schemas and the given CRDs' (built as apiextensions' openapiv3 controller builds them).
func typeConverters(crds []apiextensionsv1.CustomResourceDefinition) (patch.TypeConverterManager, error) {
	key, err := json.Marshal(crds)
	if err != nil {
		return nil, err
	}
	// The manager builds a group-version's converter once: kept while the schemas stay the same.
	if found, ok := converterManagers[string(key)]; ok && found.builtins == len(builtinDocuments) {
		return found.manager, nil
	}
	paths := map[string]openapi.GroupVersion{}
	for path, document := range builtinDocuments {
		paths[path] = staticGroupVersion{path: path, document: document}
	}
	byGroupVersion := map[string][]*spec3.OpenAPI{}
	for i := range crds {
		crd := &crds[i]
		for _, version := range crd.Spec.Versions {
			if !version.Served {
				continue
			}
			document, err := builder.BuildOpenAPIV3(crd, version.Name, builder.Options{V2: false})
			if err != nil {
				return nil, fmt.Errorf("cel-engine: the schema of CRD %s version %s: %w", crd.Name, version.Name, err)
			}
			gv := crd.Spec.Group + "/" + version.Name
			byGroupVersion[gv] = append(byGroupVersion[gv], document)
		}
	}
	for gv, documents := range byGroupVersion {
		merged, err := builder.MergeSpecsV3(documents...)
		if err != nil {
			return nil, err
		}
		document, err := json.Marshal(merged)
		if err != nil {
			return nil, err
		}
		path := openAPIPath(gv)
		paths[path] = staticGroupVersion{path: path, document: document}
	}
	manager := patch.NewTypeConverterManager(nil, staticOpenAPI{paths: paths})
	// Run polls the paths at once, then every 5s until its context ends: ended, it polls once.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	manager.Run(done)
	if len(converterManagers) >= maxConverterManagers {
		converterManagers = map[string]cachedManager{}
	}
	converterManagers[string(key)] = cachedManager{builtins: len(builtinDocuments), manager: manager}
	return manager, nil
}

// The managers built, by the CRDs' JSON: serve enforces policies on several custom resources in turn.
var converterManagers = map[string]cachedManager{}

const maxConverterManagers = 32

type cachedManager struct {
	builtins int
	manager  patch.TypeConverterManager
}

type staticOpenAPI struct {
	paths map[string]openapi.GroupVersion
}

func (s staticOpenAPI) Paths() (map[string]openapi.GroupVersion, error) { return s.paths, nil }

type staticGroupVersion struct {
	path     string
	document []byte
}

func (s staticGroupVersion) Schema(string) ([]byte, error) { return s.document, nil }
func (s staticGroupVersion) ServerRelativeURL() string     { return "/openapi/v3/" + s.path }
