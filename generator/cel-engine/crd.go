package main

import (
	"context"
	"encoding/json"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var crdScheme = func() *runtime.Scheme {
	scheme := runtime.NewScheme()
	apiextensionsinstall.Install(scheme)
	return scheme
}()

type crdProblem struct {
	Field  string `json:"field"`
	Type   string `json:"type"`
	Detail string `json:"detail"`
	Text   string `json:"text"`
}

type crdAnswer struct {
	// Message is the API server's refusal (422) of the CRD's creation; empty when it accepts it.
	Message  string       `json:"message,omitempty"`
	Problems []crdProblem `json:"problems,omitempty"`
}

// handleValidateCrd runs the API server's own validation of a CustomResourceDefinition being
// created (defaults applied, converted to the internal version, ValidateCustomResourceDefinition):
// structural schema, CEL rules compiled, their estimated cost against the per-rule and per-CRD budgets.
func handleValidateCrd(raw json.RawMessage) (any, error) {
	request, err := decode[struct {
		Crd json.RawMessage `json:"crd"`
	}](raw)
	if err != nil {
		return nil, err
	}
	external := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(request.Crd, external); err != nil {
		return nil, err
	}
	crdScheme.Default(external)
	internal := &apiextensions.CustomResourceDefinition{}
	if err := crdScheme.Convert(external, internal, nil); err != nil {
		return nil, err
	}
	problems := validation.ValidateCustomResourceDefinition(context.Background(), internal)
	if len(problems) == 0 {
		return crdAnswer{}, nil
	}
	answer := crdAnswer{Message: apierrors.NewInvalid(schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, external.Name, problems).Error()}
	for _, problem := range problems {
		answer.Problems = append(answer.Problems, crdProblem{Field: problem.Field, Type: string(problem.Type), Detail: problem.Detail, Text: problem.Error()})
	}
	return answer, nil
}
