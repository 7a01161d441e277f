//go:build e2e

package e2e

import (
	"bytes"
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

// process is a child (ocitest or the CCM) in its own process group, with stderr (and stdout,
// unless the caller reads it) appended to a log file.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd

	// done is closed once Wait has returned; waitErr is valid after that.
	done    chan struct{}
	waitErr error
	// stopping is set before the suite signals the process, so an exit after it is not
	// reported as a crash.
	stopping atomic.Bool
}

// startProcess starts path with args. The kernel kills the child if the test binary dies
// (Pdeathsig), so an aborted run leaves nothing listening. When stdout is nil, the child's
// stdout goes to the log as well.
func startProcess(name, path string, args []string, logPath string, stdout io.Writer) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", name, err)
	}
	// The command line first: it is what one needs when a start fails.
	fmt.Fprintf(logFile, "=== e2e: %s %s\n", path, strings.Join(args, " "))

	cmd := exec.Command(path, args...)
	cmd.Stderr = logFile
	cmd.Stdout = logFile
	if stdout != nil {
		cmd.Stdout = stdout
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

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

// crashed reports whether the process ended without the suite asking it to.
func (p *process) crashed() bool { return p.exited() && !p.stopping.Load() }

// exitError describes how the process ended; meaningful once it has exited.
func (p *process) exitError() error {
	if p.waitErr != nil {
		return fmt.Errorf("%s (pid %d): %w", p.name, p.pid(), p.waitErr)
	}
	return fmt.Errorf("%s (pid %d) exited with status 0", p.name, p.pid())
}

// kill sends SIGKILL to the process group, the way a node losing power or the OOM killer ends a
// controller, and waits until the process is reaped.
func (p *process) kill() {
	p.stopping.Store(true)
	if !p.exited() {
		_ = signalGroup(p.pid(), syscall.SIGKILL)
	}
	<-p.done
}

// stop sends SIGTERM to the process group, and SIGKILL if it has not exited after grace.
func (p *process) stop(grace time.Duration) {
	p.stopping.Store(true)
	if p.exited() {
		return
	}
	_ = signalGroup(p.pid(), syscall.SIGTERM)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.done:
	case <-timer.C:
		_ = signalGroup(p.pid(), syscall.SIGKILL)
		<-p.done
	}
}

// signalGroup signals the process group pgid; a group that is already gone is not an error.
func signalGroup(pgid int, sig syscall.Signal) error {
	if err := syscall.Kill(-pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

// fileSize returns the size of the file at path, 0 when it cannot be read.
func fileSize(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}

// readLog returns the part of a log written after offset, at most maxBytes from its end, cut to
// whole lines.
func readLog(path string, offset, maxBytes int64) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if offset > int64(len(data)) {
		offset = 0 // the file was replaced
	}
	data = data[offset:]
	if int64(len(data)) > maxBytes {
		data = data[int64(len(data))-maxBytes:]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return string(data), nil
}
