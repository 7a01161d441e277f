// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package seclist

import "time"

// SetClock replaces the clock that ages the lists a Manager remembers.
func (m *Manager) SetClock(now func() time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = now
}

// WriteRequests is how many times the Manager has asked its list writers to sync, in all.
func (m *Manager) WriteRequests() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n uint64
	for _, w := range m.writers {
		w.mu.Lock()
		n += w.want
		w.mu.Unlock()
	}
	return n
}
