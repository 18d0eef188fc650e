package main

import (
	"github.com/google/cel-go/checker"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"

	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/openapi"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// handleEstimateTyped is the static cost of a policy's expression with object and oldObject typed from
// the matched resource's OpenAPI schema, as validating/typechecking.go types them (common.SchemaDeclType:
// lists, maps and strings bounded by their maxItems, maxProperties and maxLength, else by the largest
// request the API server accepts). Without a schema it is handleEstimateCost.
func handleEstimateTyped(raw json.RawMessage) (any, error) {
	request, err := decode[struct {
		compileRequest
		ObjectSchema json.RawMessage `json:"objectSchema"`
	}](raw)
	if err != nil {
		return nil, err
	}
	mode := modeOf(request.Stored)
	if len(request.ObjectSchema) == 0 {
		cost, err := estimate(request.Policy, request.Kind, request.Expression, mode)
		if err != nil {
			return compileAnswer{CompilationError: err.Error()}, nil
		}
		return compileAnswer{Cost: cost}, nil
	}
	sum := sha256.Sum256(request.ObjectSchema)
	key := hex.EncodeToString(sum[:])
	object, err := objectDeclType(key, request.ObjectSchema)
	if err != nil {
		return nil, err
	}
	if object == nil {
		return compileAnswer{CompilationError: "cel-engine: the object's schema has no CEL type"}, nil
	}
	cost, err := estimateWith(request.Policy, request.Kind, request.Expression, mode, object, key)
	if err != nil {
		return compileAnswer{CompilationError: err.Error()}, nil
	}
	return compileAnswer{Cost: cost}, nil
}

// objectSizes bounds object's and oldObject's lists, maps and strings by their DeclType's MaxElements, as
// apiextensions' sizeEstimator (pkg/apiserver/schema/cel/compilation.go) bounds a CRD rule's self; the API
// server estimates no policy, so this is the CRD rules' estimate applied to a policy's object.
func objectSizes(object *apiservercel.DeclType) checker.CostEstimator {
	if object == nil {
		return nil
	}
	return &objectSizeEstimator{root: object}
}

type objectSizeEstimator struct {
	root *apiservercel.DeclType
}

func (e *objectSizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	path := element.Path()
	if len(path) == 0 || (path[0] != "object" && path[0] != "oldObject") {
		return nil
	}
	node := e.root
	for _, name := range path[1:] {
		switch name {
		case "@items", "@values":
			node = node.ElemType
		case "@keys":
			node = node.KeyType
		default:
			field, ok := node.Fields[name]
			if !ok {
				return nil
			}
			node = field.Type
		}
		if node == nil {
			return nil
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: uint64(node.MaxElements)}
}

func (e *objectSizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}

var objectTypes = struct {
	sync.Mutex
	byKey map[string]*apiservercel.DeclType
}{byKey: map[string]*apiservercel.DeclType{}}

// objectDeclType is the CEL type of an OpenAPI schema, built once per schema (a built-in kind's is large).
func objectDeclType(key string, text json.RawMessage) (*apiservercel.DeclType, error) {
	objectTypes.Lock()
	defer objectTypes.Unlock()
	if object, ok := objectTypes.byKey[key]; ok {
		return object, nil
	}
	schema := &spec.Schema{}
	if err := json.Unmarshal(text, schema); err != nil {
		return nil, err
	}
	object := common.SchemaDeclType(&openapi.Schema{Schema: schema}, true)
	if object != nil {
		object = object.MaybeAssignTypeName("object" + key[:16])
	}
	objectTypes.byKey[key] = object
	return object, nil
}
