package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"

	"github.com/google/cel-go/common/types/ref"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apiserver/pkg/admission"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"
)

type compileRequest struct {
	Policy     policyShape    `json:"policy"`
	Kind       expressionKind `json:"kind"`
	Expression string         `json:"expression"`
	// Stored selects the environment of expressions already stored (the one the admission plugins
	// run); otherwise the stricter one of expressions being created.
	Stored bool `json:"stored"`
}

type compileAnswer struct {
	OutputType       string      `json:"outputType,omitempty"`
	CompilationError string      `json:"compilationError,omitempty"`
	Cost             *costResult `json:"cost,omitempty"`
}

func handleCompile(raw json.RawMessage) (any, error) {
	request, err := decode[compileRequest](raw)
	if err != nil {
		return nil, err
	}
	accessor, err := request.Kind.accessor(request.Expression)
	if err != nil {
		return nil, err
	}
	mode := modeOf(request.Stored)
	compiler, err := policyCompiler(request.Policy, mode)
	if err != nil {
		return nil, err
	}
	result := compiler.CompileCELExpression(accessor, request.Kind.declarations(request.Policy.HasParams), mode)
	if result.Error != nil {
		return compileAnswer{CompilationError: result.Error.Error()}, nil
	}
	cost, err := estimate(request.Policy, request.Kind, request.Expression, mode)
	if err != nil {
		return nil, err
	}
	return compileAnswer{OutputType: result.OutputType.String(), Cost: cost}, nil
}

func handleEstimateCost(raw json.RawMessage) (any, error) {
	request, err := decode[compileRequest](raw)
	if err != nil {
		return nil, err
	}
	cost, err := estimate(request.Policy, request.Kind, request.Expression, modeOf(request.Stored))
	if err != nil {
		return compileAnswer{CompilationError: err.Error()}, nil
	}
	return compileAnswer{Cost: cost}, nil
}

type groupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

type groupVersionResource struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

type requestInput struct {
	Operation       string                `json:"operation"`
	Kind            groupVersionKind      `json:"kind"`
	Resource        groupVersionResource  `json:"resource"`
	SubResource     string                `json:"subResource"`
	RequestKind     *groupVersionKind     `json:"requestKind"`
	RequestResource *groupVersionResource `json:"requestResource"`
	Name            string                `json:"name"`
	Namespace       string                `json:"namespace"`
	UserInfo        struct {
		Username string              `json:"username"`
		UID      string              `json:"uid"`
		Groups   []string            `json:"groups"`
		Extra    map[string][]string `json:"extra"`
	} `json:"userInfo"`
	DryRun  bool            `json:"dryRun"`
	Options json.RawMessage `json:"options"`
}

type admissionInput struct {
	Request         requestInput      `json:"request"`
	Object          json.RawMessage   `json:"object"`
	OldObject       json.RawMessage   `json:"oldObject"`
	Params          json.RawMessage   `json:"params"`
	NamespaceObject *corev1.Namespace `json:"namespaceObject"`
	// Crds give the schema an ApplyConfiguration on a custom resource is merged by.
	Crds       []apiextensionsv1.CustomResourceDefinition `json:"crds,omitempty"`
	Authorizer []authorizerRule                           `json:"authorizer"`
}

type evaluateRequest struct {
	Policy      policyShape    `json:"policy"`
	Kind        expressionKind `json:"kind"`
	Expressions []*string      `json:"expressions"`
	Input       admissionInput `json:"input"`
	// Budget is the runtime cost budget left, as a decimal string.
	Budget string `json:"budget"`
}

type expressionResult struct {
	Value any    `json:"value,omitempty"`
	Type  string `json:"type,omitempty"`
	Error string `json:"error,omitempty"`
}

type evaluateAnswer struct {
	Results []expressionResult `json:"results,omitempty"`
	// Object is the object after a JSONPatch mutation (or after an ApplyConfiguration, the configuration to merge).
	Object          any               `json:"object,omitempty"`
	RemainingBudget string            `json:"remainingBudget"`
	BudgetError     string            `json:"budgetError,omitempty"`
	Unanswered      []authorizerCheck `json:"unansweredAuthorizerChecks,omitempty"`
}

var evaluators = struct {
	sync.Mutex
	conditions map[string]plugincel.ConditionEvaluator
	mutations  map[string]plugincel.MutatingEvaluator
}{conditions: map[string]plugincel.ConditionEvaluator{}, mutations: map[string]plugincel.MutatingEvaluator{}}

// handleEvaluate evaluates a policy's expressions of one kind on one request in one call of the API
// server's evaluator (ForInput): variables computed at most once, the cost budget shared.
func handleEvaluate(raw json.RawMessage) (any, error) {
	request, err := decode[evaluateRequest](raw)
	if err != nil {
		return nil, err
	}
	budget, err := strconv.ParseInt(request.Budget, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("cel-engine: budget %q is not an int64", request.Budget)
	}
	compiler, err := policyCompiler(request.Policy, environment.StoredExpressions)
	if err != nil {
		return nil, err
	}
	attributes, namespace, err := admissionAttributes(request.Input)
	if err != nil {
		return nil, err
	}
	authz := &declaredAuthorizer{rules: request.Input.Authorizer}
	bindings := plugincel.OptionalVariableBindings{Authorizer: authz}
	if bindings.VersionedParams, err = objectOf(request.Input.Params); err != nil {
		return nil, err
	}
	matched := schema.GroupVersionResource(metaGVR(request.Input.Request.Resource))
	admissionRequest := plugincel.CreateAdmissionRequest(attributes.Attributes, metaGVR(request.Input.Request.Resource), metaGVK(request.Input.Request.Kind))
	if request.Kind == kindMatchCondition {
		// The matcher (webhook/matchconditions/matcher.go) passes no namespace and the request's own resource.
		namespace = nil
		admissionRequest = plugincel.CreateAdmissionRequest(attributes.Attributes, metav1.GroupVersionResource(attributes.GetResource()), metaGVK(request.Input.Request.Kind))
	}
	declarations := request.Kind.declarations(request.Policy.HasParams)
	expressions, _ := json.Marshal(request.Expressions)
	key := shapeKey(request.Policy, string(request.Kind), string(expressions))
	answer := evaluateAnswer{}
	ctx := context.Background()

	switch request.Kind {
	case kindApplyConfiguration, kindJSONPatch:
		if len(request.Expressions) != 1 || request.Expressions[0] == nil {
			return nil, errors.New("cel-engine: a mutation is evaluated one expression at a time")
		}
		evaluators.Lock()
		evaluator, ok := evaluators.mutations[key]
		if !ok {
			accessor, _ := request.Kind.accessor(*request.Expressions[0])
			evaluator = compiler.CompileMutatingEvaluator(accessor, declarations, environment.StoredExpressions)
			evaluators.mutations[key] = evaluator
		}
		evaluators.Unlock()
		answer.RemainingBudget = request.Budget
		// The mutating dispatcher creates the composition context (where variables live) itself, per
		// policy invocation (mutating/dispatcher.go); the mutating evaluator's ForInput does not.
		ctx = compiler.CreateContext(ctx)
		if request.Kind == kindJSONPatch {
			patched, err := patch.NewJSONPatcher(evaluator).Patch(ctx, patch.Request{
				MatchedResource: matched, VersionedAttributes: attributes, ObjectInterfaces: objectInterfaces, OptionalVariables: bindings, Namespace: namespace,
			}, budget)
			if err != nil {
				answer.Results = []expressionResult{{Error: err.Error()}}
			} else {
				answer.Object = patched.(*unstructured.Unstructured).Object
			}
			break
		}
		// The server's ApplyConfiguration patcher merges by the kind's schema (patch/smd.go), through the
		// type converter its dispatcher finds for the kind: the shipped built-in schemas and the given CRDs'.
		converters, err := typeConverters(request.Input.Crds)
		if err != nil {
			return nil, err
		}
		converter := converters.GetTypeConverter(attributes.VersionedKind)
		if converter == nil {
			answer.Results = []expressionResult{{Error: apierrors.NewServiceUnavailable(fmt.Sprintf("Resource kind %s not found. There can be a delay between when CustomResourceDefinitions are created and when they are available.", attributes.VersionedKind)).Error()}}
			break
		}
		patched, err := patch.NewApplyConfigurationPatcher(evaluator).Patch(ctx, patch.Request{
			MatchedResource: matched, VersionedAttributes: attributes, ObjectInterfaces: objectInterfaces, OptionalVariables: bindings, Namespace: namespace, TypeConverter: converter,
		}, budget)
		if err != nil {
			answer.Results = []expressionResult{{Error: err.Error()}}
		} else {
			answer.Object = patched.(*unstructured.Unstructured).Object
		}
	default:
		evaluators.Lock()
		evaluator, ok := evaluators.conditions[key]
		if !ok {
			accessors := make([]plugincel.ExpressionAccessor, len(request.Expressions))
			for i, expression := range request.Expressions {
				if expression != nil {
					accessors[i], err = request.Kind.accessor(*expression)
					if err != nil {
						evaluators.Unlock()
						return nil, err
					}
				}
			}
			evaluator = compiler.CompileCondition(accessors, declarations, environment.StoredExpressions)
			evaluators.conditions[key] = evaluator
		}
		evaluators.Unlock()
		results, remaining, err := evaluator.ForInput(ctx, attributes, admissionRequest, bindings, namespace, budget)
		answer.RemainingBudget = strconv.FormatInt(remaining, 10)
		if err != nil {
			answer.BudgetError = err.Error()
		}
		answer.Results = make([]expressionResult, len(results))
		for i, result := range results {
			answer.Results[i] = resultOf(result)
		}
	}
	answer.Unanswered = authz.unanswered
	return answer, nil
}

func resultOf(result plugincel.EvaluationResult) expressionResult {
	if result.Error != nil {
		return expressionResult{Error: result.Error.Error()}
	}
	if result.EvalResult == nil {
		return expressionResult{}
	}
	return expressionResult{Value: jsonValue(result.EvalResult), Type: result.EvalResult.Type().TypeName()}
}

// jsonValue is a CEL value as JSON (as the API server marshals JSON Patch values: through structpb).
func jsonValue(value ref.Val) any {
	native, err := value.ConvertToNative(reflect.TypeOf(&structpb.Value{}))
	if err != nil {
		return fmt.Sprint(value.Value())
	}
	text, err := protojson.Marshal(native.(*structpb.Value))
	if err != nil {
		return fmt.Sprint(value.Value())
	}
	var decoded any
	_ = json.Unmarshal(text, &decoded)
	return decoded
}

var objectInterfaces = admission.NewObjectInterfacesFromScheme(runtime.NewScheme())

// admissionAttributes builds what the admission chain hands the policy plugins for the request.
func admissionAttributes(input admissionInput) (*admission.VersionedAttributes, *corev1.Namespace, error) {
	request := input.Request
	requestKind := request.Kind
	if request.RequestKind != nil {
		requestKind = *request.RequestKind
	}
	requestResource := request.Resource
	if request.RequestResource != nil {
		requestResource = *request.RequestResource
	}
	object, err := objectOf(input.Object)
	if err != nil {
		return nil, nil, err
	}
	oldObject, err := objectOf(input.OldObject)
	if err != nil {
		return nil, nil, err
	}
	options, err := objectOf(request.Options)
	if err != nil {
		return nil, nil, err
	}
	userInfo := &user.DefaultInfo{Name: request.UserInfo.Username, UID: request.UserInfo.UID, Groups: request.UserInfo.Groups, Extra: request.UserInfo.Extra}
	attributes := admission.NewAttributesRecord(object, oldObject,
		schema.GroupVersionKind(metaGVK(requestKind)), request.Namespace, request.Name, schema.GroupVersionResource(metaGVR(requestResource)),
		request.SubResource, admission.Operation(request.Operation), options, request.DryRun, userInfo)
	versioned := &admission.VersionedAttributes{
		Attributes:         attributes,
		VersionedKind:      schema.GroupVersionKind(metaGVK(request.Kind)),
		VersionedObject:    admission.NewLazyObject(object),
		VersionedOldObject: admission.NewLazyObject(oldObject),
	}
	return versioned, plugincel.CreateNamespaceObject(input.NamespaceObject), nil
}

// objectOf decodes JSON as the API server decodes an object: whole numbers int64, others float64; null is no object.
func objectOf(text json.RawMessage) (runtime.Object, error) {
	if len(text) == 0 || string(text) == "null" {
		return nil, nil
	}
	var object map[string]any
	if err := utiljson.Unmarshal(text, &object); err != nil {
		return nil, fmt.Errorf("cel-engine: an object is not a JSON object: %w", err)
	}
	return &unstructured.Unstructured{Object: object}, nil
}

func metaGVK(k groupVersionKind) metav1.GroupVersionKind {
	return metav1.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}
}

func metaGVR(r groupVersionResource) metav1.GroupVersionResource {
	return metav1.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}
