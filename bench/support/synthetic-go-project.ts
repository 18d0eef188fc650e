/**
 * Go projects of the same shapes as the TypeScript ones, for controller-gen's
 * `+kubebuilder:webhook` markers: `writeSyntheticGoProject` mirrors
 * synthetic-project.ts (files across packages of 100, a tenth carrying a
 * webhook marker, every twentieth mutating, the rest plain code calling each
 * other), `writeSampleGoProject` mirrors sample/ (API types, four webhooks with
 * the same options, the Profile lookup). Standard library only: nothing to
 * download, and `go list` (which controller-gen runs) stays inside the module.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const MODULE = 'example.com/bench';

function writer(dir: string) {
  return (relative: string, content: string) => {
    mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    writeFileSync(path.join(dir, relative), content);
  };
}

export function writeSyntheticGoProject(dir: string, files: number): { markers: number } {
  const write = writer(dir);
  write('go.mod', `module ${MODULE}\n\ngo 1.22\n`);
  write('shared/groups.go', 'package shared\n\nconst Group = "shaper.io"\n\nconst (\n\tAlpha = "v1alpha1"\n\tBeta  = "v1beta1"\n)\n');
  let markers = 0;
  for (let i = 0; i < files; i++) {
    const pkg = `pkg${Math.floor(i / 100)}`;
    if (i % 10 === 0) {
      markers++;
      write(`${pkg}/hook${i}.go`, markedFile(pkg, i));
    } else {
      write(`${pkg}/mod${i}.go`, plainFile(pkg, i));
    }
  }
  return { markers };
}

function markedFile(pkg: string, i: number): string {
  const mutating = i % 20 === 0;
  const kind = mutating ? 'mutate' : 'validate';
  const method = mutating
    ? `// Default sets the widget's defaults.
func (h *Widget${i}Handler) Default(obj *Widget${i}) error {
	if obj.Labels == nil {
		obj.Labels = map[string]string{}
	}
	return nil
}`
    : `// ValidateCreate rejects unnamed widgets.
func (h *Widget${i}Handler) ValidateCreate(obj *Widget${i}) ([]string, error) {
	if obj.Name == "" {
		return nil, errors.New("unnamed")
	}
	return nil, nil
}`;
  return `package ${pkg}

import (
	"errors"

	"${MODULE}/shared"
)

var widget${i}Version = shared.Group + "/" + shared.Alpha

// +kubebuilder:webhook:path=/${kind}-widget${i},mutating=${mutating},failurePolicy=fail,sideEffects=None,groups=shaper.io,resources=widget${i}s,verbs=create;update,versions=v1alpha1,name=${kind}-widget${i}.shaper-gen.io,admissionReviewVersions=v1,timeoutSeconds=${(i % 29) + 1}

// Widget${i} is the object the webhook sees.
type Widget${i} struct {
	Name   string
	Labels map[string]string
}

// Widget${i}Handler is the webhook.
type Widget${i}Handler struct{}

var _ = errors.New

${method}
`;
}

function plainFile(pkg: string, i: number): string {
  const call = i > 1 && i % 10 !== 1 ? `compute${i - 1}(len(input.Values))` : 'len(input.Values)';
  return `package ${pkg}

import (
	"fmt"
	"strings"
)

// Record${i} is a stored record.
type Record${i} struct {
	ID     string
	Values []int
	Labels map[string]string
}

func compute${i}(n int) int {
	total := 0
	for k := 0; k < n; k++ {
		total += (k * ${i}) % 7
	}
	return total
}

// Service${i} keeps records in memory.
type Service${i} struct {
	cache map[string]Record${i}
}

// Get returns a record.
func (s *Service${i}) Get(id string) (Record${i}, bool) {
	r, ok := s.cache[id]
	return r, ok
}

// Put stores a record.
func (s *Service${i}) Put(input Record${i}) int {
	if s.cache == nil {
		s.cache = map[string]Record${i}{}
	}
	s.cache[input.ID] = input
	return ${call}
}

// Summarize lists every record.
func (s *Service${i}) Summarize() string {
	parts := make([]string, 0, len(s.cache))
	for _, r := range s.cache {
		parts = append(parts, fmt.Sprintf("%s=%v", r.ID, r.Values))
	}
	return strings.Join(parts, ";")
}
`;
}

/** The sample application (sample/) as a kubebuilder project would have it: same webhooks, same options. */
export function writeSampleGoProject(dir: string): { markers: number } {
  const write = writer(dir);
  write('go.mod', `module ${MODULE}\n\ngo 1.22\n`);
  write(
    'api/v1alpha1/group.go',
    `// Package v1alpha1 holds the shaper.io API types.
package v1alpha1

// Group and Version of the shaper.io API.
const (
	Group   = "shaper.io"
	Version = "v1alpha1"
)
`,
  );
  write(
    'api/v1alpha1/profile.go',
    `package v1alpha1

// ProfileTiers in increasing order.
var ProfileTiers = []string{"bronze", "silver", "gold"}

const (
	MinPriority          = 0
	MaxPriority          = 1000
	MaxDescriptionLength = 256
	DefaultTier          = "bronze"
)

// TierPriority is the priority a Profile gets from its tier when it does not set one.
var TierPriority = map[string]int{"bronze": 100, "silver": 500, "gold": 900}

// ProfileSpec is what a Profile asks for.
type ProfileSpec struct {
	Tier        string
	Priority    *int
	Resources   map[string]string
	Description string
}

// Profile is a shaping profile: how much and how urgently the workloads it is assigned to get.
type Profile struct {
	Name      string
	Namespace string
	Labels    map[string]string
	Spec      ProfileSpec
}
`,
  );
  write(
    'api/v1alpha1/assignment.go',
    `package v1alpha1

// DefaultWeight of an Assignment that sets none.
const DefaultWeight = 1

// AssignmentSpec names the Profile and the workloads.
type AssignmentSpec struct {
	ProfileRef string
	Selector   map[string]string
	Weight     *int
}

// Assignment assigns a Profile to workloads.
type Assignment struct {
	Name      string
	Namespace string
	Spec      AssignmentSpec
}
`,
  );
  write(
    'api/v1alpha1/quantity.go',
    `package v1alpha1

import (
	"regexp"
	"strconv"
)

var quantity = regexp.MustCompile(\`^[+-]?(\\d+\\.?\\d*|\\.\\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\\d+)?$\`)

// IsQuantity reports whether value is a Kubernetes resource quantity.
func IsQuantity(value string) bool { return quantity.MatchString(value) }

// IsNegativeQuantity reports whether a well-formed quantity is below zero.
func IsNegativeQuantity(value string) bool {
	f, err := strconv.ParseFloat(value, 64)
	return err == nil && f < 0
}
`,
  );
  write(
    'internal/webhook/profile_defaulter.go',
    `package webhook

import v1alpha1 "${MODULE}/api/v1alpha1"

// +kubebuilder:webhook:path=/mutate-profile,mutating=true,failurePolicy=fail,sideEffects=None,groups=shaper.io,resources=profiles,verbs=create;update,versions=v1alpha1,name=mutate-profile.shaper-gen.io,admissionReviewVersions=v1,timeoutSeconds=5,reinvocationPolicy=IfNeeded

// ProfileDefaulter fills in a Profile's tier, priority and tier label.
type ProfileDefaulter struct{}

// Default sets the defaults.
func (d *ProfileDefaulter) Default(profile *v1alpha1.Profile) error {
	if profile.Spec.Tier == "" {
		profile.Spec.Tier = v1alpha1.DefaultTier
	}
	if profile.Spec.Priority == nil {
		priority := v1alpha1.TierPriority[profile.Spec.Tier]
		profile.Spec.Priority = &priority
	}
	if profile.Labels == nil {
		profile.Labels = map[string]string{}
	}
	profile.Labels["shaper.io/tier"] = profile.Spec.Tier
	return nil
}
`,
  );
  write(
    'internal/webhook/profile_validator.go',
    `package webhook

import (
	"errors"
	"fmt"

	v1alpha1 "${MODULE}/api/v1alpha1"
)

// +kubebuilder:webhook:path=/validate-profile,mutating=false,failurePolicy=fail,sideEffects=None,groups=shaper.io,resources=profiles,verbs=create;update,versions=v1alpha1,name=validate-profile.shaper-gen.io,admissionReviewVersions=v1,timeoutSeconds=5

// ProfileValidator rejects Profiles out of range or malformed, and any change of tier once set.
type ProfileValidator struct{}

func specErrors(profile *v1alpha1.Profile) []error {
	var errs []error
	known := false
	for _, tier := range v1alpha1.ProfileTiers {
		known = known || tier == profile.Spec.Tier
	}
	if profile.Spec.Tier != "" && !known {
		errs = append(errs, fmt.Errorf("spec.tier: unsupported value %q", profile.Spec.Tier))
	}
	if p := profile.Spec.Priority; p != nil && (*p < v1alpha1.MinPriority || *p > v1alpha1.MaxPriority) {
		errs = append(errs, fmt.Errorf("spec.priority: must be from %d to %d", v1alpha1.MinPriority, v1alpha1.MaxPriority))
	}
	if len(profile.Spec.Description) > v1alpha1.MaxDescriptionLength {
		errs = append(errs, errors.New("spec.description: too long"))
	}
	for name, value := range profile.Spec.Resources {
		if !v1alpha1.IsQuantity(value) || v1alpha1.IsNegativeQuantity(value) {
			errs = append(errs, fmt.Errorf("spec.resources.%s: not a quantity", name))
		}
	}
	return errs
}

// ValidateCreate checks a new Profile.
func (v *ProfileValidator) ValidateCreate(profile *v1alpha1.Profile) error {
	return errors.Join(specErrors(profile)...)
}

// ValidateUpdate checks a changed Profile: the tier is immutable once set.
func (v *ProfileValidator) ValidateUpdate(old, profile *v1alpha1.Profile) error {
	errs := specErrors(profile)
	if old.Spec.Tier != "" && old.Spec.Tier != profile.Spec.Tier {
		errs = append(errs, errors.New("spec.tier: field is immutable"))
	}
	return errors.Join(errs...)
}
`,
  );
  write(
    'internal/webhook/profile_lookup.go',
    `package webhook

import (
	"context"

	v1alpha1 "${MODULE}/api/v1alpha1"
)

// ProfileLookup finds the Profile an Assignment names.
type ProfileLookup interface {
	Get(ctx context.Context, namespace, name string) (*v1alpha1.Profile, error)
}

// MemoryProfileLookup answers from a map (tests).
type MemoryProfileLookup map[string]*v1alpha1.Profile

// Get returns the Profile or nil.
func (m MemoryProfileLookup) Get(_ context.Context, namespace, name string) (*v1alpha1.Profile, error) {
	return m[namespace+"/"+name], nil
}
`,
  );
  write(
    'internal/webhook/assignment_defaulter.go',
    `package webhook

import v1alpha1 "${MODULE}/api/v1alpha1"

// +kubebuilder:webhook:path=/mutate-assignment,mutating=true,failurePolicy=fail,sideEffects=None,groups=shaper.io,resources=assignments,verbs=create;update,versions=v1alpha1,name=mutate-assignment.shaper-gen.io,admissionReviewVersions=v1,timeoutSeconds=5,reinvocationPolicy=Never

// AssignmentDefaulter sets an Assignment's weight.
type AssignmentDefaulter struct{}

// Default sets the defaults.
func (d *AssignmentDefaulter) Default(assignment *v1alpha1.Assignment) error {
	if assignment.Spec.Weight == nil {
		weight := v1alpha1.DefaultWeight
		assignment.Spec.Weight = &weight
	}
	return nil
}
`,
  );
  write(
    'internal/webhook/assignment_validator.go',
    `package webhook

import (
	"context"
	"errors"
	"fmt"

	v1alpha1 "${MODULE}/api/v1alpha1"
)

// +kubebuilder:webhook:path=/validate-assignment,mutating=false,failurePolicy=fail,sideEffects=None,groups=shaper.io,resources=assignments,verbs=create;update;delete,versions=v1alpha1,name=validate-assignment.shaper-gen.io,admissionReviewVersions=v1,timeoutSeconds=10
// +kubebuilder:rbac:groups=shaper.io,resources=profiles,verbs=get

// AssignmentValidator admits Assignments to Profiles that exist, and protects assigned Profiles.
type AssignmentValidator struct {
	Profiles ProfileLookup
}

// ValidateCreate checks the Profile exists and the weight is in range.
func (v *AssignmentValidator) ValidateCreate(ctx context.Context, assignment *v1alpha1.Assignment) error {
	if assignment.Spec.ProfileRef == "" {
		return errors.New("spec.profileRef: required")
	}
	profile, err := v.Profiles.Get(ctx, assignment.Namespace, assignment.Spec.ProfileRef)
	if err != nil {
		return fmt.Errorf("looking up profile: %w", err)
	}
	if profile == nil {
		return fmt.Errorf("spec.profileRef: profile %q not found", assignment.Spec.ProfileRef)
	}
	if w := assignment.Spec.Weight; w != nil && (*w < 1 || *w > 100) {
		return errors.New("spec.weight: must be from 1 to 100")
	}
	return nil
}

// ValidateUpdate checks as on create; the Profile reference is immutable.
func (v *AssignmentValidator) ValidateUpdate(ctx context.Context, old, assignment *v1alpha1.Assignment) error {
	if old.Spec.ProfileRef != assignment.Spec.ProfileRef {
		return errors.New("spec.profileRef: field is immutable")
	}
	return v.ValidateCreate(ctx, assignment)
}

// ValidateDelete refuses to delete an Assignment of a protected Profile.
func (v *AssignmentValidator) ValidateDelete(ctx context.Context, assignment *v1alpha1.Assignment) error {
	profile, err := v.Profiles.Get(ctx, assignment.Namespace, assignment.Spec.ProfileRef)
	if err == nil && profile != nil && profile.Labels["shaper.io/protected"] == "true" {
		return errors.New("the profile is protected")
	}
	return nil
}
`,
  );
  return { markers: 4 };
}
