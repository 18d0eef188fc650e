package main

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	sigsjson "sigs.k8s.io/json"
)

// strictDecode decodes data into a typed value the way the API machinery's
// strict decoder does (case-sensitive keys, unknown and duplicate fields
// reported), then encodes it again and reports every key or value of the
// input that the typed value did not carry through.
func strictDecode(data []byte, into any) []string {
	strictErrs, err := sigsjson.UnmarshalStrict(data, into, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return []string{"decode: " + err.Error()}
	}
	var problems []string
	for _, e := range strictErrs {
		problems = append(problems, "strict: "+e.Error())
	}
	encoded, err := json.Marshal(into)
	if err != nil {
		return append(problems, "encode: "+err.Error())
	}
	var before, after any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &before); err != nil {
		return append(problems, "generic decode: "+err.Error())
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(encoded, &after); err != nil {
		return append(problems, "generic decode of the round trip: "+err.Error())
	}
	return append(problems, lost("", before, after)...)
}

// lost lists what of want is missing or different in got: the round trip
// keeps every key the input had, with the same value, or the input was not
// what the Go types mean.
func lost(path string, want, got any) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("round trip: %s: object became %s", orRoot(path), describe(got))}
		}
		keys := make([]string, 0, len(w))
		for key := range w {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		var problems []string
		for _, key := range keys {
			child := key
			if path != "" {
				child = path + "." + key
			}
			if _, present := g[key]; !present {
				problems = append(problems, fmt.Sprintf("round trip: %s: %s was dropped (a zero value the Go type omits, or not what the field means)", child, describe(w[key])))
				continue
			}
			problems = append(problems, lost(child, w[key], g[key])...)
		}
		return problems
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("round trip: %s: %s became %s", orRoot(path), describe(want), describe(got))}
		}
		var problems []string
		for i := range w {
			problems = append(problems, lost(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return problems
	default:
		if !sameScalar(want, got) {
			return []string{fmt.Sprintf("round trip: %s: %s became %s", orRoot(path), describe(want), describe(got))}
		}
		return nil
	}
}

func sameScalar(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && (x == y || math.Abs(x-y) < 1e-9*math.Max(1, math.Abs(x)))
	}
	return a == b
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func describe(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}

func orRoot(path string) string {
	if path == "" {
		return "(root)"
	}
	return path
}
