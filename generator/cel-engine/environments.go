package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"k8s.io/apimachinery/pkg/util/version"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	"k8s.io/apiserver/pkg/cel/mutation"
)

// policyShape is what decides a policy's CEL environments: the Kubernetes
// minor whose libraries it sees, whether it has params, and its variables.
type policyShape struct {
	// Version is the compatibility version as "1.37" (1.30 to 1.37); empty: the API server's default.
	Version   string            `json:"version,omitempty"`
	HasParams bool              `json:"hasParams"`
	Variables []namedExpression `json:"variables,omitempty"`
}

type namedExpression struct {
	Name       string `json:"name"`
	Expression string `json:"expression"`
}

// expressionKind names the policy field an expression is written in: it sets
// the result types the API server requires and the variables it declares.
type expressionKind string

const (
	kindValidation         expressionKind = "validation"
	kindMessageExpression  expressionKind = "messageExpression"
	kindAuditAnnotation    expressionKind = "auditAnnotation"
	kindMatchCondition     expressionKind = "matchCondition"
	kindVariable           expressionKind = "variable"
	kindApplyConfiguration expressionKind = "applyConfiguration"
	kindJSONPatch          expressionKind = "jsonPatch"
)

// accessor is the API server's own type for an expression of that kind (its ReturnTypes are the server's).
func (k expressionKind) accessor(expression string) (plugincel.ExpressionAccessor, error) {
	switch k {
	case kindValidation:
		return &validating.ValidationCondition{Expression: expression}, nil
	case kindMessageExpression:
		return &validating.MessageExpressionCondition{MessageExpression: expression}, nil
	case kindAuditAnnotation:
		return &validating.AuditAnnotationCondition{ValueExpression: expression}, nil
	case kindMatchCondition:
		return &matchconditions.MatchCondition{Expression: expression}, nil
	case kindVariable:
		return &validating.Variable{Expression: expression}, nil
	case kindApplyConfiguration:
		return &patch.ApplyConfigurationCondition{Expression: expression}, nil
	case kindJSONPatch:
		return &patch.JSONPatchCondition{Expression: expression}, nil
	}
	return nil, fmt.Errorf("cel-engine: unknown expression kind %q", k)
}

// declarations are the optional variables the API server declares for an expression of that kind
// (validating/plugin.go compilePolicy, mutating/compilation.go): messageExpressions have no authorizer,
// mutations see the patch types.
func (k expressionKind) declarations(hasParams bool) plugincel.OptionalVariableDeclarations {
	return plugincel.OptionalVariableDeclarations{
		HasParams:     hasParams,
		HasAuthorizer: k != kindMessageExpression,
		HasPatchTypes: k == kindApplyConfiguration || k == kindJSONPatch,
	}
}

func compatibilityVersion(text string) (*version.Version, error) {
	if text == "" {
		return environment.DefaultCompatibilityVersion(), nil
	}
	major, minor, ok := strings.Cut(text, ".")
	number, err := strconv.Atoi(minor)
	if !ok || major != "1" || err != nil || number < 30 || number > 37 {
		return nil, fmt.Errorf("cel-engine: compatibility version %q: expected a Kubernetes minor from 1.30 to 1.37", text)
	}
	return version.MajorMinor(1, uint(number)), nil
}

func modeOf(stored bool) environment.Type {
	if stored {
		return environment.StoredExpressions
	}
	return environment.NewExpressions
}

var compilers = struct {
	sync.Mutex
	byShape map[string]*plugincel.CompositedCompiler
}{byShape: map[string]*plugincel.CompositedCompiler{}}

func shapeKey(shape policyShape, extra ...string) string {
	text, _ := json.Marshal(shape)
	return string(text) + "\x00" + strings.Join(extra, "\x00")
}

// policyCompiler is the API server's composited compiler for the policy, its variables compiled
// as the admission plugins compile them at run time (stored expressions, authorizer declared).
func policyCompiler(shape policyShape, mode environment.Type) (*plugincel.CompositedCompiler, error) {
	key := shapeKey(shape, string(mode))
	compilers.Lock()
	defer compilers.Unlock()
	if compiler, ok := compilers.byShape[key]; ok {
		return compiler, nil
	}
	ver, err := compatibilityVersion(shape.Version)
	if err != nil {
		return nil, err
	}
	compiler, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(ver))
	if err != nil {
		return nil, err
	}
	compiler.CompileAndStoreVariables(variableAccessors(shape.Variables), kindVariable.declarations(shape.HasParams), mode)
	compilers.byShape[key] = compiler
	return compiler, nil
}

func variableAccessors(variables []namedExpression) []plugincel.NamedExpressionAccessor {
	accessors := make([]plugincel.NamedExpressionAccessor, len(variables))
	for i, variable := range variables {
		accessors[i] = &validating.Variable{Name: variable.Name, Expression: variable.Expression}
	}
	return accessors
}

type costResult struct {
	Min string `json:"min"`
	Max string `json:"max"`
}

// declarationsEnvSet declares what createEnvForOpts (plugin/cel/compile.go) declares, for the
// estimating compiler, which (as validating/typechecking.go does) stands in for the composited
// compiler's own to keep the checked AST that the static cost estimate needs. A non-nil object
// types object and oldObject as typechecking.go's buildEnvSet does; nil leaves them dyn.
func declarationsEnvSet(ver *version.Version, options plugincel.OptionalVariableDeclarations, object *apiservercel.DeclType) (*environment.EnvSet, error) {
	requestType := plugincel.BuildRequestType()
	namespaceType := plugincel.BuildNamespaceType()
	objectType, declTypes := cel.DynType, []*apiservercel.DeclType{namespaceType, requestType}
	if object != nil {
		objectType, declTypes = object.CelType(), append(declTypes, object)
	}
	envOptions := []cel.EnvOption{
		cel.Variable(plugincel.ObjectVarName, objectType),
		cel.Variable(plugincel.OldObjectVarName, objectType),
		cel.Variable(plugincel.NamespaceVarName, namespaceType.CelType()),
		cel.Variable(plugincel.RequestVarName, requestType.CelType()),
	}
	if options.HasParams {
		envOptions = append(envOptions, cel.Variable(plugincel.ParamsVarName, cel.DynType))
	}
	if options.HasAuthorizer {
		envOptions = append(envOptions,
			cel.Variable(plugincel.AuthorizerVarName, library.AuthorizerType),
			cel.Variable(plugincel.RequestResourceAuthorizerVarName, library.ResourceCheckType))
	}
	extended, err := environment.MustBaseEnvSet(ver).Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        envOptions,
		DeclTypes:         declTypes,
	}, environment.StrictCostOpt)
	if err != nil || !options.HasPatchTypes {
		return extended, err
	}
	return extended.Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions: []cel.EnvOption{
			common.ResolverEnvOption(&mutation.DynamicTypeResolver{}),
			environment.UnversionedLib(library.JSONPatch),
		},
	})
}

var estimators = struct {
	sync.Mutex
	byShape map[string]*plugincel.CompositedCompiler
}{byShape: map[string]*plugincel.CompositedCompiler{}}

// estimate is the static cost of an expression as library.CostEstimator computes it, in the
// environment the policy's expression of that kind is compiled in.
func estimate(shape policyShape, kind expressionKind, expression string, mode environment.Type) (*costResult, error) {
	return estimateWith(shape, kind, expression, mode, nil, "")
}

// estimateWith estimates with object and oldObject of the given type (nil: dyn); objectKey names the type in the cache.
func estimateWith(shape policyShape, kind expressionKind, expression string, mode environment.Type, object *apiservercel.DeclType, objectKey string) (*costResult, error) {
	options := kind.declarations(shape.HasParams)
	key := shapeKey(shape, string(mode), fmt.Sprint(options), objectKey)
	estimators.Lock()
	defer estimators.Unlock()
	compiler, ok := estimators.byShape[key]
	if !ok {
		ver, err := compatibilityVersion(shape.Version)
		if err != nil {
			return nil, err
		}
		envSet, err := declarationsEnvSet(ver, options, object)
		if err != nil {
			return nil, err
		}
		compiler, err = plugincel.NewCompositedCompilerForTypeChecking(envSet)
		if err != nil {
			return nil, err
		}
		compiler.Compiler = &estimatingCompiler{composition: compiler, sizes: objectSizes(object)}
		compiler.CompileAndStoreVariables(variableAccessors(shape.Variables), options, mode)
		estimators.byShape[key] = compiler
	}
	estimating := compiler.Compiler.(*estimatingCompiler)
	result := estimating.CompileCELExpression(&validating.Variable{Expression: expression}, options, mode)
	if result.Error != nil {
		return nil, result.Error
	}
	return estimating.last, nil
}

type estimatingCompiler struct {
	composition *plugincel.CompositedCompiler
	// sizes bounds the lists, maps and strings of a typed object; nil: no bounds (library.CostEstimator's own).
	sizes checker.CostEstimator
	last  *costResult
}

func (c *estimatingCompiler) CompileCELExpression(accessor plugincel.ExpressionAccessor, _ plugincel.OptionalVariableDeclarations, mode environment.Type) plugincel.CompilationResult {
	fail := func(detail string) plugincel.CompilationResult {
		return plugincel.CompilationResult{Error: &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: detail}, ExpressionAccessor: accessor}
	}
	env, err := c.composition.Env(mode)
	if err != nil {
		return fail(err.Error())
	}
	ast, issues := env.Compile(accessor.GetExpression())
	if issues != nil {
		return fail("compilation failed: " + issues.String())
	}
	cost, err := env.EstimateCost(ast, &library.CostEstimator{SizeEstimator: c.sizes})
	if err != nil {
		return fail(err.Error())
	}
	c.last = &costResult{Min: strconv.FormatUint(cost.Min, 10), Max: strconv.FormatUint(cost.Max, 10)}
	return plugincel.CompilationResult{OutputType: ast.OutputType(), ExpressionAccessor: accessor}
}
