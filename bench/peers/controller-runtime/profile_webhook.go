package main

import (
	"context"
	"fmt"
	"slices"
	"unicode/utf16"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// The same rules as sample/webhooks/profile-defaulter.ts and profile-validator.ts.

const (
	tierLabel            = "shaper.io/tier"
	defaultTier          = TierBronze
	minPriority          = 0
	maxPriority          = 1000
	maxDescriptionLength = 256
)

var (
	profileTiers = []ProfileTier{TierBronze, TierSilver, TierGold}
	tierPriority = map[ProfileTier]int32{TierBronze: 100, TierSilver: 500, TierGold: 900}
)

// ProfileCustomDefaulter fills in a Profile's tier, its priority from the tier, and the tier label.
type ProfileCustomDefaulter struct{}

var _ admission.Defaulter[*Profile] = &ProfileCustomDefaulter{}

func (d *ProfileCustomDefaulter) Default(ctx context.Context, profile *Profile) error {
	if profile.Spec == nil {
		profile.Spec = &ProfileSpec{}
	}
	spec := profile.Spec
	if spec.Tier == nil {
		tier := defaultTier
		spec.Tier = &tier
	}
	tier := *spec.Tier
	priority, known := tierPriority[tier]
	// An unknown tier is the validator's to reject; do not invent a priority or label for it.
	if !known {
		return nil
	}
	if spec.Priority == nil {
		spec.Priority = &priority
		logf.FromContext(ctx).V(1).Info("priority defaulted from tier", "tier", tier, "priority", priority)
	}
	if profile.Labels[tierLabel] != string(tier) {
		if profile.Labels == nil {
			profile.Labels = map[string]string{}
		}
		profile.Labels[tierLabel] = string(tier)
	}
	return nil
}

// ProfileCustomValidator rejects Profiles out of range or malformed, and any change of tier once set.
type ProfileCustomValidator struct{}

var _ admission.Validator[*Profile] = &ProfileCustomValidator{}

func (v *ProfileCustomValidator) ValidateCreate(_ context.Context, profile *Profile) (admission.Warnings, error) {
	return nil, invalidProfile(profile, specErrors(profile))
}

func (v *ProfileCustomValidator) ValidateUpdate(_ context.Context, oldProfile, profile *Profile) (admission.Warnings, error) {
	errs := specErrors(profile)
	if oldProfile.Spec != nil && oldProfile.Spec.Tier != nil {
		before := *oldProfile.Spec.Tier
		var now any // nil prints as null, as the sample's `?? null` does
		if profile.Spec != nil && profile.Spec.Tier != nil {
			now = string(*profile.Spec.Tier)
		}
		if now != string(before) {
			errs = append(errs, field.Invalid(field.NewPath("spec", "tier"), now, fmt.Sprintf("field is immutable (was %q); create a new Profile instead", before)))
		}
	}
	return nil, invalidProfile(profile, errs)
}

func (v *ProfileCustomValidator) ValidateDelete(context.Context, *Profile) (admission.Warnings, error) {
	return nil, nil
}

func invalidProfile(profile *Profile, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: GroupVersion.Group, Kind: "Profile"}, profile.Name, errs)
}

func specErrors(profile *Profile) field.ErrorList {
	specPath := field.NewPath("spec")
	spec := profile.Spec
	if spec == nil {
		return field.ErrorList{field.Required(specPath, "")}
	}
	var errs field.ErrorList
	if spec.Tier != nil && !slices.Contains(profileTiers, *spec.Tier) {
		errs = append(errs, field.NotSupported(specPath.Child("tier"), string(*spec.Tier), profileTiers))
	}
	if spec.Priority != nil && (*spec.Priority < minPriority || *spec.Priority > maxPriority) {
		errs = append(errs, field.Invalid(specPath.Child("priority"), *spec.Priority, fmt.Sprintf("must be a whole number from %d to %d", minPriority, maxPriority)))
	}
	if spec.Resources != nil {
		errs = append(errs, quantityErrors(specPath.Child("resources", "cpu"), spec.Resources.CPU)...)
		errs = append(errs, quantityErrors(specPath.Child("resources", "memory"), spec.Resources.Memory)...)
	}
	// Counted in UTF-16 code units, as JavaScript's String.length: both servers draw the line at the same place.
	if spec.Description != nil && len(utf16.Encode([]rune(*spec.Description))) > maxDescriptionLength {
		errs = append(errs, &field.Error{
			Type:     field.ErrorTypeTooLong,
			Field:    specPath.Child("description").String(),
			BadValue: "<value omitted>",
			Detail:   fmt.Sprintf("may not be longer than %d characters", maxDescriptionLength),
		})
	}
	return errs
}

func quantityErrors(path *field.Path, quantity *intstr.IntOrString) field.ErrorList {
	if quantity == nil {
		return nil
	}
	if quantity.Type == intstr.Int {
		if quantity.IntVal < 0 {
			return field.ErrorList{field.Invalid(path, quantity.IntVal, "must not be negative")}
		}
		return nil
	}
	parsed, err := resource.ParseQuantity(quantity.StrVal)
	if err != nil {
		return field.ErrorList{field.Invalid(path, quantity.StrVal, `must be a quantity like "500m", "2" or "1Gi"`)}
	}
	if parsed.Sign() < 0 {
		return field.ErrorList{field.Invalid(path, quantity.StrVal, "must not be negative")}
	}
	return nil
}

// AllowAll is the framework's fixed cost: a typed validator that admits everything.
type AllowAll struct{}

var _ admission.Validator[*Profile] = &AllowAll{}

func (AllowAll) ValidateCreate(context.Context, *Profile) (admission.Warnings, error) {
	return nil, nil
}

func (AllowAll) ValidateUpdate(context.Context, *Profile, *Profile) (admission.Warnings, error) {
	return nil, nil
}

func (AllowAll) ValidateDelete(context.Context, *Profile) (admission.Warnings, error) {
	return nil, nil
}
