// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

package testcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oci-ccm/oci-ccm/internal/proc"
)

// startShell runs script under /bin/sh as a process of this package and
// returns it with the pid of the background child the script reports as
// "child=<pid>".
func startShell(t *testing.T, ctx context.Context, script string) (*proc.Process, int) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "sh.log")
	p, err := proc.Start(ctx, "sh", "/bin/sh", []string{"-c", script}, os.Environ(), logPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(time.Second) })
	var child int
	eventually(t, "the script reports its child", func() bool {
		data, err := os.ReadFile(logPath)
		if err != nil {
			return false
		}
		for line := range strings.Lines(string(data)) {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "child="); ok {
				child, err = strconv.Atoi(v)
				return err == nil
			}
		}
		return false
	})
	return p, child
}

// alive reports whether pid names a process that has not exited. A zombie
// counts as exited: it runs nothing, and here nobody may reap orphans.
func alive(t *testing.T, pid int) bool {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	// The state follows the command name, which is in parentheses.
	i := strings.LastIndexByte(string(data), ')')
	fields := strings.Fields(string(data[i+1:]))
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// eventually polls cond until it holds; the generous bound only stops a
// hung test, it is not a performance assertion.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ticker := time.NewTicker(10 * time.Millisecond)
	defer ticker.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("waiting until %s: %v", what, ctx.Err())
		case <-ticker.C:
		}
	}
}

func TestStopTerminatesTheWholeProcessGroup(t *testing.T) {
	p, child := startShell(t, t.Context(), "sleep 300 & echo child=$!; wait")

	if killed := p.Stop(30 * time.Second); killed {
		t.Error("stop needed SIGKILL for a process that exits on SIGTERM")
	}
	if !p.Exited() {
		t.Error("stop returned before the process exited")
	}
	eventually(t, "the background child is gone", func() bool { return !alive(t, child) })
}

func TestStopKillsAGroupThatIgnoresSIGTERM(t *testing.T) {
	p, child := startShell(t, t.Context(), "trap '' TERM; sleep 300 & echo child=$!; wait")

	if killed := p.Stop(100 * time.Millisecond); !killed {
		t.Error("stop did not report that it had to kill")
	}
	eventually(t, "the background child is gone", func() bool { return !alive(t, child) })
}

func TestContextEndKillsTheProcessGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	p, child := startShell(t, ctx, "trap '' TERM; sleep 300 & echo child=$!; wait")

	cancel()
	<-p.Done()
	eventually(t, "the background child is gone", func() bool { return !alive(t, child) })
	if !p.Crashed() {
		t.Error("the process counts as stopped by Stop, want killed by its context")
	}
}

func TestPollReadyReportsAProcessThatExits(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "sh.log")
	p, err := proc.Start(t.Context(), "sh", "/bin/sh", []string{"-c", "exit 3"}, nil, logPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	probes := 0
	err = pollReady(t.Context(), p, func(context.Context) error {
		probes++
		return errors.New("not ready")
	})
	if !errors.Is(err, errExited) {
		t.Fatalf("pollReady = %v, want errExited", err)
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 3 {
		t.Errorf("pollReady = %v, want it to wrap exit status 3", err)
	}
	if probes == 0 {
		t.Error("pollReady never probed")
	}
}

func TestPollReadyStopsProbingOnSuccess(t *testing.T) {
	p, _ := startShell(t, t.Context(), "sleep 300 & echo child=$!; wait")
	probes := 0
	err := pollReady(t.Context(), p, func(context.Context) error {
		probes++
		if probes < 3 {
			return errors.New("not ready")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if probes != 3 {
		t.Errorf("probes = %d, want 3", probes)
	}
}

func TestPollReadyEndsWithItsContext(t *testing.T) {
	p, _ := startShell(t, t.Context(), "sleep 300 & echo child=$!; wait")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	notReady := errors.New("not ready")
	err := pollReady(ctx, p, func(context.Context) error { return notReady })
	if !errors.Is(err, context.Canceled) || !errors.Is(err, notReady) {
		t.Errorf("pollReady = %v, want the context's error and the last probe's", err)
	}
	if p.Exited() {
		t.Error("pollReady's context ended the process, want only the wait to end")
	}
}

func TestRetryStartRetriesOnlyProcessesThatExit(t *testing.T) {
	other := errors.New("bad flag file")
	tests := []struct {
		name      string
		results   []error
		wantCalls int
		wantErr   error
	}{
		{name: "first start works", results: []error{nil}, wantCalls: 1},
		{name: "exit then success", results: []error{errExited, nil}, wantCalls: 2},
		{name: "other errors are final", results: []error{other}, wantCalls: 1, wantErr: other},
		{name: "gives up after three exits", results: []error{errExited, errExited, errExited, nil}, wantCalls: 3, wantErr: errExited},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Cluster{logf: t.Logf}
			calls := 0
			got, err := retryStart(c, t.Context(), func() (int, error) {
				err := tt.results[calls]
				calls++
				if err != nil {
					return 0, fmt.Errorf("attempt %d: %w", calls, err)
				}
				return calls, nil
			})
			if calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", calls, tt.wantCalls)
			}
			if tt.wantErr == nil {
				if err != nil || got != tt.wantCalls {
					t.Errorf("retryStart = %d, %v; want %d, nil", got, err, tt.wantCalls)
				}
			} else if !errors.Is(err, tt.wantErr) {
				t.Errorf("retryStart error = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestStartRefusesMissingBinaries(t *testing.T) {
	notExecutable := filepath.Join(t.TempDir(), "etcd")
	if err := os.WriteFile(notExecutable, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  map[string]string
		opts Options
	}{
		{name: "nothing configured", env: map[string]string{EnvKubeAPIServer: "", EnvEtcd: ""}},
		{name: "etcd unset", env: map[string]string{EnvKubeAPIServer: "/bin/sh", EnvEtcd: ""}},
		{name: "path does not exist", opts: Options{KubeAPIServer: "/nonexistent/kube-apiserver", Etcd: "/bin/sh"}},
		{name: "not executable", opts: Options{KubeAPIServer: "/bin/sh", Etcd: notExecutable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			c, err := Start(t.Context(), tt.opts)
			if !errors.Is(err, ErrNoBinary) {
				t.Errorf("Start = %v, %v; want ErrNoBinary", c, err)
			}
		})
	}
}
