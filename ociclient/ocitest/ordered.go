// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import "encoding/json"

// ordered keeps resources by OCID in creation order, the order list operations return them in.
// The zero value is empty and ready to use. Values are stored immutably: an update replaces a
// value, so a copy taken under Server.mu stays consistent after the lock is released.
type ordered[T any] struct {
	ids  []string
	byID map[string]T
}

func (o *ordered[T]) put(id string, v T) {
	if o.byID == nil {
		o.byID = map[string]T{}
	}
	if _, ok := o.byID[id]; !ok {
		o.ids = append(o.ids, id)
	}
	o.byID[id] = v
}

func (o *ordered[T]) get(id string) (T, bool) {
	v, ok := o.byID[id]
	return v, ok
}

func (o *ordered[T]) remove(id string) {
	if _, ok := o.byID[id]; !ok {
		return
	}
	delete(o.byID, id)
	for i, x := range o.ids {
		if x == id {
			o.ids = append(o.ids[:i:i], o.ids[i+1:]...)
			break
		}
	}
}

// filter returns, in creation order, the values keep accepts (all of them for a nil keep).
func (o *ordered[T]) filter(keep func(T) bool) []T {
	out := make([]T, 0, len(o.ids))
	for _, id := range o.ids {
		if v := o.byID[id]; keep == nil || keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// jsonClone deep-copies an SDK value through its JSON form, the form that matters on the wire.
// It copies values entering the store from seeding code and leaving it through snapshot getters,
// so neither side can change the other's slices or pointers.
func jsonClone[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		return v // SDK models always marshal; the shallow copy is the best left to return
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}
