package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/rest"
	sigsjson "sigs.k8s.io/json"
)

// conversionResponseCase is one answer of a conversion webhook, as sent.
type conversionResponseCase struct {
	Body string `json:"body"`
}

type conversionResponseResult struct {
	Problems   []string `json:"problems"`
	APIVersion string   `json:"apiVersion,omitempty"`
	UID        string   `json:"uid"`
	// Status and Message of response.result: what the API server reads.
	Status           string            `json:"status,omitempty"`
	Message          string            `json:"message,omitempty"`
	ConvertedObjects []json.RawMessage `json:"convertedObjects"`
}

// checkConversionResponse decodes a ConversionReview answer strictly into the
// apiextensions v1 or v1beta1 Go type the API server decodes it into.
func checkConversionResponse(line []byte) conversionResponseResult {
	var c conversionResponseCase
	if err := json.Unmarshal(line, &c); err != nil {
		fail("bad conversion-responses case: %v", err)
	}
	result := conversionResponseResult{Problems: []string{}, ConvertedObjects: []json.RawMessage{}}
	var meta metav1.TypeMeta
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts([]byte(c.Body), &meta); err != nil {
		result.Problems = append(result.Problems, "decode: "+err.Error())
		return result
	}
	result.APIVersion = meta.APIVersion
	if meta.Kind != "ConversionReview" {
		result.Problems = append(result.Problems, "kind "+meta.Kind+" is not ConversionReview")
	}
	var response *apiextensionsv1.ConversionResponse
	switch meta.APIVersion {
	case apiextensionsv1.SchemeGroupVersion.String():
		review := &apiextensionsv1.ConversionReview{}
		result.Problems = append(result.Problems, strictDecode([]byte(c.Body), review)...)
		response = review.Response
	case apiextensionsv1beta1.SchemeGroupVersion.String():
		review := &apiextensionsv1beta1.ConversionReview{}
		result.Problems = append(result.Problems, strictDecode([]byte(c.Body), review)...)
		if review.Response != nil {
			response = &apiextensionsv1.ConversionResponse{UID: review.Response.UID, ConvertedObjects: review.Response.ConvertedObjects, Result: review.Response.Result}
		}
	default:
		result.Problems = append(result.Problems, "apiVersion "+meta.APIVersion+" is not a ConversionReview version the API server decodes")
		return result
	}
	if response == nil {
		result.Problems = append(result.Problems, "no response provided")
		return result
	}
	result.UID = string(response.UID)
	result.Status = response.Result.Status
	result.Message = response.Result.Message
	for _, object := range response.ConvertedObjects {
		result.ConvertedObjects = append(result.ConvertedObjects, json.RawMessage(object.Raw))
	}
	return result
}

// convertCase is one conversion the API server would ask of a webhook: the
// CRD's conversion settings and the objects (one, or a list) it converts.
type convertCase struct {
	// URL of the conversion webhook (clientConfig.url) and the PEM CA bundle that verifies it.
	URL      string `json:"url"`
	CABundle string `json:"caBundle"`
	Group    string `json:"group"`
	Kind     string `json:"kind"`
	Plural   string `json:"plural"`
	// Versions the CRD serves.
	Versions []string `json:"versions"`
	// ConversionReviewVersions as in the CRD, in order of preference.
	ConversionReviewVersions []string          `json:"conversionReviewVersions"`
	DesiredAPIVersion        string            `json:"desiredAPIVersion"`
	Objects                  []json.RawMessage `json:"objects"`
	// List converts the objects as one list (what a list request does); otherwise each alone.
	List bool `json:"list"`
}

type convertResult struct {
	// Problems of the strict decode of every answer the webhook sent.
	Problems []string `json:"problems"`
	// Requests is how many ConversionReviews the API server sent.
	Requests int `json:"requests"`
	// Converted objects as the API server keeps them (its metadata restored), in input order.
	Converted []json.RawMessage `json:"converted,omitempty"`
	// Error is the API server's error, as a client would see it in the Status message.
	Error string `json:"error,omitempty"`
}

// answers records the body of every response the webhook client reads, so
// that it can be strictly decoded after the API server's own client has.
type answers struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (a *answers) RoundTripper(delegate http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		res, err := delegate.RoundTrip(req)
		if err != nil {
			return res, err
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return nil, err
		}
		a.mu.Lock()
		a.bodies = append(a.bodies, body)
		a.mu.Unlock()
		res.Body = io.NopCloser(bytes.NewReader(body))
		return res, nil
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// convertObjects runs the API server's own CR converter (apiextensions-apiserver's
// conversion package: the webhook client, getConvertedObjectsFromResponse, the
// count, apiVersion and kind checks, validateConvertedObject and restoreObjectMeta)
// against the webhook at c.URL.
func convertObjects(line []byte) convertResult {
	var c convertCase
	if err := json.Unmarshal(line, &c); err != nil {
		fail("bad convert case: %v", err)
	}
	recorded := &answers{}
	wrap := func(delegate webhook.AuthenticationInfoResolver) webhook.AuthenticationInfoResolver {
		return &webhook.AuthenticationInfoResolverDelegator{
			ClientConfigForFunc: func(hostPort string) (*rest.Config, error) {
				config, err := delegate.ClientConfigFor(hostPort)
				if err != nil {
					return nil, err
				}
				config.Wrap(recorded.RoundTripper)
				return config, nil
			},
			ClientConfigForServiceFunc: delegate.ClientConfigForService,
		}
	}
	factory, err := conversion.NewCRConverterFactory(nil, wrap)
	if err != nil {
		fail("converter factory: %v", err)
	}
	converter, _, err := factory.NewConverter(c.crd())
	if err != nil {
		return convertResult{Problems: []string{"NewConverter: " + err.Error()}}
	}
	desired, err := schema.ParseGroupVersion(c.DesiredAPIVersion)
	if err != nil {
		fail("desiredAPIVersion: %v", err)
	}
	result := convertResult{Problems: []string{}}
	var converted []runtime.Object
	if c.List {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(c.DesiredAPIVersion)
		list.SetKind(c.Kind + "List")
		for _, raw := range c.Objects {
			list.Items = append(list.Items, *decodeUnstructured(raw))
		}
		out, err := converter.ConvertToVersion(list, desired)
		if err != nil {
			result.Error = err.Error()
		} else {
			for i := range out.(*unstructured.UnstructuredList).Items {
				converted = append(converted, &out.(*unstructured.UnstructuredList).Items[i])
			}
		}
	} else {
		for _, raw := range c.Objects {
			out, err := converter.ConvertToVersion(decodeUnstructured(raw), desired)
			if err != nil {
				result.Error = err.Error()
				converted = nil
				break
			}
			converted = append(converted, out)
		}
	}
	for _, object := range converted {
		encoded, err := json.Marshal(object)
		if err != nil {
			fail("encoding a converted object: %v", err)
		}
		result.Converted = append(result.Converted, encoded)
	}
	result.Requests = len(recorded.bodies)
	for _, body := range recorded.bodies {
		line, _ := json.Marshal(conversionResponseCase{Body: string(body)})
		result.Problems = append(result.Problems, checkConversionResponse(line).Problems...)
	}
	return result
}

func (c convertCase) crd() *apiextensionsv1.CustomResourceDefinition {
	url := c.URL
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: c.Plural + "." + c.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: c.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: c.Plural, Kind: c.Kind, ListKind: c.Kind + "List"},
			Scope: apiextensionsv1.NamespaceScoped,
			Conversion: &apiextensionsv1.CustomResourceConversion{
				Strategy: apiextensionsv1.WebhookConverter,
				Webhook: &apiextensionsv1.WebhookConversion{
					ClientConfig:             &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: []byte(c.CABundle)},
					ConversionReviewVersions: c.ConversionReviewVersions,
				},
			},
		},
	}
	for _, version := range c.Versions {
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: version, Served: true})
	}
	return crd
}

func decodeUnstructured(raw json.RawMessage) *unstructured.Unstructured {
	object := &unstructured.Unstructured{}
	if err := object.UnmarshalJSON(raw); err != nil {
		fail("an object to convert: %v", err)
	}
	return object
}
