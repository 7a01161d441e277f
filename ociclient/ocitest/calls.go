// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package ocitest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Calls is a snapshot of the requests the server has seen since it started or since ResetCalls.
// Every request that reached an API path counts, including those the server refused
// (unauthenticated, rate-limited, or answered by an injected fault); the instance metadata
// service counts too, and the /ocitest/ admin endpoints do not. A request for a path ocitest does
// not emulate counts in Total and Status(404) but under no operation or class.
//
// The zero value is an empty snapshot.
type Calls struct {
	ops      map[string]int
	opClass  map[string]Class
	classes  map[Class]int
	statuses map[int]int
	total    int
	rejected int
	dropped  int
	faulted  int
}

// Op is the number of calls of one operation, by its SDK name (e.g. "GetInstance").
func (c Calls) Op(name string) int { return c.ops[name] }

// Class is the number of calls of one class. The classes are disjoint: polls are not reads.
func (c Calls) Class(class Class) int { return c.classes[class] }

// Total is the number of calls of any operation.
func (c Calls) Total() int { return c.total }

// Status is the number of calls answered with an HTTP status code, whoever answered: a handler,
// the signature check, the rate limit or an injected fault. Dropped connections have no status.
func (c Calls) Status(code int) int { return c.statuses[code] }

// Rejected is the number of calls the control layer answered in place of the handler's response:
// failed authentication, the server-side rate limit, and injected error or dropped-connection
// faults (including those injected after the handler ran).
func (c Calls) Rejected() int { return c.rejected }

// Dropped is the number of calls whose connection an injected fault closed without an answer.
func (c Calls) Dropped() int { return c.dropped }

// Faulted is the number of calls an injected fault applied to, latency-only faults included.
func (c Calls) Faulted() int { return c.faulted }

// Ops returns the names of the operations called at least once, sorted.
func (c Calls) Ops() []string {
	return slices.Sorted(maps.Keys(c.ops))
}

// Since returns the calls made between an earlier snapshot and this one, for measuring one step
// of a test or benchmark without resetting the counters other code may be reading.
func (c Calls) Since(earlier Calls) Calls {
	d := Calls{
		ops:      map[string]int{},
		opClass:  maps.Clone(c.opClass),
		classes:  map[Class]int{},
		statuses: map[int]int{},
		total:    c.total - earlier.total,
		rejected: c.rejected - earlier.rejected,
		dropped:  c.dropped - earlier.dropped,
		faulted:  c.faulted - earlier.faulted,
	}
	for k, v := range c.ops {
		if n := v - earlier.ops[k]; n != 0 {
			d.ops[k] = n
		}
	}
	for k, v := range c.classes {
		if n := v - earlier.classes[k]; n != 0 {
			d.classes[k] = n
		}
	}
	for k, v := range c.statuses {
		if n := v - earlier.statuses[k]; n != 0 {
			d.statuses[k] = n
		}
	}
	return d
}

// String renders the snapshot as a table with one row per operation, sorted by name, and a
// summary line; the layout is stable so benchmark output can be compared between runs.
func (c Calls) String() string {
	ops := c.Ops()
	width := len("operation")
	for _, op := range ops {
		width = max(width, len(op))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s  %-5s  %5s\n", width, "operation", "class", "calls")
	for _, op := range ops {
		fmt.Fprintf(&b, "%-*s  %-5s  %5d\n", width, op, c.opClass[op], c.ops[op])
	}
	fmt.Fprintf(&b, "reads %d  writes %d  polls %d  total %d  rejected %d  dropped %d",
		c.classes[ClassRead], c.classes[ClassWrite], c.classes[ClassPoll], c.total, c.rejected, c.dropped)
	return b.String()
}

// callsJSON is the wire form of Calls for the admin endpoint.
type callsJSON struct {
	Ops      map[string]int `json:"ops"`
	Classes  map[Class]int  `json:"classes"`
	Statuses map[int]int    `json:"statuses"`
	Total    int            `json:"total"`
	Rejected int            `json:"rejected"`
	Dropped  int            `json:"dropped"`
	Faulted  int            `json:"faulted"`
}

// MarshalJSON encodes the snapshot as {"ops":{...},"classes":{...},"statuses":{...},"total":N,
// "rejected":N,"dropped":N,"faulted":N}, the form GET /ocitest/calls serves.
func (c Calls) MarshalJSON() ([]byte, error) {
	return json.Marshal(callsJSON{
		Ops: emptyIfNil(c.ops), Classes: emptyIfNil(c.classes), Statuses: emptyIfNil(c.statuses),
		Total: c.total, Rejected: c.rejected, Dropped: c.dropped, Faulted: c.faulted,
	})
}

// UnmarshalJSON decodes the form MarshalJSON writes, so a process driving cmd/ocitest from
// outside can read GET /ocitest/calls into a Calls.
func (c *Calls) UnmarshalJSON(data []byte) error {
	var v callsJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*c = Calls{
		ops: v.Ops, classes: v.Classes, statuses: v.Statuses,
		total: v.Total, rejected: v.Rejected, dropped: v.Dropped, faulted: v.Faulted,
	}
	return nil
}

func emptyIfNil[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	return m
}

// callCounter accumulates Calls. Guarded by control.mu.
type callCounter struct {
	c Calls
}

func (cc *callCounter) reset() {
	cc.c = Calls{ops: map[string]int{}, opClass: map[string]Class{}, classes: map[Class]int{}, statuses: map[int]int{}}
}

// start counts a call as it arrives, so a call stuck in injected latency is already visible.
func (cc *callCounter) start(rt route) {
	cc.c.total++
	if rt.op != "" {
		cc.c.ops[rt.op]++
		cc.c.opClass[rt.op] = rt.class
	}
	if rt.class != "" {
		cc.c.classes[rt.class]++
	}
}

// finish records how a call ended. status is 0 when no response was written.
func (cc *callCounter) finish(status int, o outcome) {
	if status != 0 {
		cc.c.statuses[status]++
	}
	if o.rejected {
		cc.c.rejected++
	}
	if o.dropped {
		cc.c.dropped++
	}
	if o.faulted {
		cc.c.faulted++
	}
}

// snapshot returns a deep copy, so callers can keep it while calls go on.
func (cc *callCounter) snapshot() Calls {
	c := cc.c
	c.ops = maps.Clone(c.ops)
	c.opClass = maps.Clone(c.opClass)
	c.classes = maps.Clone(c.classes)
	c.statuses = maps.Clone(c.statuses)
	return c
}
