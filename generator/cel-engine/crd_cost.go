package main

import (
	"encoding/json"
	"sort"
	"strconv"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	schemacel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

type ruleCost struct {
	// Field is the rule's path below the schema's root, as the API server's messages name it.
	Field string `json:"field"`
	// Cost is one evaluation's estimated cost; Cardinality how many times the rule can be evaluated
	// (the product of the enclosing maxItems/maxProperties, or the estimate for unbounded ones).
	Cost        string `json:"cost"`
	Cardinality string `json:"cardinality"`
	// Total is what the API server compares with the per-rule limit and adds to the schema's total.
	Total                 string `json:"total"`
	MessageExpressionCost string `json:"messageExpressionCost,omitempty"`
	Error                 string `json:"error,omitempty"`
}

// handleCrdRuleCosts gives the estimated cost of each x-kubernetes-validations rule of a CRD version's
// schema, walked with apiextensions' own CEL schema contexts (cardinality, types from the enclosing rule's
// scope) and compiled by its own cel.Compile, as ValidateCustomResourceDefinitionOpenAPISchema does on create.
func handleCrdRuleCosts(raw json.RawMessage) (any, error) {
	request, err := decode[struct {
		Schema json.RawMessage `json:"schema"`
	}](raw)
	if err != nil {
		return nil, err
	}
	external := &apiextensionsv1.JSONSchemaProps{}
	if err := json.Unmarshal(request.Schema, external); err != nil {
		return nil, err
	}
	schema := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(external, schema, nil); err != nil {
		return nil, err
	}
	envSet := environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
	costs := []ruleCost{}
	var walk func(schema *apiextensions.JSONSchemaProps, path *field.Path, context *validation.CELSchemaContext)
	walk = func(schema *apiextensions.JSONSchemaProps, path *field.Path, context *validation.CELSchemaContext) {
		if len(schema.XValidations) > 0 {
			costs = append(costs, rulesCost(schema, path, context, envSet)...)
		}
		names := make([]string, 0, len(schema.Properties))
		for name := range schema.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			property := schema.Properties[name]
			walk(&property, path.Child("properties").Key(name), context.ChildPropertyContext(&property, name))
		}
		if schema.Items != nil && schema.Items.Schema != nil {
			walk(schema.Items.Schema, path.Child("items"), context.ChildItemsContext(schema.Items.Schema))
		}
		if schema.AdditionalProperties != nil && schema.AdditionalProperties.Schema != nil {
			walk(schema.AdditionalProperties.Schema, path.Child("additionalProperties"), context.ChildAdditionalPropertiesContext(schema.AdditionalProperties.Schema))
		}
	}
	walk(schema, nil, validation.RootCELContext(schema))
	return costs, nil
}

func rulesCost(schema *apiextensions.JSONSchemaProps, path *field.Path, context *validation.CELSchemaContext, envSet *environment.EnvSet) []ruleCost {
	at := func(i int) string { return path.Child("x-kubernetes-validations").Index(i).Child("rule").String() }
	typeInfo, err := context.TypeInfo()
	if err != nil || typeInfo == nil {
		message := "no type information"
		if err != nil {
			message = err.Error()
		}
		return []ruleCost{{Field: at(0), Error: message}}
	}
	results, err := schemacel.Compile(typeInfo.Schema, typeInfo.DeclType, celconfig.PerCallLimit, envSet, schemacel.NewExpressionsEnvLoader())
	if err != nil {
		return []ruleCost{{Field: at(0), Error: err.Error()}}
	}
	costs := make([]ruleCost, len(results))
	for i, result := range results {
		cardinality := result.MaxCardinality
		if context.MaxCardinality != nil {
			cardinality = *context.MaxCardinality
		}
		costs[i] = ruleCost{Field: at(i), Cost: strconv.FormatUint(result.MaxCost, 10), Cardinality: strconv.FormatUint(cardinality, 10), Total: strconv.FormatUint(saturatingProduct(result.MaxCost, cardinality), 10)}
		if result.Error != nil {
			costs[i].Error = result.Error.Error()
		}
		if result.MessageExpression != nil {
			costs[i].MessageExpressionCost = strconv.FormatUint(result.MessageExpressionMaxCost, 10)
		}
	}
	return costs
}

// saturatingProduct is validation.go's multiplyWithOverflowGuard.
func saturatingProduct(cost, cardinality uint64) uint64 {
	if cost == 0 {
		return 0
	}
	if ^uint64(0)/cost < cardinality {
		return ^uint64(0)
	}
	return cost * cardinality
}
