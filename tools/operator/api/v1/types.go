// Package v1 holds the operator's API types (ops.example.com/v1), as
// kubebuilder scaffolds them: a Parent whose controller makes a Child.
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

// GroupVersion is the group and version of these types.
var GroupVersion = schema.GroupVersion{Group: "ops.example.com", Version: "v1"}

var (
	// SchemeBuilder registers the types.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds the types to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// ParentSpec is what a Parent asks for.
type ParentSpec struct {
	Message string `json:"message,omitempty"`
}

// ParentStatus is what the controller observed.
type ParentStatus struct {
	ChildName string `json:"childName,omitempty"`
	Ready     bool   `json:"ready,omitempty"`
}

// Parent owns a Child.
type Parent struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ParentSpec   `json:"spec,omitempty"`
	Status            ParentStatus `json:"status,omitempty"`
}

// ParentList is a list of Parents.
type ParentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Parent `json:"items"`
}

// ChildSpec holds the data the Parent hands down (a ConfigMap-like kind).
type ChildSpec struct {
	Data map[string]string `json:"data,omitempty"`
}

// Child is made by the Parent controller, with an owner reference.
type Child struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ChildSpec `json:"spec,omitempty"`
}

// ChildList is a list of Children.
type ChildList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Child `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Parent{}, &ParentList{}, &Child{}, &ChildList{})
}

// The deep copies controller-gen writes (zz_generated.deepcopy.go).

func (in *Parent) DeepCopyInto(out *Parent) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

func (in *Parent) DeepCopy() *Parent {
	if in == nil {
		return nil
	}
	out := new(Parent)
	in.DeepCopyInto(out)
	return out
}

func (in *Parent) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func (in *ParentList) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := new(ParentList)
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Parent, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

func (in *Child) DeepCopyInto(out *Child) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Spec.Data != nil {
		out.Spec.Data = make(map[string]string, len(in.Spec.Data))
		for k, v := range in.Spec.Data {
			out.Spec.Data[k] = v
		}
	}
}

func (in *Child) DeepCopy() *Child {
	if in == nil {
		return nil
	}
	out := new(Child)
	in.DeepCopyInto(out)
	return out
}

func (in *Child) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func (in *ChildList) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := new(ChildList)
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Child, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}
