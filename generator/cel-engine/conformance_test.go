package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	celpb "cel.dev/expr"
	_ "cel.dev/expr/conformance/proto2" // the messages the textproto data names, for reading it only:
	_ "cel.dev/expr/conformance/proto3" // the engine's environment never sees them
	testpb "cel.dev/expr/conformance/test"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// TestConformance runs cel-spec's simple conformance tests (SHAPER_CEL_SPEC_DIR: the
// tests/simple/testdata of cel.dev/expr, fetched by scripts/fetch-cel-spec.sh) in the
// engine's own environment for a validating policy's expressions (policyCompiler: the
// API server's base environment for the compatibility version, SHAPER_CEL_VERSION, and
// its composition), programs built as the admission plugins build them. cel-spec's
// procedure: parse, check unless disable_check, stop at check_only, evaluate with the
// bindings, compare the value, any evaluation error, or the deduced type.
// Tests needing what the API server's environment does not have are "not enabled",
// with the reason. Writes every outcome as JSON to SHAPER_CEL_CONFORMANCE_OUT.
func TestConformance(t *testing.T) {
	dir := os.Getenv("SHAPER_CEL_SPEC_DIR")
	if dir == "" {
		t.Fatal("SHAPER_CEL_SPEC_DIR is not set: run scripts/fetch-cel-spec.sh and point it at the directory it prints")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.textproto"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no *.textproto in %s (%v)", dir, err)
	}
	compiler, err := policyCompiler(policyShape{Version: os.Getenv("SHAPER_CEL_VERSION")}, environment.StoredExpressions)
	if err != nil {
		t.Fatal(err)
	}
	base, err := compiler.Env(environment.StoredExpressions)
	if err != nil {
		t.Fatal(err)
	}
	var outcomes []conformanceOutcome
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var suite testpb.SimpleTestFile
		if err := prototext.Unmarshal(text, &suite); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, section := range suite.GetSection() {
			for _, test := range section.GetTest() {
				outcome := runConformanceTest(base, test)
				outcome.File, outcome.Section, outcome.Name, outcome.Expr = suite.GetName(), section.GetName(), test.GetName(), test.GetExpr()
				if outcome.Status == statusFail {
					outcome.Finding = explainFailure(outcome)
				}
				outcomes = append(outcomes, outcome)
			}
		}
	}
	if out := os.Getenv("SHAPER_CEL_CONFORMANCE_OUT"); out != "" {
		text, _ := json.MarshalIndent(outcomes, "", " ")
		if err := os.WriteFile(out, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tally := map[string]map[string]int{}
	for _, outcome := range outcomes {
		if tally[outcome.File] == nil {
			tally[outcome.File] = map[string]int{}
		}
		tally[outcome.File][outcome.Status]++
		if outcome.Status == statusFail {
			t.Logf("FAIL %s/%s/%s: %s — %s", outcome.File, outcome.Section, outcome.Name, outcome.Expr, outcome.Detail)
		}
	}
	names := make([]string, 0, len(tally))
	for name := range tally {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		counts := tally[name]
		passed := counts[statusPass] + counts[statusEarlierError]
		fmt.Printf("%-16s passed %4d (error earlier %3d)  failed %3d  not enabled %4d\n", name, passed, counts[statusEarlierError], counts[statusFail], counts[statusNotEnabled])
	}
}

const (
	// statusEarlierError: cel-spec expects an evaluation error and the API server refuses the
	// expression before evaluating it (it never runs; the request gets the error). Counted as passed.
	statusEarlierError = "error earlier"
	statusPass         = "pass"
	statusFail         = "fail"
	statusNotEnabled   = "not enabled"
)

type conformanceOutcome struct {
	File    string `json:"file"`
	Section string `json:"section"`
	Name    string `json:"name"`
	Expr    string `json:"expr"`
	Status  string `json:"status"`
	// Reason is why a test is not enabled, or the kind of failure.
	Reason string `json:"reason,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Finding names, for a failure, the difference between cel-go (as the API server runs it) and cel-spec.
	Finding string `json:"finding,omitempty"`
}

// knownDifferences name what makes the API server's CEL answer otherwise than cel-spec's data, by
// where the test is (file/section/name) and what came back; a failure matching none stays unexplained.
var knownDifferences = []struct {
	where   *regexp.Regexp
	finding string
}{
	{regexp.MustCompile(`^string_ext/format/`), "string.format: the API server loads ext.Strings version 2, whose formatter (cel-go's first) writes %e as 1.234500×10⁰³, infinities as ∞, refuses %d of a double, and prints lists and maps in CEL syntax; cel-spec's data describes the later formatter (ext.Strings version 4)"},
	{regexp.MustCompile(`^string_ext/value_errors/(last)?indexof_out_of_range$`), "indexOf/lastIndexOf with an offset past the end: cel-go answers -1, cel-spec expects an error"},
	{regexp.MustCompile(`^timestamps/duration_converters/get_milliseconds$`), "duration.getMilliseconds(): cel-go answers the whole duration in milliseconds, cel-spec the millisecond part"},
	{regexp.MustCompile(`^fields/qualified_identifier_resolution/map_key_float$`), "a map literal with double keys: cel-go accepts it, cel-spec expects an error"},
	{regexp.MustCompile(`^fields/qualified_identifier_resolution/map_value_repeat_key$`), "a map literal with a repeated key: cel-go keeps the last, cel-spec expects an error"},
	{regexp.MustCompile(`^fields/map_fields/map_bad_key_type_(or_true|and_false)$`), "cel.OptOptimize (the API server's program option) folds the erroring constant operand when the program is built, so || true / && false cannot absorb the error"},
	{regexp.MustCompile(`^optionals/optionals/(map_null_entry_no_such_key|map_present_key_invalid_field)$`), "optional field selection on a value that is not a map or message: cel-go answers optional.none(), cel-spec expects an error"},
	{regexp.MustCompile(`^parse/receiver_function_names/namespace$`), "the Kubernetes authz library declares a member function namespace(): a.namespace() resolves to it and fails when the program is built"},
}

func explainFailure(outcome conformanceOutcome) string {
	path := outcome.File + "/" + outcome.Section + "/" + outcome.Name
	for _, known := range knownDifferences {
		if known.where.MatchString(path) {
			return known.finding
		}
	}
	return ""
}

func runConformanceTest(base *cel.Env, test *testpb.SimpleTest) conformanceOutcome {
	switch test.GetResultMatcher().(type) {
	case *testpb.SimpleTest_Unknown, *testpb.SimpleTest_AnyUnknowns:
		return notEnabled("expects unknowns: the API server evaluates with no unknown attributes (partial evaluation)")
	}
	if test.GetDisableMacros() {
		return notEnabled("disable_macros: the API server's parser always expands macros")
	}
	if blockSyntax.MatchString(test.GetExpr()) {
		return notEnabled("cel.block / cel.index / cel.iterVar (cel-go's block extension): not loaded by the API server")
	}
	options := []cel.EnvOption{cel.Container(test.GetContainer())}
	for _, decl := range test.GetTypeEnv() {
		alpha := &exprpb.Decl{}
		if err := convertMessage(decl, alpha); err != nil {
			return failed("harness", err.Error())
		}
		option, err := cel.ExprDeclToDeclaration(alpha)
		if err != nil {
			return failed("harness", err.Error())
		}
		options = append(options, option)
	}
	env, err := base.Extend(options...)
	if err != nil {
		if reason := missingFeature(err.Error()); reason != "" {
			return notEnabled(reason)
		}
		return failed("declarations refused", err.Error())
	}
	var ast *cel.Ast
	var issues *cel.Issues
	if test.GetDisableCheck() {
		ast, issues = env.Parse(test.GetExpr())
	} else {
		ast, issues = env.Compile(test.GetExpr())
	}
	if issues.Err() != nil {
		if reason := missingFeature(issues.String()); reason != "" {
			return notEnabled(reason)
		}
		if expectsError(test) && literalValidation.MatchString(issues.String()) {
			return earlierError("refused at compile time by the API server's literal validators (cel.ValidateDurationLiterals, ValidateTimestampLiterals, ValidateRegexLiterals)")
		}
		if homogeneousLiterals.MatchString(issues.String()) {
			return notEnabled("a list or map literal mixing element types: the API server's environment refuses them (cel.HomogeneousAggregateLiterals)")
		}
		return failed("compile refused", issues.String())
	}
	if typed, ok := test.GetResultMatcher().(*testpb.SimpleTest_TypedResult); ok {
		deduced, err := types.TypeToProto(ast.OutputType())
		if err != nil || !proto.Equal(deduced, typed.TypedResult.GetDeducedType()) {
			return failed("wrong type", fmt.Sprintf("expected %v, got %v", typed.TypedResult.GetDeducedType(), ast.OutputType()))
		}
	}
	if test.GetCheckOnly() {
		return conformanceOutcome{Status: statusPass}
	}
	// As plugin/cel/compile.go builds the program: the environment's program options and the interrupt check.
	program, err := env.Program(ast, cel.InterruptCheckFrequency(celconfig.CheckFrequency))
	if err != nil {
		if reason := missingFeature(err.Error()); reason != "" {
			return notEnabled(reason)
		}
		if expectsError(test) {
			return earlierError("refused when the program is built (cel.OptOptimize folds constant calls; the admission plugins report it as a compile error)")
		}
		return failed("program refused", err.Error())
	}
	activation := map[string]any{}
	for name, binding := range test.GetBindings() {
		value, err := cel.ProtoAsValue(env.CELTypeAdapter(), binding.GetValue())
		if err != nil {
			if _, isEnum := binding.GetValue().GetKind().(*celpb.Value_EnumValue); isEnum {
				return notEnabled("binds a protobuf enum value: the API server's environment declares no protobuf enum types")
			}
			if reason := missingFeature(err.Error()); reason != "" {
				return notEnabled(reason)
			}
			return failed("binding refused", err.Error())
		}
		activation[name] = value
	}
	result, _, evalErr := program.Eval(activation)
	return judgeResult(test, result, evalErr)
}

func judgeResult(test *testpb.SimpleTest, result ref.Val, evalErr error) conformanceOutcome {
	var expected *celpb.Value
	switch matcher := test.GetResultMatcher().(type) {
	case nil:
		expected = &celpb.Value{Kind: &celpb.Value_BoolValue{BoolValue: true}}
	case *testpb.SimpleTest_Value:
		expected = matcher.Value
	case *testpb.SimpleTest_TypedResult:
		expected = matcher.TypedResult.GetResult()
	case *testpb.SimpleTest_EvalError, *testpb.SimpleTest_AnyEvalErrors:
		if evalErr != nil {
			return conformanceOutcome{Status: statusPass}
		}
		return failed("a value instead of an error", fmt.Sprintf("got %v", result))
	}
	if evalErr != nil {
		if reason := missingFeature(evalErr.Error()); reason != "" {
			return notEnabled(reason)
		}
		return failed("an evaluation error instead of a value", evalErr.Error())
	}
	if expected == nil {
		return conformanceOutcome{Status: statusPass}
	}
	actual, err := cel.ValueAsProto(result)
	if err != nil {
		return failed("result has no proto form", err.Error())
	}
	if !sameValue(expected, actual) {
		return failed("wrong value", fmt.Sprintf("expected %v, got %v", prototext.Format(expected), prototext.Format(actual)))
	}
	return conformanceOutcome{Status: statusPass}
}

// sameValue compares as cel-spec does: maps without regard to entry order, NaN equal to NaN,
// messages (Any) by their unpacked contents.
func sameValue(expected, actual *celpb.Value) bool {
	switch want := expected.GetKind().(type) {
	case *celpb.Value_DoubleValue:
		got, ok := actual.GetKind().(*celpb.Value_DoubleValue)
		return ok && (got.DoubleValue == want.DoubleValue || math.IsNaN(got.DoubleValue) && math.IsNaN(want.DoubleValue))
	case *celpb.Value_ListValue:
		got := actual.GetListValue()
		if got == nil || len(got.GetValues()) != len(want.ListValue.GetValues()) {
			return false
		}
		for i, item := range want.ListValue.GetValues() {
			if !sameValue(item, got.GetValues()[i]) {
				return false
			}
		}
		return true
	case *celpb.Value_MapValue:
		got := actual.GetMapValue()
		if got == nil || len(got.GetEntries()) != len(want.MapValue.GetEntries()) {
			return false
		}
		for _, entry := range want.MapValue.GetEntries() {
			found := false
			for _, other := range got.GetEntries() {
				if sameValue(entry.GetKey(), other.GetKey()) && sameValue(entry.GetValue(), other.GetValue()) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case *celpb.Value_ObjectValue:
		got := actual.GetObjectValue()
		if got == nil {
			return false
		}
		return sameAny(want.ObjectValue, got)
	}
	return proto.Equal(expected, actual)
}

func sameAny(expected, actual *anypb.Any) bool {
	if expected.GetTypeUrl() != actual.GetTypeUrl() {
		return false
	}
	want, errWant := expected.UnmarshalNew()
	got, errGot := actual.UnmarshalNew()
	if errWant != nil || errGot != nil {
		return proto.Equal(expected, actual)
	}
	return proto.Equal(want, got)
}

func convertMessage(from, to proto.Message) error {
	wire, err := proto.Marshal(from)
	if err != nil {
		return err
	}
	return proto.Unmarshal(wire, to)
}

func expectsError(test *testpb.SimpleTest) bool {
	switch test.GetResultMatcher().(type) {
	case *testpb.SimpleTest_EvalError, *testpb.SimpleTest_AnyEvalErrors:
		return true
	}
	return false
}

var (
	blockSyntax         = regexp.MustCompile(`\bcel\.(block|index|iterVar|accuVar)\(`)
	literalValidation   = regexp.MustCompile(`invalid (duration|timestamp) argument|invalid matches argument`)
	homogeneousLiterals = regexp.MustCompile(`expected type '[^']*' but found '[^']*'`)
)

func earlierError(reason string) conformanceOutcome {
	return conformanceOutcome{Status: statusEarlierError, Reason: reason}
}

func notEnabled(reason string) conformanceOutcome {
	return conformanceOutcome{Status: statusNotEnabled, Reason: reason}
}

func failed(reason, detail string) conformanceOutcome {
	return conformanceOutcome{Status: statusFail, Reason: reason, Detail: strings.TrimSpace(detail)}
}

// missingFeatures recognise, in a compile or declaration error, the use of something the API
// server's environment does not load: the reason, or "" when the error is a real difference.
var missingFeatures = []struct {
	pattern *regexp.Regexp
	reason  string
}{
	{regexp.MustCompile(`cel\.expr\.conformance|TestAllTypes|NestedTestAllTypes|GlobalEnum|NestedEnum|TestRequired|\.proto[23]\.`), "protobuf messages or enums of cel-spec's test protos: the API server's environment declares no protobuf message types"},
	{regexp.MustCompile(`undeclared reference to '(math|base64)\b`), "a cel-go extension the API server does not load (ext.Math, ext.Encoders)"},
	{regexp.MustCompile(`undeclared reference to 'cel\.(bind|@?block|index|iterVar|accuVar)'|undeclared reference to 'cel'`), "cel.bind / cel.@block (ext.Bindings, block): not loaded by the API server"},
	{regexp.MustCompile(`undeclared reference to 'proto\.(getExt|hasExt)'`), "proto extensions (ext.Protos): not loaded by the API server"},
}

func missingFeature(message string) string {
	for _, feature := range missingFeatures {
		if feature.pattern.MatchString(message) {
			return feature.reason
		}
	}
	return ""
}
