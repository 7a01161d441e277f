// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package proc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTailReturnsWholeLinesAfterOffsetWithinTheLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte("one\ntwo\nthree\nfour\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name          string
		offset, limit int64
		want          string
	}{
		{"everything", 0, 100, "one\ntwo\nthree\nfour\n"},
		{"after an offset", 8, 100, "three\nfour\n"},
		{"the limit cuts to whole lines", 0, 8, "four\n"},
		{"the limit on a line boundary keeps that line", 0, 11, "three\nfour\n"},
		{"one byte short of a line drops it", 0, 10, "four\n"},
		{"an offset past the end reads a replaced file from its start", 1000, 100, "one\ntwo\nthree\nfour\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Tail(path, tc.offset, tc.limit)
			if err != nil || got != tc.want {
				t.Errorf("Tail(%d, %d) = %q, %v; want %q", tc.offset, tc.limit, got, err, tc.want)
			}
		})
	}
	if Size(path) != 19 || Size(filepath.Join(t.TempDir(), "absent")) != 0 {
		t.Errorf("Size = %d (absent: %d), want 19 and 0", Size(path), Size(filepath.Join(t.TempDir(), "absent")))
	}
}

func TestKillIsNotACrashButAnUnaskedExitIs(t *testing.T) {
	dir := t.TempDir()
	killed, err := Start(t.Context(), "sleeper", "/bin/sleep", []string{"300"}, nil, filepath.Join(dir, "a.log"), nil)
	if err != nil {
		t.Fatal(err)
	}
	killed.Kill()
	if !killed.Exited() || killed.Crashed() {
		t.Errorf("after Kill: exited %v, crashed %v; want true, false", killed.Exited(), killed.Crashed())
	}

	failed, err := Start(t.Context(), "failer", "/bin/sh", []string{"-c", "echo bye >&2; exit 3"}, nil, filepath.Join(dir, "b.log"), nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-failed.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the process did not exit")
	}
	if !failed.Crashed() || !strings.Contains(failed.ExitError().Error(), "exit status 3") {
		t.Errorf("crashed %v, exit error %v; want true and exit status 3", failed.Crashed(), failed.ExitError())
	}
	if log, _ := Tail(failed.LogPath(), 0, 1<<10); !strings.Contains(log, "=== failer: /bin/sh") || !strings.Contains(log, "bye") {
		t.Errorf("log %q lacks the command line header or the output", log)
	}
}
