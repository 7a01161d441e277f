// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The deep copies runtime.Object asks for, written out (the types are few and small, so the
// project needs no code generator); TestDeepCopySharesNothing checks them by reflection.

// DeepCopyInto copies b into out, sharing nothing.
func (b *BackendSetBinding) DeepCopyInto(out *BackendSetBinding) {
	*out = *b
	b.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	b.Spec.DeepCopyInto(&out.Spec)
	b.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of b that shares nothing with it.
func (b *BackendSetBinding) DeepCopy() *BackendSetBinding {
	if b == nil {
		return nil
	}
	out := new(BackendSetBinding)
	b.DeepCopyInto(out)
	return out
}

// DeepCopyObject is DeepCopy as a runtime.Object.
func (b *BackendSetBinding) DeepCopyObject() runtime.Object {
	if c := b.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies l into out, sharing nothing.
func (l *BackendSetBindingList) DeepCopyInto(out *BackendSetBindingList) {
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]BackendSetBinding, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of l that shares nothing with it.
func (l *BackendSetBindingList) DeepCopy() *BackendSetBindingList {
	if l == nil {
		return nil
	}
	out := new(BackendSetBindingList)
	l.DeepCopyInto(out)
	return out
}

// DeepCopyObject is DeepCopy as a runtime.Object.
func (l *BackendSetBindingList) DeepCopyObject() runtime.Object {
	if c := l.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies s into out, sharing nothing.
func (s *BackendSetBindingSpec) DeepCopyInto(out *BackendSetBindingSpec) {
	*out = *s
	out.Weight = copyInt32(s.Weight)
	out.MaxConnections = copyInt32(s.MaxConnections)
	if s.NodeSelector != nil {
		out.NodeSelector = s.NodeSelector.DeepCopy()
	}
}

// DeepCopyInto copies s into out, sharing nothing.
func (s *BackendSetBindingStatus) DeepCopyInto(out *BackendSetBindingStatus) {
	*out = *s
	if s.OwnedBackends != nil {
		out.OwnedBackends = append([]string(nil), s.OwnedBackends...)
	}
	if s.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(s.Conditions))
		for i := range s.Conditions {
			s.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
}

func copyInt32(p *int32) *int32 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
