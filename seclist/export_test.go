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

// Settle makes m as if it had run for its listing lag already: its listings show every group a
// process before it created, as a CCM's do by the time it has Services to reconcile.
func (m *Manager) Settle() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.settled = m.now()
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
