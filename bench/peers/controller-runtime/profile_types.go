package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// The Profile CRD of sample/api/profile.ts (sample/config/crd/shaper.io_profiles.yaml),
// written by hand as a kubebuilder user would. Optional fields are pointers so that
// "not set" stays distinguishable from a zero value, as in the TypeScript sample.

var (
	GroupVersion  = schema.GroupVersion{Group: "shaper.io", Version: "v1alpha1"}
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
)

func init() {
	SchemeBuilder.Register(&Profile{})
}

// +kubebuilder:validation:Enum=bronze;silver;gold
type ProfileTier string

const (
	TierBronze ProfileTier = "bronze"
	TierSilver ProfileTier = "silver"
	TierGold   ProfileTier = "gold"
)

type ProfileResources struct {
	CPU    *intstr.IntOrString `json:"cpu,omitempty"`
	Memory *intstr.IntOrString `json:"memory,omitempty"`
}

type ProfileSpec struct {
	Tier        *ProfileTier      `json:"tier,omitempty"`
	Priority    *int32            `json:"priority,omitempty"`
	Resources   *ProfileResources `json:"resources,omitempty"`
	Description *string           `json:"description,omitempty"`
}

type ProfileStatus struct {
	Assignments *int32 `json:"assignments,omitempty"`
}

type Profile struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   *ProfileSpec   `json:"spec,omitempty"`
	Status *ProfileStatus `json:"status,omitempty"`
}

// DeepCopyObject is what controller-gen's object generator would write.
func (in *Profile) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := &Profile{TypeMeta: in.TypeMeta}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Spec != nil {
		spec := *in.Spec
		spec.Tier = copyPointer(in.Spec.Tier)
		spec.Priority = copyPointer(in.Spec.Priority)
		spec.Description = copyPointer(in.Spec.Description)
		if in.Spec.Resources != nil {
			spec.Resources = &ProfileResources{CPU: copyPointer(in.Spec.Resources.CPU), Memory: copyPointer(in.Spec.Resources.Memory)}
		}
		out.Spec = &spec
	}
	if in.Status != nil {
		out.Status = &ProfileStatus{Assignments: copyPointer(in.Status.Assignments)}
	}
	return out
}

func copyPointer[T any](in *T) *T {
	if in == nil {
		return nil
	}
	out := *in
	return &out
}
