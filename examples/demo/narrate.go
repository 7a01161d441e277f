// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/oci-ccm/oci-ccm/ociclient/ocitest"
)

// narrator writes the demo's output: numbered sections, indented lines and aligned tables. The
// first write error is kept and reported by err, so steps need not check every line.
type narrator struct {
	w       io.Writer
	section int
	failed  error
	// explained says the legend has been written: it comes once, before the first plan.
	explained bool
}

const indent = "   "

func (n *narrator) write(s string) {
	if n.failed != nil {
		return
	}
	_, n.failed = io.WriteString(n.w, s)
}

// err returns the first write error.
func (n *narrator) err() error { return n.failed }

// title starts a numbered section.
func (n *narrator) title(format string, args ...any) {
	n.section++
	n.write(fmt.Sprintf("\n%d. %s\n", n.section, fmt.Sprintf(format, args...)))
}

// say writes one indented line.
func (n *narrator) say(format string, args ...any) {
	n.write(indent + fmt.Sprintf(format, args...) + "\n")
}

// text writes a block of lines under a heading, indented one level deeper.
func (n *narrator) text(heading, block string) {
	if heading != "" {
		n.say("%s", heading)
	}
	for _, line := range strings.Split(strings.TrimRight(block, "\n"), "\n") {
		n.write(indent + indent + line + "\n")
	}
}

// table writes rows with aligned columns; the first row is the header.
func (n *narrator) table(rows [][]string) {
	if n.failed != nil || len(rows) == 0 {
		return
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(tw, indent+strings.Join(r, "\t"))
	}
	if err := tw.Flush(); err != nil {
		n.failed = err
		return
	}
	// tabwriter pads the last column too; trailing blanks only get in the way of copy and paste.
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		n.write(strings.TrimRight(line, " ") + "\n")
	}
}

// legend explains the marks of the plans and of the security rule tables.
var legend = [][]string{
	{"+", "created (a security rule: added)"},
	{"~", "changed in place (old → new)"},
	{"-", "deleted (a security rule: removed)"},
	{"(after 1, 3)", "starts only once changes 1 and 3 of the same plan have finished"},
}

// legendHeading introduces the legend.
const legendHeading = "How to read the plans and the security rule tables below:"

// plans writes the load balancer plans the provider applied, in the order it applied them,
// after the legend the first time.
func (n *narrator) plans(ps []plan) {
	if len(ps) > 0 && !n.explained {
		n.say("%s", legendHeading)
		rows := make([][]string, len(legend))
		for i, l := range legend {
			rows[i] = []string{indent + l[0], l[1]}
		}
		n.table(rows)
		n.explained = true
	}
	for _, p := range ps {
		n.text(fmt.Sprintf("plan for Service %s:", p.Service), shortenOCIDs(p.Text))
	}
}

// ociCalls writes one step's OCI calls: a line of totals by class, then one row per operation,
// writes first.
func (n *narrator) ociCalls(c ocitest.Calls) {
	if c.Total() == 0 {
		n.say("OCI calls: none")
		return
	}
	n.say("OCI calls: %d reads, %d writes, %d work-request polls",
		c.Class(ocitest.ClassRead), c.Class(ocitest.ClassWrite), c.Class(ocitest.ClassPoll))
	ops := c.Ops()
	slices.SortStableFunc(ops, func(a, b string) int {
		return cmp.Compare(classOrder(opClass(a)), classOrder(opClass(b)))
	})
	rows := [][]string{}
	for _, op := range ops {
		rows = append(rows, []string{indent + string(opClass(op)), op, fmt.Sprint(c.Op(op))})
	}
	n.table(rows)
	if c.Rejected() > 0 || c.Status(409) > 0 {
		n.say("(%d answered 409 Conflict, %d refused by the server)", c.Status(409), c.Rejected())
	}
}

// opClass is the class ocitest counts an operation under. ocitest's Calls reports totals per
// class but not each operation's class, so it is read off the SDK operation name, which follows
// OCI's naming (after ocitest.NLB's "nlb." prefix): work-request reads are polls, Get/List are
// reads, the rest change state.
func opClass(op string) ocitest.Class {
	op = strings.TrimPrefix(op, ocitest.NLB(""))
	switch {
	case strings.Contains(op, "WorkRequest"):
		return ocitest.ClassPoll
	case strings.HasPrefix(op, "Get"), strings.HasPrefix(op, "List"):
		return ocitest.ClassRead
	}
	return ocitest.ClassWrite
}

func classOrder(c ocitest.Class) int {
	return slices.Index([]ocitest.Class{ocitest.ClassWrite, ocitest.ClassRead, ocitest.ClassPoll}, c)
}
