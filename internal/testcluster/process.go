package testcluster

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

// errExited reports that a process ended while it was still expected to
// come up. Start retries such a start with fresh ports, because the usual
// cause on a busy machine is a port taken between picking it and binding it.
var errExited = errors.New("process exited during startup")

// process is one child (etcd or kube-apiserver) running in its own process
// group, with stdout and stderr appended to a log file.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd

	// done is closed once Wait has returned; waitErr is valid after that.
	done    chan struct{}
	waitErr error

	// stopping is set before stop signals the process, so that an exit
	// after it can be told apart from a crash.
	stopping atomic.Bool
}

// startProcess starts path with args. The child is killed with its whole
// process group when ctx is done, and by the kernel if this process dies
// (Pdeathsig), so a panicking or timed-out test leaves nothing behind.
func startProcess(ctx context.Context, name, path string, args, env []string, logPath string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", name, err)
	}
	// The header separates retried starts in the same log and records the
	// command line, which is what one needs first when a start fails.
	fmt.Fprintf(logFile, "=== testcluster: %s %s\n", path, strings.Join(args, " "))

	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = env
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,
		Pdeathsig: syscall.SIGKILL,
	}
	cmd.Cancel = func() error { return signalGroup(cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}

	p := &process{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		// The child holds its own descriptor; ours is only needed until
		// the child is gone.
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// pid returns the process id, which is also its process group id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitError describes how the process ended; it is only meaningful once
// the process has exited.
func (p *process) exitError() error {
	if p.waitErr != nil {
		return fmt.Errorf("%s (pid %d): %w", p.name, p.pid(), p.waitErr)
	}
	return fmt.Errorf("%s (pid %d) exited with status 0", p.name, p.pid())
}

// stop asks the process group to terminate, and kills it if it has not
// exited after grace. It returns once the process has been reaped, and
// reports whether the kill was needed.
//
// The group is signalled rather than the process alone so that nothing it
// may have forked survives it. The process is signalled only while it has
// not been reaped, so its id (and thus the group id) cannot have been
// reused; the remaining window between that check and kill(2) is a few
// instructions long.
func (p *process) stop(grace time.Duration) (killed bool) {
	p.stopping.Store(true)
	if p.exited() {
		return false
	}
	_ = signalGroup(p.pid(), syscall.SIGTERM)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.done:
		return false
	case <-timer.C:
		_ = signalGroup(p.pid(), syscall.SIGKILL)
		<-p.done
		return true
	}
}

// signalGroup sends sig to the process group pgid. A group that is already
// gone is not an error: the goal, no process left, is met.
func signalGroup(pgid int, sig syscall.Signal) error {
	err := syscall.Kill(-pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// tailFile returns at most the last maxBytes of the file at path, cut to
// whole lines, for showing a failed process's last words.
func tailFile(path string, maxBytes int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	// Start one byte early: if that byte is a newline, the first line in
	// range is whole; otherwise it is cut and dropped.
	offset := info.Size() - maxBytes - 1
	if offset < 0 {
		offset = 0
	}
	buf := make([]byte, info.Size()-offset)
	if _, err := f.ReadAt(buf, offset); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	if offset > 0 {
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	return string(buf), nil
}

// environWithout returns env without the variables whose names start with
// prefix. etcd reads every ETCD_* variable as configuration, so a stray one
// in the test's environment must not reach it.
func environWithout(env []string, prefix string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, prefix) {
			out = append(out, kv)
		}
	}
	return out
}
