// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package binding

import (
	"cmp"
	"slices"

	"github.com/oci-ccm/oci-ccm/lb/internal/ipaddr"
)

// Backend is a backend of a backend set as Plan sees it, in either API.
type Backend struct {
	// Name is OCI's name for it: "ip:port" for a backend given by address; a network load
	// balancer's backend given by instance or private-IP OCID is "<OCID>:port".
	Name string
	IP   string
	Port int
	// Weight is zero when OCI reported none (its default is 1).
	Weight int
	Backup bool
	Drain  bool
	// Offline is kept as it is found: someone took the backend out of service by hand.
	Offline bool
	// MaxConnections is zero for unlimited (classic load balancers only).
	MaxConnections int
}

// key is the backend's address and port, "ip:port" (Target.Name), by which targets and owned
// names match it whatever OCI named it; its name when OCI gave no address.
func (b Backend) key() string { return keyOf(b.IP, b.Port, b.Name) }

// keyOf is Backend.key of a backend read from OCI.
func keyOf(ip string, port int, name string) string {
	if ip == "" {
		return name
	}
	return backendKey(ip, port)
}

// Change is what a binding changes in its backend set: a Plan.
type Change struct {
	// Backends is the set's full list of backends after the change, sorted by address and port:
	// the binding's own and, unchanged, everyone else's.
	Backends []Backend
	// Owned names ("ip:port", Target.Name) the backends the binding owns after the change, sorted.
	Owned []string
	// Added, Removed and Updated name the binding's backends the change adds, removes, and whose
	// settings or drain it changes; Drained names those of Updated it sets draining. Sorted.
	Added, Removed, Updated, Drained []string
	// Theirs names the targets that are already backends someone else added: left as they are,
	// and not owned. Sorted.
	Theirs []string
}

// Empty reports whether the change writes nothing.
func (c Change) Empty() bool { return len(c.Added)+len(c.Removed)+len(c.Updated) == 0 }

// Plan is the change that makes the backend set serve want, from the backends observed in it and
// the names the binding owns (Change.Owned of its last change; none the first time). Pure.
//
//   - A target that is no backend yet is added with b's settings, and owned.
//   - An owned backend that is still a target is kept; its weight, backup, connection cap and
//     drain follow b and the target (an Offline set by hand stays).
//   - An owned backend that is no longer a target is removed.
//   - A backend the binding does not own is never changed or removed; a target equal to one
//     (same address and port) stays theirs and is not owned (Theirs).
//   - An owned name that is no longer in the set (someone removed it) is forgotten, or added
//     again if it is still a target.
//
// Two targets with one address and port are one: active if either is.
func Plan(b Binding, observed []Backend, owned []string, want []Target) Change {
	mine := make(map[string]bool, len(owned))
	for _, n := range owned {
		mine[n] = true
	}
	wanted := make(map[string]Target, len(want))
	for _, t := range want {
		if prev, ok := wanted[t.Name()]; ok && !prev.Drain {
			continue
		}
		t.IP = canonicalIP(t.IP)
		wanted[t.Name()] = t
	}
	var c Change
	seen := make(map[string]bool, len(observed))
	for _, o := range observed {
		k := o.key()
		seen[k] = true
		t, isTarget := wanted[k]
		switch {
		case !mine[k]:
			c.Backends = append(c.Backends, o)
			if isTarget {
				c.Theirs = append(c.Theirs, k)
			}
		case !isTarget:
			c.Removed = append(c.Removed, k)
		default:
			n := desired(b, t, o.Name)
			n.Offline = o.Offline
			if sameSettings(o, n) {
				n = o // as it is: a write for another backend sends it as read
			} else {
				c.Updated = append(c.Updated, k)
				if n.Drain && !o.Drain {
					c.Drained = append(c.Drained, k)
				}
			}
			c.Backends = append(c.Backends, n)
			c.Owned = append(c.Owned, k)
		}
	}
	for k, t := range wanted {
		if !seen[k] {
			c.Backends = append(c.Backends, desired(b, t, k))
			c.Added = append(c.Added, k)
			c.Owned = append(c.Owned, k)
		}
	}
	slices.SortFunc(c.Backends, func(x, y Backend) int {
		return cmp.Or(ipaddr.Compare(x.IP, y.IP), cmp.Compare(x.Port, y.Port), cmp.Compare(x.Name, y.Name))
	})
	for _, l := range []*[]string{&c.Owned, &c.Added, &c.Removed, &c.Updated, &c.Drained, &c.Theirs} {
		sortNames(*l)
	}
	return c
}

// desired is the binding's backend for t, named name.
func desired(b Binding, t Target, name string) Backend {
	return Backend{Name: name, IP: t.IP, Port: t.Port, Weight: b.Weight, Backup: b.Backup, Drain: t.Drain,
		MaxConnections: b.MaxConnections}
}

// sameSettings reports whether an observed backend already has the desired one's settings; a
// zero weight is OCI's default, 1.
func sameSettings(o, d Backend) bool {
	w := func(x int) int { return cmp.Or(x, 1) }
	return w(o.Weight) == w(d.Weight) && o.Backup == d.Backup && o.Drain == d.Drain && o.MaxConnections == d.MaxConnections
}

// sortNames orders "ip:port" names by address, then port.
func sortNames(names []string) {
	slices.SortFunc(names, func(a, b string) int {
		ia, pa := splitName(a)
		ib, pb := splitName(b)
		return cmp.Or(ipaddr.Compare(ia, ib), cmp.Compare(pa, pb), cmp.Compare(a, b))
	})
}
