package main

import (
	"context"

	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// authorizerRule is one answer a test declares for the authorizer: a field left out (null) matches anything,
// a field given matches only that value, the empty string included (the core API group is "").
type authorizerRule struct {
	Verb        *string `json:"verb,omitempty"`
	Group       *string `json:"group,omitempty"`
	Resource    *string `json:"resource,omitempty"`
	Subresource *string `json:"subresource,omitempty"`
	Namespace   *string `json:"namespace,omitempty"`
	Name        *string `json:"name,omitempty"`
	Path        *string `json:"path,omitempty"`
	User        *string `json:"user,omitempty"`
	// Decision is "allow", "deny" or "noOpinion".
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
}

// authorizerCheck is a check the expression made that no rule answered: with the user's groups, uid and extra,
// so that a caller can ask the API server (a SubjectAccessReview) and declare the answer.
type authorizerCheck struct {
	User            string              `json:"user"`
	Groups          []string            `json:"groups,omitempty"`
	UID             string              `json:"uid,omitempty"`
	Extra           map[string][]string `json:"extra,omitempty"`
	ResourceRequest bool                `json:"resourceRequest"`
	Verb            string              `json:"verb"`
	Group           string              `json:"group"`
	Resource        string              `json:"resource"`
	Subresource     string              `json:"subresource"`
	Namespace       string              `json:"namespace"`
	Name            string              `json:"name"`
	Path            string              `json:"path"`
}

// declaredAuthorizer answers from the test's rules, first match first, and never guesses:
// a check no rule answers is recorded for the caller to report (and errors in CEL meanwhile).
type declaredAuthorizer struct {
	rules      []authorizerRule
	unanswered []authorizerCheck
}

func (a *declaredAuthorizer) Authorize(_ context.Context, attributes authorizer.Attributes) (authorizer.Decision, string, error) {
	check := authorizerCheck{
		Verb: attributes.GetVerb(), Group: attributes.GetAPIGroup(), Resource: attributes.GetResource(), Subresource: attributes.GetSubresource(),
		Namespace: attributes.GetNamespace(), Name: attributes.GetName(), Path: attributes.GetPath(),
	}
	check.ResourceRequest = attributes.IsResourceRequest()
	if user := attributes.GetUser(); user != nil {
		check.User, check.Groups, check.UID, check.Extra = user.GetName(), user.GetGroups(), user.GetUID(), user.GetExtra()
	}
	for _, rule := range a.rules {
		if matches(rule.Verb, check.Verb) && matches(rule.Group, check.Group) && matches(rule.Resource, check.Resource) && matches(rule.Subresource, check.Subresource) &&
			matches(rule.Namespace, check.Namespace) && matches(rule.Name, check.Name) && matches(rule.Path, check.Path) && matches(rule.User, check.User) {
			switch rule.Decision {
			case "allow":
				return authorizer.DecisionAllow, rule.Reason, nil
			case "deny":
				return authorizer.DecisionDeny, rule.Reason, nil
			default:
				return authorizer.DecisionNoOpinion, rule.Reason, nil
			}
		}
	}
	a.unanswered = append(a.unanswered, check)
	return authorizer.DecisionNoOpinion, "", errUnanswered
}

type unansweredError struct{}

func (unansweredError) Error() string { return "no authorizer answer declared for this check" }

var errUnanswered error = unansweredError{}

func matches(declared *string, actual string) bool { return declared == nil || *declared == actual }
