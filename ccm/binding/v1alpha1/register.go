// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The API group, version, kind and resource of BackendSetBinding.
const (
	Group    = "oci-ccm.github.io"
	Version  = "v1alpha1"
	Kind     = "BackendSetBinding"
	Resource = "backendsetbindings"
)

var (
	// SchemeGroupVersion is the group and version of the types in this package.
	SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}
	// GroupVersionResource is the resource a dynamic client reads BackendSetBindings as.
	GroupVersionResource = SchemeGroupVersion.WithResource(Resource)
	// SchemeBuilder registers the types of this package with a scheme.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme registers BackendSetBinding and BackendSetBindingList with a scheme (for a
	// typed client or controller-runtime).
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &BackendSetBinding{}, &BackendSetBindingList{})
	metav1.AddToGroupVersion(scheme, SchemeGroupVersion)
	return nil
}
