// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package config

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
)

// Format writes the placeholder for every verb and flag, so %v, %+v, %#v, %s, %q, %x, %X, %d
// and the rest never reveal the value. Without it, verbs such as %x and %d bypass String.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		_, _ = fmt.Fprint(f, strconv.Quote(s.String()))
		return
	}
	_, _ = fmt.Fprint(f, s.String())
}

// MarshalJSON encodes the placeholder, so a Config logged as JSON does not leak the value.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// MarshalYAML encodes the placeholder. A marshalled Config is for display only: loading it back
// yields the placeholder, not the secret.
func (s Secret) MarshalYAML() (any, error) { return s.String(), nil }

// MarshalText encodes the placeholder, for encoders that use encoding.TextMarshaler.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// LogValue makes log/slog print the placeholder with any handler.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }
