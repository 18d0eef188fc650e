package main

import (
	"encoding/json"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/admission"
)

func init() { validateAfterMutation = registryValidation }

// registryValidation is what the API server's registry does with a custom resource between the
// mutating and the validating admission plugins (rest.BeforeCreate/BeforeUpdate in the store): the
// CRD's schema and CEL rules, refused with its 422. Objects of kinds no given CRD defines pass.
func registryValidation(attributes admission.Attributes, crds []apiextensionsv1.CustomResourceDefinition) error {
	operation := attributes.GetOperation()
	subresource := attributes.GetSubresource()
	if (operation != admission.Create && operation != admission.Update) || (subresource != "" && subresource != "status") || attributes.GetObject() == nil {
		return nil
	}
	kind := attributes.GetKind()
	for i := range crds {
		if crds[i].Spec.Group != kind.Group || crds[i].Spec.Names.Kind != kind.Kind {
			continue
		}
		request := CustomResourceRequest{Version: kind.Version, Operation: string(operation), Subresource: subresource, Namespace: attributes.GetNamespace(), Admitted: true}
		var err error
		if request.Crd, err = json.Marshal(&crds[i]); err != nil {
			return err
		}
		if request.Object, err = json.Marshal(attributes.GetObject()); err != nil {
			return err
		}
		if old := attributes.GetOldObject(); old != nil {
			if request.OldObject, err = json.Marshal(old); err != nil {
				return err
			}
		}
		answer, err := ValidateCustomResource(request)
		if err != nil {
			return err
		}
		if answer.Status != nil {
			return &apierrors.StatusError{ErrStatus: *answer.Status}
		}
		return nil
	}
	return nil
}
