package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/go-logr/logr"
	"sort"
	"strings"
	_ "unsafe" // go:linkname

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/client-go/informers"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// The plugins' own compilers (unexported in k8s.io/apiserver): the policy compiled exactly as the
// plugin's policy source compiles it. The build passes -ldflags=-checklinkname=0 for these.
//
//go:linkname compileMutatingPolicy k8s.io/apiserver/pkg/admission/plugin/policy/mutating.compilePolicy
func compileMutatingPolicy(policy *admissionregistrationv1.MutatingAdmissionPolicy) mutating.PolicyEvaluator

//go:linkname compileValidatingPolicy k8s.io/apiserver/pkg/admission/plugin/policy/validating.compilePolicy
func compileValidatingPolicy(policy *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator

// admitRequest is a request and everything the API server's policy plugins would read from its caches.
type admitRequest struct {
	Input              admissionInput                                             `json:"input"`
	MutatingPolicies   []admissionregistrationv1.MutatingAdmissionPolicy          `json:"mutatingPolicies"`
	MutatingBindings   []admissionregistrationv1.MutatingAdmissionPolicyBinding   `json:"mutatingBindings"`
	ValidatingPolicies []admissionregistrationv1.ValidatingAdmissionPolicy        `json:"validatingPolicies"`
	ValidatingBindings []admissionregistrationv1.ValidatingAdmissionPolicyBinding `json:"validatingBindings"`
	// Params are the objects a paramRef can select, of any kind.
	Params []unstructured.Unstructured `json:"params"`
	// ParamScopes is each paramKind's scope, "Namespaced" or "Cluster", by "apiVersion/Kind".
	ParamScopes map[string]string  `json:"paramScopes"`
	Namespaces  []corev1.Namespace `json:"namespaces"`
	// Crds give the schemas an ApplyConfiguration on a custom resource is merged by.
	Crds []apiextensionsv1.CustomResourceDefinition `json:"crds"`
	// PolicySet names policies and bindings registered before (registerPolicies), used instead of the four lists.
	PolicySet string `json:"policySet"`
	// OmitObject leaves the object out of the answer (a caller that only needs the decision).
	OmitObject bool `json:"omitObject"`
	// AdmissionOnly leaves out what the API server does around the policy plugins (the registry's validation of a
	// custom resource between them): set by serve, which enforces a policy as a webhook inside the server's own
	// chain, where the server still does it.
	AdmissionOnly bool `json:"admissionOnly"`
}

type admitStatus struct {
	Code    int32                 `json:"code"`
	Reason  string                `json:"reason"`
	Message string                `json:"message"`
	Details *metav1.StatusDetails `json:"details,omitempty"`
}

// admitStep is one policy's invocation through one binding, in the order the plugins ran them.
type admitStep struct {
	Plugin  string `json:"plugin"`
	Policy  string `json:"policy"`
	Binding string `json:"binding"`
	// Pass is 1, or 2 when the admission chain reinvoked the mutating plugins (validating plugins: 1).
	Pass int `json:"pass"`
}

type admitAnswer struct {
	Allowed          bool              `json:"allowed"`
	Status           *admitStatus      `json:"status,omitempty"`
	Warnings         []string          `json:"warnings"`
	AuditAnnotations map[string]string `json:"auditAnnotations"`
	Object           any               `json:"object"`
	Steps            []admitStep       `json:"steps"`
	Unanswered       []authorizerCheck `json:"unansweredAuthorizerChecks,omitempty"`
}

// validateAfterMutation validates the object after the mutating plugins as the API server's registry
// does before the validating ones (admit_registry.go: the CRD's schema and rules, the 422).
var validateAfterMutation func(attributes admission.Attributes, crds []apiextensionsv1.CustomResourceDefinition) error

// handleAdmit runs a request through the API server's MutatingAdmissionPolicy and
// ValidatingAdmissionPolicy plugins' dispatchers, chained and reinvoked by k8s.io/apiserver's own
// admission chain, over in-memory listers of the policies, bindings, params and namespaces given.
func handleAdmit(raw json.RawMessage) (any, error) {
	request, err := decode[admitRequest](raw)
	if err != nil {
		return nil, err
	}
	prepared, err := preparedFor(&request)
	if err != nil {
		return nil, err
	}
	attributes, _, err := admissionAttributes(request.Input)
	if err != nil {
		return nil, err
	}
	record := &recordingAttributes{Attributes: attributes.Attributes, annotations: map[string]string{}}
	answer := admitAnswer{Warnings: []string{}, AuditAnnotations: record.annotations, Steps: []admitStep{}}
	// Also with AdmissionOnly: the matcher reads the namespace from the lister alone, and a namespace that is gone is
	// refused as NamespaceLifecycle refuses it.
	if namespace := record.GetNamespace(); namespace != "" && !declaresNamespace(request.Namespaces, namespace) {
		// The NamespaceLifecycle plugin, before any policy, refuses a request into a namespace that does not exist.
		return answer.refused(apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, namespace), record), nil
	}
	env, err := newAdmitEnvironment(request, prepared, &answer)
	if err != nil {
		return nil, err
	}
	warnings := &warningRecorder{}
	ctx := warning.WithWarningRecorder(context.Background(), warnings)
	chain, err := env.chain()
	if err != nil {
		return nil, err
	}
	err = chain.(admission.MutationInterface).Admit(ctx, record, objectInterfaces)
	if err == nil && validateAfterMutation != nil && !request.AdmissionOnly {
		err = validateAfterMutation(record, request.Crds)
	}
	if err == nil {
		err = chain.(admission.ValidationInterface).Validate(ctx, record, objectInterfaces)
	}
	answer.Warnings = append(answer.Warnings, warnings.texts...)
	answer.Unanswered = env.authorizer.unanswered
	if err != nil {
		return answer.refused(err, record), nil
	}
	answer.Allowed = true
	if object := record.GetObject(); object != nil && !request.OmitObject {
		answer.Object = object.(*unstructured.Unstructured).Object
	}
	return answer, nil
}

func (a admitAnswer) refused(err error, record *recordingAttributes) admitAnswer {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		status = apierrors.NewInternalError(err)
	}
	s := status.Status()
	a.Allowed = false
	a.Status = &admitStatus{Code: s.Code, Reason: string(s.Reason), Message: s.Message, Details: s.Details}
	if object := record.GetObject(); object != nil {
		a.Object = object.(*unstructured.Unstructured).Object
	}
	return a
}

func declaresNamespace(namespaces []corev1.Namespace, name string) bool {
	for _, namespace := range namespaces {
		if namespace.Name == name {
			return true
		}
	}
	return false
}

// recordingAttributes keeps the audit annotations the plugins add (the attributes record keeps them private).
type recordingAttributes struct {
	admission.Attributes
	annotations map[string]string
}

func (r *recordingAttributes) AddAnnotation(key, value string) error {
	if err := r.Attributes.AddAnnotation(key, value); err != nil {
		return err
	}
	r.annotations[key] = value
	return nil
}

// admitEnvironment is what the plugins read: hooks over in-memory listers, the namespace lister,
// the type converters and the test's authorizer.
type admitEnvironment struct {
	request    admitRequest
	prepared   *preparedPolicies
	answer     *admitAnswer
	authorizer *declaredAuthorizer
	matcher    *matching.Matcher
	params     map[schema.GroupVersionKind]*paramInformer
	converters patch.TypeConverterManager
	pass       int
}

func newAdmitEnvironment(request admitRequest, prepared *preparedPolicies, answer *admitAnswer) (*admitEnvironment, error) {
	namespaces := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for i := range request.Namespaces {
		if err := namespaces.Add(&request.Namespaces[i]); err != nil {
			return nil, err
		}
	}
	env := &admitEnvironment{
		request:    request,
		prepared:   prepared,
		answer:     answer,
		authorizer: &declaredAuthorizer{rules: request.Input.Authorizer},
		// No client: a namespace the lister misses was refused above, as NamespaceLifecycle refuses it.
		matcher: matching.NewMatcher(listersv1.NewNamespaceLister(namespaces), nil),
		params:  map[schema.GroupVersionKind]*paramInformer{},
	}
	for i := range request.Params {
		param := &request.Params[i]
		gvk := param.GroupVersionKind()
		informer, ok := env.params[gvk]
		if !ok {
			informer = &paramInformer{indexer: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}), resource: schema.GroupResource{Group: gvk.Group, Resource: strings.ToLower(gvk.Kind)}}
			env.params[gvk] = informer
		}
		if err := informer.indexer.Add(param); err != nil {
			return nil, err
		}
	}
	converters, err := typeConverters(request.Crds)
	if err != nil {
		return nil, err
	}
	env.converters = converters
	return env, nil
}

// chain is the API server's admission chain of the two policy plugins, with its reinvocation
// (admission.Plugins.NewFromPlugins wraps the chain in the server's reinvocation handler).
func (env *admitEnvironment) chain() (admission.Interface, error) {
	plugins := admission.NewPlugins()
	// The chain logs the plugins it loads: not this engine's output.
	klog.SetLogger(logr.Discard())
	plugins.Register(mutating.PluginName, func(io.Reader) (admission.Interface, error) { return &mutatingPlugin{env: env}, nil })
	plugins.Register(validating.PluginName, func(io.Reader) (admission.Interface, error) { return &validatingPlugin{env: env}, nil })
	return plugins.NewFromPlugins([]string{mutating.PluginName, validating.PluginName}, noConfig{}, noInitializer{}, nil)
}

type noConfig struct{}

func (noConfig) ConfigFor(string) (io.Reader, error) { return nil, nil }

type noInitializer struct{}

func (noInitializer) Initialize(admission.Interface) {}

// mutatingPlugin is the MutatingAdmissionPolicy plugin's dispatch (generic.Plugin.Dispatch) over this request's hooks.
type mutatingPlugin struct{ env *admitEnvironment }

func (*mutatingPlugin) Handles(operation admission.Operation) bool {
	// As the plugin's handler: there is no object to mutate on DELETE.
	return operation == admission.Create || operation == admission.Update || operation == admission.Connect
}

func (p *mutatingPlugin) Admit(ctx context.Context, attributes admission.Attributes, o admission.ObjectInterfaces) error {
	p.env.pass++
	dispatcher := mutating.NewDispatcher(p.env.authorizer, p.env.matcher, p.env.converters)
	return dispatcher.Dispatch(ctx, attributes, o, p.env.mutatingHooks())
}

type validatingPlugin struct{ env *admitEnvironment }

func (*validatingPlugin) Handles(admission.Operation) bool { return true }

func (p *validatingPlugin) Validate(ctx context.Context, attributes admission.Attributes, o admission.ObjectInterfaces) error {
	dispatcher := validating.NewDispatcher(p.env.authorizer, generic.NewPolicyMatcher(p.env.matcher))
	return dispatcher.Dispatch(ctx, attributes, o, p.env.validatingHooks())
}

// mutatingHooks is one hook per policy and binding, in the prepared order (preparePolicies).
func (env *admitEnvironment) mutatingHooks() []mutating.PolicyHook {
	var hooks []mutating.PolicyHook
	for _, pair := range env.prepared.mutating {
		evaluator := pair.evaluator
		// A copy of the mutators: the first one records the invocation for this request's steps.
		evaluator.Mutators = append([]patch.Patcher(nil), evaluator.Mutators...)
		if len(evaluator.Mutators) > 0 {
			evaluator.Mutators[0] = &recordingPatcher{Patcher: evaluator.Mutators[0], record: env.recorder(mutating.PluginName, pair.policy.Name, pair.binding.Name)}
		}
		hook := mutating.PolicyHook{Policy: pair.policy, Bindings: []*admissionregistrationv1.MutatingAdmissionPolicyBinding{pair.binding}, Evaluator: evaluator}
		hook.ParamInformer, hook.ParamScope, hook.ConfigurationError = env.paramSource(pair.policy.Spec.ParamKind)
		hooks = append(hooks, hook)
	}
	return hooks
}

func (env *admitEnvironment) validatingHooks() []validating.PolicyHook {
	var hooks []validating.PolicyHook
	for _, pair := range env.prepared.validating {
		evaluator := &recordingValidator{Validator: pair.evaluator, record: env.recorder(validating.PluginName, pair.policy.Name, pair.binding.Name)}
		hook := validating.PolicyHook{Policy: pair.policy, Bindings: []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{pair.binding}, Evaluator: evaluator}
		hook.ParamInformer, hook.ParamScope, hook.ConfigurationError = env.paramSource(pair.policy.Spec.ParamKind)
		hooks = append(hooks, hook)
	}
	return hooks
}

// preparedPolicies are a request's policies paired with their bindings, defaulted and compiled: policies by name and
// then bindings by name, since the server's policy source gathers them from a map, in no defined order.
type preparedPolicies struct {
	mutating   []preparedPair[admissionregistrationv1.MutatingAdmissionPolicy, admissionregistrationv1.MutatingAdmissionPolicyBinding, mutating.PolicyEvaluator]
	validating []preparedPair[admissionregistrationv1.ValidatingAdmissionPolicy, admissionregistrationv1.ValidatingAdmissionPolicyBinding, validating.Validator]
}

type preparedPair[P, B, E any] struct {
	policy    *P
	binding   *B
	evaluator E
}

// policySets are the policies registered once (registerPolicies) and named by requests: serve evaluates the same few
// on every review, and decoding, defaulting and looking them up again each time costs more than evaluating them.
var policySets = map[string]*preparedPolicies{}

type policySetRequest struct {
	MutatingPolicies   []admissionregistrationv1.MutatingAdmissionPolicy          `json:"mutatingPolicies"`
	MutatingBindings   []admissionregistrationv1.MutatingAdmissionPolicyBinding   `json:"mutatingBindings"`
	ValidatingPolicies []admissionregistrationv1.ValidatingAdmissionPolicy        `json:"validatingPolicies"`
	ValidatingBindings []admissionregistrationv1.ValidatingAdmissionPolicyBinding `json:"validatingBindings"`
}

func handleRegisterPolicies(raw json.RawMessage) (any, error) {
	set, err := decode[policySetRequest](raw)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	id := hex.EncodeToString(sum[:8])
	policySets[id] = preparePolicies(set)
	return map[string]string{"id": id}, nil
}

// preparedFor is the request's registered set, or its own lists prepared now.
func preparedFor(request *admitRequest) (*preparedPolicies, error) {
	if request.PolicySet == "" {
		return preparePolicies(policySetRequest{request.MutatingPolicies, request.MutatingBindings, request.ValidatingPolicies, request.ValidatingBindings}), nil
	}
	set, ok := policySets[request.PolicySet]
	if !ok {
		return nil, fmt.Errorf("cel-engine: no policy set %q is registered", request.PolicySet)
	}
	return set, nil
}

func preparePolicies(set policySetRequest) *preparedPolicies {
	prepared := &preparedPolicies{}
	mutatingBindings := sortedByName(set.MutatingBindings, func(b admissionregistrationv1.MutatingAdmissionPolicyBinding) string { return b.Name })
	for _, policy := range sortedByName(set.MutatingPolicies, func(p admissionregistrationv1.MutatingAdmissionPolicy) string { return p.Name }) {
		defaulted := defaultedMutatingPolicy(policy)
		for _, binding := range mutatingBindings {
			if binding.Spec.PolicyName == defaulted.Name {
				prepared.mutating = append(prepared.mutating, preparedPair[admissionregistrationv1.MutatingAdmissionPolicy, admissionregistrationv1.MutatingAdmissionPolicyBinding, mutating.PolicyEvaluator]{
					policy: defaulted, binding: defaultedMutatingBinding(binding), evaluator: compiledMutating(defaulted),
				})
			}
		}
	}
	validatingBindings := sortedByName(set.ValidatingBindings, func(b admissionregistrationv1.ValidatingAdmissionPolicyBinding) string { return b.Name })
	for _, policy := range sortedByName(set.ValidatingPolicies, func(p admissionregistrationv1.ValidatingAdmissionPolicy) string { return p.Name }) {
		defaulted := defaultedValidatingPolicy(policy)
		for _, binding := range validatingBindings {
			if binding.Spec.PolicyName == defaulted.Name {
				prepared.validating = append(prepared.validating, preparedPair[admissionregistrationv1.ValidatingAdmissionPolicy, admissionregistrationv1.ValidatingAdmissionPolicyBinding, validating.Validator]{
					policy: defaulted, binding: defaultedValidatingBinding(binding), evaluator: compiledValidating(defaulted),
				})
			}
		}
	}
	return prepared
}

func sortedByName[T any](items []T, name func(T) string) []T {
	sorted := append([]T(nil), items...)
	sort.SliceStable(sorted, func(i, j int) bool { return name(sorted[i]) < name(sorted[j]) })
	return sorted
}

func (env *admitEnvironment) recorder(plugin, policy, binding string) func() {
	return func() {
		pass := 1
		if plugin == mutating.PluginName {
			pass = env.pass
		}
		env.answer.Steps = append(env.answer.Steps, admitStep{Plugin: plugin, Policy: policy, Binding: binding, Pass: pass})
	}
}

// paramSource is the informer and scope of a policy's paramKind, as the policy source resolves them.
func (env *admitEnvironment) paramSource(paramKind *admissionregistrationv1.ParamKind) (informers.GenericInformer, meta.RESTScope, error) {
	if paramKind == nil {
		return nil, nil, nil
	}
	gv, err := schema.ParseGroupVersion(paramKind.APIVersion)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to parse paramKind APIVersion: %w", err)
	}
	gvk := gv.WithKind(paramKind.Kind)
	var scope meta.RESTScope
	switch env.request.ParamScopes[paramKind.APIVersion+"/"+paramKind.Kind] {
	case "Namespaced":
		scope = meta.RESTScopeNamespace
	case "Cluster":
		scope = meta.RESTScopeRoot
	default:
		return nil, nil, fmt.Errorf("failed to find resource referenced by paramKind: '%v'", gvk)
	}
	informer, ok := env.params[gvk]
	if !ok {
		informer = &paramInformer{indexer: cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}), resource: schema.GroupResource{Group: gvk.Group, Resource: strings.ToLower(gvk.Kind)}}
	}
	return informer, scope, nil
}

// paramInformer serves a paramKind's objects from memory, always synced.
type paramInformer struct {
	indexer  cache.Indexer
	resource schema.GroupResource
}

func (p *paramInformer) Informer() cache.SharedIndexInformer { return syncedInformer{} }
func (p *paramInformer) Lister() cache.GenericLister {
	return cache.NewGenericLister(p.indexer, p.resource)
}

// syncedInformer is all of an informer that CollectParams uses: HasSynced.
type syncedInformer struct{ cache.SharedIndexInformer }

func (syncedInformer) HasSynced() bool { return true }

type recordingPatcher struct {
	patch.Patcher
	record func()
}

func (r *recordingPatcher) Patch(ctx context.Context, request patch.Request, budget int64) (_ runtimeObject, err error) {
	r.record()
	return r.Patcher.Patch(ctx, request, budget)
}

type recordingValidator struct {
	validating.Validator
	record func()
}

func (r *recordingValidator) Validate(ctx context.Context, matched schema.GroupVersionResource, versioned *admission.VersionedAttributes, params runtimeObject, namespace *corev1.Namespace, budget int64, authz authorizerInterface) validating.ValidateResult {
	r.record()
	return r.Validator.Validate(ctx, matched, versioned, params, namespace, budget, authz)
}

type runtimeObject = runtime.Object
type authorizerInterface = authorizer.UnconditionalAuthorizer

// The plugins compile a policy once and evaluate it on every request; so does the engine, by the policy's content.
var compiledPolicies = struct {
	mutating   map[string]mutating.PolicyEvaluator
	validating map[string]validating.Validator
}{mutating: map[string]mutating.PolicyEvaluator{}, validating: map[string]validating.Validator{}}

func compiledMutating(policy *admissionregistrationv1.MutatingAdmissionPolicy) mutating.PolicyEvaluator {
	key := policyKey(policy)
	evaluator, ok := compiledPolicies.mutating[key]
	if !ok {
		evaluator = compileMutatingPolicy(policy)
		compiledPolicies.mutating[key] = evaluator
	}
	return evaluator
}

func compiledValidating(policy *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	key := policyKey(policy)
	evaluator, ok := compiledPolicies.validating[key]
	if !ok {
		evaluator = compileValidatingPolicy(policy)
		compiledPolicies.validating[key] = evaluator
	}
	return evaluator
}

func policyKey(policy any) string {
	text, _ := json.Marshal(policy)
	return string(text)
}
