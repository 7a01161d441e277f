// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package loadbalancer
