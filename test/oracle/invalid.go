package main

import (
	"encoding/json"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
)

// invalidCase is what a handler passed to Invalid(): the request's kind and
// name and its field errors.
type invalidCase struct {
	Group  string `json:"group"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Errors []struct {
		Type   field.ErrorType `json:"type"`
		Field  string          `json:"field"`
		Value  json.RawMessage `json:"value,omitempty"`
		Detail string          `json:"detail"`
	} `json:"errors"`
}

// newInvalid answers with apierrors.NewInvalid's Status for the case. A value
// is handed over typed as a Go validator would hold it: integers as int64,
// other numbers as float64, strings, booleans, anything else as decoded JSON.
func newInvalid(line []byte) any {
	var c invalidCase
	if err := json.Unmarshal(line, &c); err != nil {
		fail("bad invalid case: %v", err)
	}
	errs := field.ErrorList{}
	for _, e := range c.Errors {
		var value any
		if len(e.Value) > 0 {
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts(e.Value, &value); err != nil {
				fail("bad value %s: %v", e.Value, err)
			}
		}
		errs = append(errs, &field.Error{Type: e.Type, Field: e.Field, BadValue: value, Detail: e.Detail})
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: c.Group, Kind: c.Kind}, c.Name, errs).ErrStatus
}
