// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The oci-ccm Authors.

// Package proc runs the child processes of the project's test suites (etcd, kube-apiserver,
// ocitest, the CCM binary): each in its own process group, killed with the test binary, its
// output appended to a log file that failures can quote.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Process is one child running in its own process group.
type Process struct {
	name    string
	logPath string
	cmd     *exec.Cmd

	// done is closed once Wait has returned; waitErr is valid after that.
	done    chan struct{}
	waitErr error

	// stopping is set before Stop or Kill signals the process, so that an exit after it can be
	// told apart from a crash.
	stopping atomic.Bool
}

// Start starts path with args and env (nil: this process's environment). Stdout and stderr are
// appended to logPath, stdout to the given writer instead when it is not nil (to read what a
// child prints, such as ocitest's URL). The child is killed with its whole process group when
// ctx is done, and by the kernel if this process dies (Pdeathsig), so a panicking or timed-out
// test leaves nothing behind.
func Start(ctx context.Context, name, path string, args, env []string, logPath string, stdout io.Writer) (*Process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", name, err)
	}
	// The header separates restarts in the same log and records the command line, which is what
	// one needs first when a start fails.
	fmt.Fprintf(logFile, "=== %s: %s %s\n", name, path, strings.Join(args, " "))

	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = env
	cmd.Stdout = logFile
	if stdout != nil {
		cmd.Stdout = stdout
	}
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return signalGroup(cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Process{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		// The child holds its own descriptor; ours is only needed until the child is gone.
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// Name is the name the process was started with.
func (p *Process) Name() string { return p.name }

// LogPath is the file the process's output goes to.
func (p *Process) LogPath() string { return p.logPath }

// PID is the process id, which is also its process group id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Done is closed once the process has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Crashed reports whether the process ended without Stop or Kill being called.
func (p *Process) Crashed() bool { return p.Exited() && !p.stopping.Load() }

// ExitError describes how the process ended; it is only meaningful once it has exited.
func (p *Process) ExitError() error {
	if p.waitErr != nil {
		return fmt.Errorf("%s (pid %d): %w", p.name, p.PID(), p.waitErr)
	}
	return fmt.Errorf("%s (pid %d) exited with status 0", p.name, p.PID())
}

// Stop asks the process group to terminate, and kills it if it has not exited after grace. It
// returns once the process has been reaped, and reports whether the kill was needed.
//
// The group is signalled rather than the process alone so that nothing it forked survives it.
// It is signalled only while the process has not been reaped, so its id (and thus the group
// id) cannot have been reused; the window between that check and kill(2) is a few instructions.
func (p *Process) Stop(grace time.Duration) (killed bool) {
	p.stopping.Store(true)
	if p.Exited() {
		return false
	}
	_ = signalGroup(p.PID(), syscall.SIGTERM)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.done:
		return false
	case <-timer.C:
		_ = signalGroup(p.PID(), syscall.SIGKILL)
		<-p.done
		return true
	}
}

// Kill sends SIGKILL to the process group, the way a node losing power or the OOM killer ends a
// controller, and waits until the process is reaped.
func (p *Process) Kill() {
	p.stopping.Store(true)
	if !p.Exited() {
		_ = signalGroup(p.PID(), syscall.SIGKILL)
	}
	<-p.done
}

// signalGroup sends sig to the process group pgid. A group that is already gone is not an
// error: the goal, no process left, is met.
func signalGroup(pgid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// Size returns the size of the file at path, 0 when it cannot be read: an offset for Tail.
func Size(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}

// Tail returns what the file at path holds after offset, at most its last maxBytes, cut to
// whole lines: a failed process's last words. An offset past the end (the file was replaced)
// reads from the start.
func Tail(path string, offset, maxBytes int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	size := info.Size()
	if offset > size {
		offset = 0
	}
	// Start one byte early when cutting: if that byte is a newline the first line in range is
	// whole, otherwise it is cut and dropped.
	cut := size-maxBytes-1 > offset
	if cut {
		offset = size - maxBytes - 1
	}
	buf := make([]byte, size-offset)
	if _, err := f.ReadAt(buf, offset); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	if cut {
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	return string(buf), nil
}
