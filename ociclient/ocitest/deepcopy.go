// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import "reflect"

// deepCopy copies v so that the copy shares no pointer, slice, map or interface value with it.
// For state already in its wire form it equals jsonClone (nil stays nil, empty stays empty), at
// a fraction of the CPU: a change to a load balancer of 1,000 backends copies it, and
// jsonClone's decoding made that the largest cost of a 1,000-Service storm (internal/bench).
// Structs with unexported fields (time.Time inside common.SDKTime) are copied as values.
func deepCopy[T any](v T) T {
	var out T
	copyValue(reflect.ValueOf(&out).Elem(), reflect.ValueOf(&v).Elem())
	return out
}

// copyValue deep-copies src into dst, which is settable and of src's type.
func copyValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		copyValue(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		c := reflect.New(src.Elem().Type()).Elem()
		copyValue(c, src.Elem())
		dst.Set(c)
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			copyValue(s.Index(i), src.Index(i))
		}
		dst.Set(s)
	case reflect.Array:
		for i := range src.Len() {
			copyValue(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		it := src.MapRange()
		for it.Next() {
			k := reflect.New(src.Type().Key()).Elem()
			copyValue(k, it.Key())
			e := reflect.New(src.Type().Elem()).Elem()
			copyValue(e, it.Value())
			m.SetMapIndex(k, e)
		}
		dst.Set(m)
	case reflect.Struct:
		t := src.Type()
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				dst.Set(src) // e.g. time.Time: a value, copied whole
				return
			}
		}
		for i := range t.NumField() {
			copyValue(dst.Field(i), src.Field(i))
		}
	default:
		dst.Set(src)
	}
}
