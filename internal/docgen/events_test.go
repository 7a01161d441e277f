// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const eventsFixture = `package fix

// The reasons.
const (
	// EventDone says the work | ended.
	EventDone = "WorkDone"
	// EventFailed says it failed.
	EventFailed = "WorkFailed"
	// notAnEvent is unexported.
	eventHidden = "Hidden"
)

// EventAlone is the reason of a lone constant's Events.
const EventAlone = "Alone"

// AnnotationX is not an Event.
const AnnotationX = "x"
`

func TestEventsTableIsRenderedFromTheConstants(t *testing.T) {
	dir := t.TempDir()
	source := filepath.Join(dir, "events.go")
	if err := os.WriteFile(source, []byte(eventsFixture), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "events.md")
	if err := os.WriteFile(page, []byte("# E\n"+BeginEventsMarker+"\nold\n"+EndEventsMarker+"\nTail.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runEvents(source, page, true); err == nil {
		t.Fatal("check mode accepted a stale page")
	}
	if err := runEvents(source, page, false); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(page)
	want := "# E\n" + BeginEventsMarker + "\n\n" +
		"| Reason | Constant | What it says |\n|---|---|---|\n" +
		"| `Alone` | `kube.EventAlone` | `EventAlone` is the reason of a lone constant's Events. |\n" +
		"| `WorkDone` | `kube.EventDone` | `EventDone` says the work \\| ended. |\n" +
		"| `WorkFailed` | `kube.EventFailed` | `EventFailed` says it failed. |\n" +
		"\n" + EndEventsMarker + "\nTail.\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("page (-want +got):\n%s", diff)
	}
	if err := runEvents(source, page, true); err != nil {
		t.Errorf("check after generating: %v", err)
	}
}

func TestAnEventWithoutADocCommentIsAnError(t *testing.T) {
	source := filepath.Join(t.TempDir(), "events.go")
	if err := os.WriteFile(source, []byte("package fix\n\nconst (\n\tEventBare = \"Bare\"\n)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := parseEvents(source); err == nil || !strings.Contains(err.Error(), "EventBare has no doc comment") {
		t.Errorf("err = %v, want one naming EventBare", err)
	}
}

// Every reason ccm/service/internal/kube records on Services and Nodes is on the page.
func TestTheEventsPageListsEveryReasonOfInternalKube(t *testing.T) {
	events, err := parseEvents("../../ccm/service/internal/kube/events.go")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("../../ccm/docs/events.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if !strings.Contains(string(page), "| `"+e.Reason+"` |") {
			t.Errorf("ccm/docs/events.md lacks %s (%s): run make generate", e.Reason, e.Const)
		}
	}
	if len(events) < 9 {
		t.Errorf("found %d Event reasons in ccm/service/internal/kube/events.go, want at least 9", len(events))
	}
}
