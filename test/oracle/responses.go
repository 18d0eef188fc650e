package main

import (
	"encoding/json"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	webhookerrors "k8s.io/apiserver/pkg/admission/plugin/webhook/errors"
	webhookrequest "k8s.io/apiserver/pkg/admission/plugin/webhook/request"
	sigsjson "sigs.k8s.io/json"
)

// responseCase is one webhook answer, with what the API server knew when it
// sent the request.
type responseCase struct {
	// Body is the HTTP response body exactly as the webhook sent it.
	Body string `json:"body"`
	// UID of the request; the API server rejects a v1 answer for another uid.
	UID      string `json:"uid"`
	Mutating bool   `json:"mutating"`
	// Webhook is the configuration's webhook name, used in the message a client sees.
	Webhook string `json:"webhook"`
	// Object the request carried; a patch is applied to it as the API server would.
	Object json.RawMessage `json:"object,omitempty"`
}

type responseResult struct {
	Problems []string `json:"problems"`
	// APIVersion the answer declared.
	APIVersion string   `json:"apiVersion,omitempty"`
	Allowed    bool     `json:"allowed"`
	Warnings   []string `json:"warnings,omitempty"`
	// ClientStatus is the Status a client receives from the API server for a denial.
	ClientStatus *metav1.Status `json:"clientStatus,omitempty"`
	// Patch as the API server decoded it, and the object after applying it.
	Patch   json.RawMessage `json:"patch,omitempty"`
	Patched json.RawMessage `json:"patched,omitempty"`
}

func checkResponse(line []byte) responseResult {
	var c responseCase
	if err := json.Unmarshal(line, &c); err != nil {
		fail("bad responses case: %v", err)
	}
	result := responseResult{Problems: []string{}}
	var meta metav1.TypeMeta
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts([]byte(c.Body), &meta); err != nil {
		result.Problems = append(result.Problems, "decode: "+err.Error())
		return result
	}
	result.APIVersion = meta.APIVersion
	var review runtime.Object
	switch meta.APIVersion {
	case admissionv1.SchemeGroupVersion.String():
		review = &admissionv1.AdmissionReview{}
	case admissionv1beta1.SchemeGroupVersion.String():
		review = &admissionv1beta1.AdmissionReview{}
	default:
		result.Problems = append(result.Problems, "apiVersion "+meta.APIVersion+" is not an AdmissionReview version the API server decodes")
		return result
	}
	if meta.Kind != "AdmissionReview" {
		result.Problems = append(result.Problems, "kind "+meta.Kind+" is not AdmissionReview")
	}
	result.Problems = append(result.Problems, strictDecode([]byte(c.Body), review)...)

	verified, err := webhookrequest.VerifyAdmissionResponse(types.UID(c.UID), c.Mutating, review)
	if err != nil {
		result.Problems = append(result.Problems, "VerifyAdmissionResponse: "+err.Error())
		return result
	}
	result.Allowed = verified.Allowed
	result.Warnings = verified.Warnings
	if !verified.Allowed {
		status := webhookerrors.ToStatusErr(c.Webhook, verified.Result).ErrStatus
		result.ClientStatus = &status
	}
	if len(verified.Patch) > 0 {
		applyPatch(&result, verified.Patch, c.Object)
	}
	return result
}

// applyPatch decodes and applies the patch with the library and the calls the
// API server's mutating dispatcher uses.
func applyPatch(result *responseResult, patch []byte, object json.RawMessage) {
	decoded, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		result.Problems = append(result.Problems, "received undecodable patch in webhook response: "+err.Error())
		return
	}
	result.Patch = json.RawMessage(patch)
	if len(object) == 0 {
		result.Problems = append(result.Problems, "a patch for a request without an object")
		return
	}
	patched, err := decoded.Apply(object)
	if err != nil {
		result.Problems = append(result.Problems, "applying the patch: "+err.Error())
		return
	}
	result.Patched = json.RawMessage(patched)
}
