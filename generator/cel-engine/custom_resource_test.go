package main

import (
	"encoding/json"
	"testing"

	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// The strategy ratchets only when the feature gate is on, as it is by default in kube-apiserver 1.37:
// a library build whose gate defaulted otherwise would answer updates differently.
func TestRatchetingIsOn(t *testing.T) {
	if !utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDValidationRatcheting) {
		t.Fatal("CRDValidationRatcheting is off in this build")
	}
}

const widgets = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},
"spec":{"group":"example.com","names":{"kind":"Widget","listKind":"WidgetList","plural":"widgets","singular":"widget"},"scope":"Namespaced",
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object",
"properties":{"size":{"type":"string","enum":["small","large"],"default":"small"}}}}}}}]}}`

func widgetAnswer(t *testing.T, request CustomResourceRequest) CustomResourceAnswer {
	t.Helper()
	request.Crd = json.RawMessage(widgets)
	answer, err := ValidateCustomResource(request)
	if err != nil {
		t.Fatal(err)
	}
	return answer
}

// An admitted object (after mutation) is not decoded again: its unknown fields are not warned about;
// storage prunes them and the read back defaults; the registry still validates it.
func TestAdmittedObjectSkipsDecoding(t *testing.T) {
	object := json.RawMessage(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"n"},"spec":{"colour":"red"}}`)
	decoded := widgetAnswer(t, CustomResourceRequest{Object: object})
	admitted := widgetAnswer(t, CustomResourceRequest{Object: object, Admitted: true})
	if len(decoded.Warnings) != 1 || len(admitted.Warnings) != 0 {
		t.Fatalf("warnings: decoded %v, admitted %v", decoded.Warnings, admitted.Warnings)
	}
	if got, _ := json.Marshal(admitted.Object["spec"]); string(got) != `{"size":"small"}` {
		t.Fatalf("admitted spec as stored: %s, want {\"size\":\"small\"}", got)
	}
	refused := widgetAnswer(t, CustomResourceRequest{Object: json.RawMessage(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"n"},"spec":{"size":"huge"}}`), Admitted: true})
	if refused.Allowed || refused.Status.Code != 422 {
		t.Fatalf("an admitted object outside the enum: %+v", refused)
	}
}
