// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package testcluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// ApplyCRD creates the CustomResourceDefinition in the manifest at path (one object, as
// examples/deploy's are) and waits until the API server serves its first version: Established,
// and in discovery, as a controller checking for it would see it.
func (c *Cluster) ApplyCRD(ctx context.Context, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var crd unstructured.Unstructured
	if err := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096).Decode(&crd.Object); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	dyn, err := dynamic.NewForConfig(c.AdminConfig())
	if err != nil {
		return err
	}
	if _, err := dyn.Resource(crdResource).Create(ctx, &crd, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create the CRD of %s: %w", path, err)
	}
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	version := ""
	if len(versions) > 0 {
		version, _, _ = unstructured.NestedString(versions[0].(map[string]any), "name")
	}
	disc, err := discovery.NewDiscoveryClientForConfig(c.AdminConfig())
	if err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		resources, err := disc.ServerResourcesForGroupVersion(group + "/" + version)
		if err != nil {
			return false, nil // not yet
		}
		for _, r := range resources.APIResources {
			if r.Name == plural {
				return true, nil
			}
		}
		return false, nil
	})
}
