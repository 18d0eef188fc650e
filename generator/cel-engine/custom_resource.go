package main

// A custom resource created or updated as kube-apiserver v1.37 does it, without etcd: the request's body
// decoded by the CRD's codec (unknown fields pruned and reported, defaults applied), the generic
// registry's BeforeCreate/BeforeUpdate with apiextensions-apiserver's own strategy (schema, formats,
// ratcheting, list-map keys, embedded ObjectMeta, x-kubernetes-validations, metadata.name), then the
// object written to and read back from storage by the storage codec (pruned and defaulted again).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"sync"

	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/runtime/serializer/versioning"
	"k8s.io/apimachinery/pkg/version"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	storeerr "k8s.io/apiserver/pkg/storage/errors"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/klog/v2"
)

// CustomResourceRequest is one write of a custom resource, as a client sends it.
type CustomResourceRequest struct {
	// Crd is the CustomResourceDefinition (apiextensions.k8s.io/v1, as created on the API server).
	Crd json.RawMessage `json:"crd"`
	// Version of the request's URL; default: the object's apiVersion's, else the storage version.
	Version string `json:"version,omitempty"`
	// Operation is CREATE (default) or UPDATE.
	Operation string `json:"operation,omitempty"`
	// Subresource is "" or "status" (an UPDATE of the status subresource).
	Subresource string `json:"subresource,omitempty"`
	// Namespace of the request's URL; default: the object's, else "default" (namespaced kinds).
	Namespace string `json:"namespace,omitempty"`
	// Object is the request's body.
	Object json.RawMessage `json:"object"`
	// OldObject is the object as stored before an UPDATE (written through the storage codec first).
	OldObject json.RawMessage `json:"oldObject,omitempty"`
	// FieldValidation is Strict, Warn (the API server's default) or Ignore.
	FieldValidation string `json:"fieldValidation,omitempty"`
	// Admitted says the object is what admission produced from a decoded body (after mutating
	// webhooks or policies): it is not decoded again, only run through the registry and storage.
	Admitted bool `json:"admitted,omitempty"`
}

// CustomResourceAnswer is the API server's answer: the object it stores, or the Status of its refusal.
type CustomResourceAnswer struct {
	Allowed bool `json:"allowed"`
	// Object is what a client reads back: without the uid and creationTimestamp a CREATE assigns,
	// and without resourceVersion and managedFields (storage and field manager are not run).
	Object   map[string]any `json:"object,omitempty"`
	Status   *metav1.Status `json:"status,omitempty"`
	Warnings []string       `json:"warnings"`
	// Admitted is what admission (webhooks, policies) sees: the body decoded (pruned, defaulted), and
	// for an UPDATE the old object as the store reads it; absent when the body cannot be decoded.
	Admitted *AdmittedObjects `json:"admitted,omitempty"`
}

type AdmittedObjects struct {
	Object    map[string]any `json:"object"`
	OldObject map[string]any `json:"oldObject,omitempty"`
}

func init() {
	handlers["validateCustomResource"] = handleValidateCustomResource
	// The registry logs what the API server would log (e.g. duplicate validation errors): not an answer.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
}

func handleValidateCustomResource(raw json.RawMessage) (any, error) {
	request, err := decode[CustomResourceRequest](raw)
	if err != nil {
		return nil, err
	}
	return ValidateCustomResource(request)
}

// ValidateCustomResource answers one write as the API server would; an error is a problem of the
// request itself (the CRD unusable, a version not served), never the API server's refusal.
func ValidateCustomResource(request CustomResourceRequest) (CustomResourceAnswer, error) {
	served, err := serving(request.Crd)
	if err != nil {
		return CustomResourceAnswer{}, err
	}
	version, err := served.requestVersion(request)
	if err != nil {
		return CustomResourceAnswer{}, err
	}
	warnings := &warningRecorder{}
	namespace := request.Namespace
	ctx := warning.WithWarningRecorder(context.Background(), warnings)
	for _, text := range served.deprecation[version] {
		warnings.AddWarning("", text)
	}
	var object *unstructured.Unstructured
	var status *metav1.Status
	if request.Admitted {
		object = &unstructured.Unstructured{}
		if err := object.UnmarshalJSON(request.Object); err != nil {
			return CustomResourceAnswer{}, fmt.Errorf("cel-engine: the admitted object: %w", err)
		}
	} else {
		object, status = served.decodeBody(ctx, version, request.Object, request.FieldValidation)
	}
	var admitted *AdmittedObjects
	if status == nil {
		admitted = &AdmittedObjects{Object: object.DeepCopy().Object}
		if namespace == "" && served.namespaced {
			namespace = object.GetNamespace()
			if namespace == "" {
				namespace = metav1.NamespaceDefault
			}
		}
		ctx = genericapirequest.WithNamespace(ctx, namespace)
		var old *unstructured.Unstructured
		if request.Operation == "UPDATE" && len(request.OldObject) > 0 {
			if old, err = served.stored(version, request.OldObject); err != nil {
				return CustomResourceAnswer{}, fmt.Errorf("cel-engine: the old object: %w", err)
			}
			admitted.OldObject = old.DeepCopy().Object
		}
		object, status, err = served.admit(ctx, version, request, object, old)
		if err != nil {
			return CustomResourceAnswer{}, err
		}
	}
	answer := CustomResourceAnswer{Allowed: status == nil, Status: status, Warnings: warnings.texts, Admitted: admitted}
	if answer.Warnings == nil {
		answer.Warnings = []string{}
	}
	if status == nil {
		answer.Object = object.Object
	}
	return answer, nil
}

// admit runs what the generic registry runs between admission and etcd, and reads the object back.
func (s *servedCrd) admit(ctx context.Context, version string, request CustomResourceRequest, object, old *unstructured.Unstructured) (*unstructured.Unstructured, *metav1.Status, error) {
	strategies := s.strategies[version]
	switch {
	case request.Operation == "" || request.Operation == "CREATE":
		if request.Subresource != "" {
			return nil, nil, fmt.Errorf("cel-engine: a CREATE has no subresource (got %q)", request.Subresource)
		}
		accessor, err := meta.Accessor(object)
		if err != nil {
			return nil, nil, err
		}
		rest.FillObjectMetaSystemFields(accessor)
		if len(accessor.GetGenerateName()) > 0 && len(accessor.GetName()) == 0 {
			accessor.SetName(strategies.main.GenerateName(accessor.GetGenerateName()))
		}
		if err := rest.BeforeCreate(strategies.main, ctx, object); err != nil {
			return nil, statusOf(err), nil
		}
		stored, err := s.storeAndRead(version, object)
		if err != nil {
			return nil, nil, err
		}
		unstructured.RemoveNestedField(stored.Object, "metadata", "uid")
		unstructured.RemoveNestedField(stored.Object, "metadata", "creationTimestamp")
		return stored, nil, nil
	case request.Operation == "UPDATE":
		if old == nil {
			return nil, nil, errors.New("cel-engine: an UPDATE needs the old object")
		}
		var strategy rest.RESTUpdateStrategy = strategies.main
		if request.Subresource == "status" {
			if strategies.status == nil {
				return nil, nil, fmt.Errorf("cel-engine: version %s of %s has no status subresource", version, s.crd.Name)
			}
			strategy = strategies.status
		} else if request.Subresource != "" {
			return nil, nil, fmt.Errorf("cel-engine: subresource %q is not supported (\"\" or \"status\")", request.Subresource)
		}
		// As a client that read the old object and writes it back: the store's resourceVersion
		// precondition (409 Conflict, 422 when missing) is not what this call answers.
		if old.GetResourceVersion() == "" {
			old.SetResourceVersion("1")
		}
		if object.GetResourceVersion() == "" {
			object.SetResourceVersion(old.GetResourceVersion())
		}
		if status := s.checkUID(genericapirequest.NamespaceValue(ctx), object, old); status != nil {
			return nil, status, nil
		}
		if err := rest.BeforeUpdate(strategy, ctx, object, old); err != nil {
			return nil, statusOf(err), nil
		}
		stored, err := s.storeAndRead(version, object)
		if err != nil {
			return nil, nil, err
		}
		unstructured.RemoveNestedField(stored.Object, "metadata", "resourceVersion")
		return stored, nil, nil
	default:
		return nil, nil, fmt.Errorf("cel-engine: operation %q is not CREATE or UPDATE", request.Operation)
	}
}

// checkUID is the store's precondition on the uid a PUT's body carries (DefaultUpdatedObjectInfo's,
// checked by GuaranteedUpdate against the stored object before the update runs): 409 Conflict.
func (s *servedCrd) checkUID(namespace string, object, old *unstructured.Unstructured) *metav1.Status {
	uid := object.GetUID()
	if uid == "" {
		return nil
	}
	plural := s.crd.Status.AcceptedNames.Plural
	key := path.Join("/registry", s.crd.Spec.Group, plural, namespace, object.GetName())
	if err := (&storage.Preconditions{UID: &uid}).Check(key, old); err != nil {
		return statusOf(storeerr.InterpretUpdateError(err, schema.GroupResource{Group: s.crd.Spec.Group, Resource: plural}, object.GetName()))
	}
	return nil
}

func statusOf(err error) *metav1.Status {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		value := status.Status()
		value.Kind, value.APIVersion = "Status", "v1"
		return &value
	}
	value := apierrors.NewInternalError(err).Status()
	value.Kind, value.APIVersion = "Status", "v1"
	return &value
}

// decodeBody decodes the request's body as the CR handler's negotiated serializer does (strict
// serializer unless fieldValidation=Ignore): the coercer prunes, then the defaulter defaults.
func (s *servedCrd) decodeBody(ctx context.Context, version string, body []byte, fieldValidation string) (*unstructured.Unstructured, *metav1.Status) {
	if fieldValidation == "" {
		fieldValidation = metav1.FieldValidationWarn
	}
	strict := fieldValidation == metav1.FieldValidationWarn || fieldValidation == metav1.FieldValidationStrict
	kind := s.kind(version)
	serializer := jsonserializer.NewSerializerWithOptions(jsonserializer.DefaultMetaFactory, unstructuredCreator{}, s.typer, jsonserializer.SerializerOptions{Strict: strict})
	coercer := s.coercer(false)
	coercer.returnUnknownFieldPaths = strict
	codec := versioning.NewCodec(nil, schemaCoercingDecoder{delegate: serializer, validator: coercer}, runtime.UnsafeObjectConvertor(s.scheme), s.scheme, s.scheme,
		unstructuredDefaulter{delegate: s.scheme, structuralSchemas: s.structural, structuralSchemaGK: kind.GroupKind()}, nil, kind.GroupVersion(), "unstructuredNegotiatedSerializer")
	into := &unstructured.Unstructured{}
	into.SetGroupVersionKind(kind)
	obj, gvk, err := codec.Decode(body, &kind, into)
	if err != nil {
		strictError, isStrictError := runtime.AsStrictDecodingError(err)
		switch {
		case isStrictError && obj != nil && fieldValidation == metav1.FieldValidationWarn:
			for _, e := range strictError.Errors() {
				warning.AddWarning(ctx, "", e.Error())
			}
		case isStrictError && fieldValidation == metav1.FieldValidationIgnore:
		default:
			return nil, statusOf(transformDecodeError(s.typer, err, into, gvk, body))
		}
	}
	if gvk.GroupVersion() != kind.GroupVersion() {
		return nil, statusOf(apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%v)", gvk.GroupVersion().String(), kind.GroupVersion().String())))
	}
	return obj.(*unstructured.Unstructured), nil
}

// transformDecodeError is k8s.io/apiserver's (pkg/endpoints/handlers/rest.go, unexported) for a body that names its kind.
func transformDecodeError(typer runtime.ObjectTyper, baseErr error, into runtime.Object, gvk *schema.GroupVersionKind, body []byte) error {
	objGVKs, _, err := typer.ObjectKinds(into)
	if err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	objGVK := objGVKs[0]
	if gvk != nil && len(gvk.Kind) > 0 {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, objGVK.Kind, baseErr))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", objGVK.Kind, baseErr, summarizeData(body, 30)))
}

func summarizeData(data []byte, maxLength int) string {
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		if len(data) > maxLength {
			return string(data[:maxLength]) + " ..."
		}
		return string(data)
	default:
		if len(data) > maxLength {
			return hex.EncodeToString(data[:maxLength]) + " ..."
		}
		return hex.EncodeToString(data)
	}
}

// storageCodec is the codec crdConversionRESTOptionsGetter gives the etcd store of one served version.
func (s *servedCrd) storageCodec(version string) runtime.Codec {
	storage := jsonserializer.NewSerializerWithOptions(jsonserializer.DefaultMetaFactory, unstructuredCreator{}, s.typer, jsonserializer.SerializerOptions{})
	gk := s.kind(version).GroupKind()
	decoder := schemaCoercingDecoder{delegate: storage, validator: s.coercer(true)}
	converter := schemaCoercingConverter{delegate: s.converter, validator: s.coercer(false)}
	return versioning.NewCodec(storage, decoder, converter, unstructuredCreator{}, s.typer,
		unstructuredDefaulter{delegate: s.scheme, structuralSchemaGK: gk, structuralSchemas: s.structural},
		schema.GroupVersion{Group: s.crd.Spec.Group, Version: s.storageVersion}, schema.GroupVersion{Group: s.crd.Spec.Group, Version: version}, "crdRESTOptions")
}

// storeAndRead writes the object as the etcd store does (converted to the storage version) and
// decodes what was written into the request's version, as the store returns it.
func (s *servedCrd) storeAndRead(version string, object *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	codec := s.storageCodec(version)
	data, err := runtime.Encode(codec, object)
	if err != nil {
		return nil, err
	}
	out := &unstructured.Unstructured{}
	out.SetGroupVersionKind(s.kind(version))
	read, _, err := codec.Decode(data, nil, out)
	if err != nil {
		return nil, err
	}
	return read.(*unstructured.Unstructured), nil
}

// stored is an object as the store reads it, given as a client read it in the request's version.
func (s *servedCrd) stored(version string, raw []byte) (*unstructured.Unstructured, error) {
	object := &unstructured.Unstructured{}
	if err := object.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return s.storeAndRead(version, object)
}

type warningRecorder struct {
	texts []string
}

// AddWarning keeps each text once, as the API server's recorder does.
func (r *warningRecorder) AddWarning(_, text string) {
	for _, seen := range r.texts {
		if seen == text {
			return
		}
	}
	r.texts = append(r.texts, text)
}

// servedCrd is what the CRD handler builds once per CRD (getOrCreateServingInfoFor).
type servedCrd struct {
	crd            *apiextensionsv1.CustomResourceDefinition
	namespaced     bool
	storageVersion string
	structural     map[string]*structuralschema.Structural
	strategies     map[string]versionStrategies
	deprecation    map[string][]string
	converter      runtime.ObjectConvertor
	typer          runtime.ObjectTyper
	scheme         *runtime.Scheme
}

type versionStrategies struct {
	main   rest.RESTCreateUpdateStrategy
	status rest.RESTUpdateStrategy
}

func (s *servedCrd) kind(version string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: s.crd.Spec.Group, Version: version, Kind: s.crd.Status.AcceptedNames.Kind}
}

func (s *servedCrd) coercer(fromStorage bool) unstructuredSchemaCoercer {
	return unstructuredSchemaCoercer{
		dropInvalidMetadata:   fromStorage,
		repairGeneration:      fromStorage,
		structuralSchemas:     s.structural,
		structuralSchemaGK:    schema.GroupKind{Group: s.crd.Spec.Group, Kind: s.crd.Status.AcceptedNames.Kind},
		preserveUnknownFields: s.crd.Spec.PreserveUnknownFields,
	}
}

func (s *servedCrd) requestVersion(request CustomResourceRequest) (string, error) {
	version := request.Version
	if version == "" {
		var typed struct {
			APIVersion string `json:"apiVersion"`
		}
		_ = json.Unmarshal(request.Object, &typed)
		if gv, err := schema.ParseGroupVersion(typed.APIVersion); err == nil && gv.Group == s.crd.Spec.Group {
			version = gv.Version
		}
	}
	if version == "" {
		version = s.storageVersion
	}
	if _, ok := s.strategies[version]; !ok {
		return "", fmt.Errorf("cel-engine: %s serves no version %q", s.crd.Name, version)
	}
	return version, nil
}

var (
	servedCrdsLock sync.Mutex
	servedCrds     = map[[sha256.Size]byte]*servedCrd{}
)

const servedCrdsKept = 64

// serving builds (once per CRD text) what the API server builds when it starts serving a CRD.
func serving(raw json.RawMessage) (*servedCrd, error) {
	key := sha256.Sum256(raw)
	servedCrdsLock.Lock()
	defer servedCrdsLock.Unlock()
	if served, ok := servedCrds[key]; ok {
		return served, nil
	}
	refusal, err := handleValidateCrd(mustJSON(map[string]json.RawMessage{"crd": raw}))
	if err != nil {
		return nil, fmt.Errorf("cel-engine: the CRD: %w", err)
	}
	if message := refusal.(crdAnswer).Message; message != "" {
		return nil, fmt.Errorf("cel-engine: the API server refuses this CRD: %s", message)
	}
	served, err := newServedCrd(raw)
	if err != nil {
		return nil, err
	}
	if len(servedCrds) >= servedCrdsKept {
		clear(servedCrds)
	}
	servedCrds[key] = served
	return served, nil
}

func mustJSON(value any) json.RawMessage {
	text, err := json.Marshal(value)
	if err != nil {
		panic(err)
	}
	return text
}

func newServedCrd(raw json.RawMessage) (*servedCrd, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(raw, crd); err != nil {
		return nil, fmt.Errorf("cel-engine: the CRD: %w", err)
	}
	crdScheme.Default(crd)
	// What the naming controller accepts for a CRD without conflicts.
	if crd.Status.AcceptedNames.Kind == "" {
		crd.Status.AcceptedNames = crd.Spec.Names
	}
	storageVersion, err := apiextensionshelpers.GetCRDStorageVersion(crd)
	if err != nil {
		return nil, fmt.Errorf("cel-engine: the CRD: %w", err)
	}
	factory, err := conversion.NewCRConverterFactory(nil, nil)
	if err != nil {
		return nil, err
	}
	if crd.Spec.Conversion != nil && crd.Spec.Conversion.Strategy == apiextensionsv1.WebhookConverter {
		// The webhook is not called: objects keep their fields between versions (as with strategy None).
		crd = crd.DeepCopy()
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
	}
	safe, _, err := factory.NewConverter(crd)
	if err != nil {
		return nil, err
	}
	served := &servedCrd{
		crd:            crd,
		namespaced:     crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		storageVersion: storageVersion,
		structural:     map[string]*structuralschema.Structural{},
		strategies:     map[string]versionStrategies{},
		deprecation:    map[string][]string{},
		converter:      safe,
		typer:          crdserverscheme.NewUnstructuredObjectTyper(),
		scheme:         runtime.NewScheme(),
	}
	for _, v := range crd.Spec.Versions {
		if err := served.addSchema(v.Name); err != nil {
			return nil, err
		}
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		if err := served.addStrategies(v.Name); err != nil {
			return nil, err
		}
		if v.Deprecated {
			if v.DeprecationWarning != nil {
				served.deprecation[v.Name] = append(served.deprecation[v.Name], *v.DeprecationWarning)
			} else {
				served.deprecation[v.Name] = append(served.deprecation[v.Name], defaultDeprecationWarning(v.Name, crd.Spec))
			}
		}
	}
	return served, nil
}

func internalValidation(crd *apiextensionsv1.CustomResourceDefinition, version string) (*apiextensionsinternal.CustomResourceValidation, error) {
	val, err := apiextensionshelpers.GetSchemaForVersion(crd, version)
	if err != nil || val == nil {
		return nil, err
	}
	internal := &apiextensionsinternal.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
		return nil, fmt.Errorf("cel-engine: failed converting CRD validation to internal version: %w", err)
	}
	return internal, nil
}

func (s *servedCrd) addSchema(version string) error {
	internal, err := internalValidation(s.crd, version)
	if err != nil || internal == nil {
		return err
	}
	structural, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if !s.crd.Spec.PreserveUnknownFields && err != nil {
		return fmt.Errorf("cel-engine: the schema of %s is not structural: %w", version, err)
	}
	if !s.crd.Spec.PreserveUnknownFields {
		structural = structural.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(structural); err != nil {
			return fmt.Errorf("cel-engine: failed to prune defaults: %w", err)
		}
	}
	s.structural[version] = structural
	return nil
}

func (s *servedCrd) addStrategies(version string) error {
	internal, err := internalValidation(s.crd, version)
	if err != nil {
		return err
	}
	var props *apiextensionsinternal.JSONSchemaProps
	if internal != nil {
		props = internal.OpenAPIV3Schema
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		return err
	}
	subresources, err := apiextensionshelpers.GetSubresourcesForVersion(s.crd, version)
	if err != nil {
		return err
	}
	var statusSpec *apiextensionsinternal.CustomResourceSubresourceStatus
	var statusValidator apiservervalidation.SchemaValidator
	if subresources != nil && subresources.Status != nil {
		statusSpec = &apiextensionsinternal.CustomResourceSubresourceStatus{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceStatus_To_apiextensions_CustomResourceSubresourceStatus(subresources.Status, statusSpec, nil); err != nil {
			return err
		}
		if props != nil && props.Properties != nil {
			if statusSchema, ok := props.Properties["status"]; ok {
				if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&statusSchema); err != nil {
					return err
				}
			}
		}
	}
	var scaleSpec *apiextensionsinternal.CustomResourceSubresourceScale
	if subresources != nil && subresources.Scale != nil {
		scaleSpec = &apiextensionsinternal.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(subresources.Scale, scaleSpec, nil); err != nil {
			return err
		}
	}
	var selectable []apiextensionsv1.SelectableField
	for _, v := range s.crd.Spec.Versions {
		if v.Name == version {
			selectable = v.SelectableFields
		}
	}
	main := customresource.NewStrategy(s.typer, s.namespaced, s.kind(version), validator, statusValidator, s.structural[version], statusSpec, scaleSpec, selectable)
	strategies := versionStrategies{main: main}
	if statusSpec != nil {
		strategies.status = customresource.NewStatusStrategy(main)
	}
	s.strategies[version] = strategies
	return nil
}

// defaultDeprecationWarning is the CRD handler's (unexported there).
func defaultDeprecationWarning(deprecatedVersion string, crd apiextensionsv1.CustomResourceDefinitionSpec) string {
	msg := fmt.Sprintf("%s/%s %s is deprecated", crd.Group, deprecatedVersion, crd.Names.Kind)
	var servedNonDeprecatedVersions []string
	for _, v := range crd.Versions {
		if v.Served && !v.Deprecated && version.CompareKubeAwareVersionStrings(deprecatedVersion, v.Name) < 0 {
			servedNonDeprecatedVersions = append(servedNonDeprecatedVersions, v.Name)
		}
	}
	if len(servedNonDeprecatedVersions) == 0 {
		return msg
	}
	sort.Slice(servedNonDeprecatedVersions, func(i, j int) bool {
		return version.CompareKubeAwareVersionStrings(servedNonDeprecatedVersions[i], servedNonDeprecatedVersions[j]) > 0
	})
	return msg + fmt.Sprintf("; use %s/%s %s", crd.Group, servedNonDeprecatedVersions[0], crd.Names.Kind)
}
