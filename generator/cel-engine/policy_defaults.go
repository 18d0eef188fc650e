package main

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The defaults the API server stores policies and bindings with (k8s.io/kubernetes
// pkg/apis/admissionregistration/v1 defaults.go: SetDefaults_MutatingAdmissionPolicySpec,
// SetDefaults_ValidatingAdmissionPolicySpec, SetDefaults_MatchResources, SetDefaults_Rule), applied to
// copies: the plugins read stored objects.

func defaultedMutatingPolicy(policy admissionregistrationv1.MutatingAdmissionPolicy) *admissionregistrationv1.MutatingAdmissionPolicy {
	p := policy.DeepCopy()
	p.Spec.FailurePolicy = orDefault(p.Spec.FailurePolicy, admissionregistrationv1.Fail)
	defaultMatchResources(p.Spec.MatchConstraints)
	return p
}

func defaultedValidatingPolicy(policy admissionregistrationv1.ValidatingAdmissionPolicy) *admissionregistrationv1.ValidatingAdmissionPolicy {
	p := policy.DeepCopy()
	p.Spec.FailurePolicy = orDefault(p.Spec.FailurePolicy, admissionregistrationv1.Fail)
	defaultMatchResources(p.Spec.MatchConstraints)
	return p
}

func defaultedMutatingBinding(binding admissionregistrationv1.MutatingAdmissionPolicyBinding) *admissionregistrationv1.MutatingAdmissionPolicyBinding {
	b := binding.DeepCopy()
	defaultMatchResources(b.Spec.MatchResources)
	return b
}

func defaultedValidatingBinding(binding admissionregistrationv1.ValidatingAdmissionPolicyBinding) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	b := binding.DeepCopy()
	defaultMatchResources(b.Spec.MatchResources)
	return b
}

func defaultMatchResources(match *admissionregistrationv1.MatchResources) {
	if match == nil {
		return
	}
	match.MatchPolicy = orDefault(match.MatchPolicy, admissionregistrationv1.Equivalent)
	if match.NamespaceSelector == nil {
		match.NamespaceSelector = &metav1.LabelSelector{}
	}
	if match.ObjectSelector == nil {
		match.ObjectSelector = &metav1.LabelSelector{}
	}
	for _, rules := range [][]admissionregistrationv1.NamedRuleWithOperations{match.ResourceRules, match.ExcludeResourceRules} {
		for i := range rules {
			rules[i].Scope = orDefault(rules[i].Scope, admissionregistrationv1.AllScopes)
		}
	}
}

func orDefault[T comparable](value *T, fallback T) *T {
	var zero T
	if value == nil || *value == zero {
		return &fallback
	}
	return value
}
