//go:build unix

package tools

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// A stdio server runs in a process group of its own, so that whatever it
// starts (npx starts a shell that starts node; servers fork helpers) ends
// with it: stopping it signals the group, not a pid. The group is made by
// /bin/sh, which leaves in it a watcher reading a pipe only bench writes
// to (bench never does): when bench exits, however it exits (kill -9
// included, when no Close runs), the pipe's end wakes the watcher, which
// kills the group. The server is then exec'd in the shell's place, with
// its arguments as given (not interpreted by the shell), standard streams
// and signal dispositions unchanged. The watcher ignores SIGTERM, so the
// group, and with it its id, lasts until stop's SIGKILL: no signal can
// reach another group that reused the id.
const groupScript = `(trap '' TERM; read _ <&3; kill -9 0) </dev/null >/dev/null 2>&1 &
exec "$@" 3<&-`

// How stop ends a server: its stdin closed (the MCP goodbye), exitWait for
// it to exit, SIGTERM to the group, termWait for the group to end, then
// SIGKILL.
const (
	exitWait = time.Second
	termWait = 2 * time.Second
)

// process is a started stdio server: the pipes to it and its process group.
type process struct {
	cmd      *exec.Cmd
	stdin    *os.File // the write end of the server's standard input
	stdout   *os.File // the read end of its standard output
	lifeline *os.File // the write end of the watcher's pipe
	exited   chan struct{}
	stopOnce sync.Once
}

// startProcess starts a server's command in a new process group, its
// standard error copied to stderr.
func startProcess(cfg Server, env []string, stderr io.Writer) (*process, error) {
	path, err := exec.LookPath(cfg.Command)
	if err != nil {
		return nil, err
	}
	var files []*os.File
	pipe := func() (r, w *os.File) {
		if err == nil {
			if r, w, err = os.Pipe(); err == nil {
				files = append(files, r, w)
			}
		}
		return r, w
	}
	inR, inW := pipe()
	outR, outW := pipe()
	errR, errW := pipe()
	lifeR, lifeW := pipe()
	if err != nil {
		for _, f := range files {
			f.Close()
		}
		return nil, err
	}
	cmd := exec.Command("/bin/sh", append([]string{"-c", groupScript, "reasonbench-mcp", path}, cfg.Args...)...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.ExtraFiles = []*os.File{lifeR}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	// The child's copies are what counts now.
	inR.Close()
	outW.Close()
	errW.Close()
	lifeR.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		lifeW.Close()
		return nil, err
	}
	go func() {
		_, _ = io.Copy(stderr, errR)
		errR.Close()
	}()
	p := &process{cmd: cmd, stdin: inW, stdout: outR, lifeline: lifeW, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop ends the server and every process of its group: stdin closed, then
// SIGTERM, then SIGKILL (see exitWait and termWait). It returns once the
// group is killed; later calls do nothing.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(exitWait):
		}
		group := p.cmd.Process.Pid
		_ = syscall.Kill(-group, syscall.SIGTERM)
		waitGroup(group, termWait)
		_ = syscall.Kill(-group, syscall.SIGKILL)
		select {
		case <-p.exited:
		default:
			// The server left its group (setsid): it is still our child.
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		p.lifeline.Close()
		p.stdout.Close()
	})
}
