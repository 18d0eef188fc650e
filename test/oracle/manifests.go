package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

type manifestResult struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Name       string   `json:"name"`
	Problems   []string `json:"problems"`
	// Skipped is true for a kind the oracle has no Go type for (custom resources).
	Skipped bool `json:"skipped,omitempty"`
}

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		admissionregistrationv1.AddToScheme, appsv1.AddToScheme, corev1.AddToScheme,
		networkingv1.AddToScheme, policyv1.AddToScheme, rbacv1.AddToScheme,
		apiextensionsv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			fail("scheme: %v", err)
		}
	}
	return s
}()

// checkManifests splits a YAML stream as kubectl and helm do, converts each
// document to JSON with sigs.k8s.io/yaml and decodes it strictly into the Go
// type the API server would use.
func checkManifests(data []byte) []manifestResult {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	results := []manifestResult{}
	for {
		document, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return results
		}
		if err != nil {
			return append(results, manifestResult{Problems: []string{"reading the YAML stream: " + err.Error()}})
		}
		jsonDoc, err := yaml.YAMLToJSON(document)
		if err != nil {
			results = append(results, manifestResult{Problems: []string{"YAML to JSON: " + err.Error()}})
			continue
		}
		if string(bytes.TrimSpace(jsonDoc)) == "null" {
			continue
		}
		results = append(results, checkObject(jsonDoc))
	}
}

func checkObject(jsonDoc []byte) manifestResult {
	var head struct {
		metav1.TypeMeta `json:",inline"`
		Metadata        struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(jsonDoc, &head); err != nil {
		return manifestResult{Problems: []string{"decode: " + err.Error()}}
	}
	result := manifestResult{APIVersion: head.APIVersion, Kind: head.Kind, Name: head.Metadata.Name, Problems: []string{}}
	object, err := scheme.New(head.GroupVersionKind())
	if err != nil {
		result.Skipped = true
		return result
	}
	result.Problems = append(result.Problems, strictDecode(jsonDoc, object)...)
	return result
}
