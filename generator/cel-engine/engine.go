// Package main is shaper-gen's CEL engine: the API server's own CEL code
// (k8s.io/apiserver, apiextensions-apiserver, cel-go) behind a JSON call
// interface, compiled to WebAssembly for the generator and shaper-gen/testing.
// Every call takes one JSON request and returns one JSON response; a panic is
// an error response, never the end of the Go runtime.
package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
)

type handler func(request json.RawMessage) (any, error)

var handlers = map[string]handler{
	"compile":          handleCompile,
	"evaluate":         handleEvaluate,
	"admit":            handleAdmit,
	"registerPolicies": handleRegisterPolicies,
	"setApiSchemas":    handleSetAPISchemas,
	"estimateCost":     handleEstimateCost,
	"estimateTyped":    handleEstimateTyped,
	"clientWarnings":   handleClientWarnings,
	"validateCrd":      handleValidateCrd,
	"crdRuleCosts":     handleCrdRuleCosts,
	"version":          handleVersion,
}

type failure struct {
	Error string `json:"error"`
}

// call runs one method; the answer is always JSON, an error object included.
func call(method string, request []byte) (answer []byte) {
	defer func() {
		if recovered := recover(); recovered != nil {
			answer = encode(failure{Error: fmt.Sprintf("cel-engine: %s panicked: %v\n%s", method, recovered, debug.Stack())})
		}
	}()
	run, ok := handlers[method]
	if !ok {
		return encode(failure{Error: fmt.Sprintf("cel-engine: unknown method %q", method)})
	}
	result, err := run(request)
	if err != nil {
		return encode(failure{Error: err.Error()})
	}
	return encode(result)
}

func encode(value any) []byte {
	text, err := json.Marshal(value)
	if err != nil {
		text, _ = json.Marshal(failure{Error: "cel-engine: cannot encode the answer: " + err.Error()})
	}
	return text
}

func decode[T any](request json.RawMessage) (T, error) {
	var value T
	if err := json.Unmarshal(request, &value); err != nil {
		return value, fmt.Errorf("cel-engine: bad request: %w", err)
	}
	return value, nil
}

func handleVersion(json.RawMessage) (any, error) {
	info, _ := debug.ReadBuildInfo()
	modules := map[string]string{}
	if info != nil {
		modules["go"] = info.GoVersion
		for _, dep := range info.Deps {
			switch dep.Path {
			case "k8s.io/apiserver", "k8s.io/apiextensions-apiserver", "github.com/google/cel-go":
				modules[dep.Path] = dep.Version
			}
		}
	}
	return modules, nil
}
