//go:build linux

package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"time"
)

// proc is a host process known by its pid and start time, which tell it
// from a later process given the same pid.
type proc struct {
	pid   int
	start string
}

// sandboxInit reads bubblewrap's --info-fd, which names the host pid of
// the sandbox's pid 1. The zero proc when bwrap failed before writing it.
func sandboxInit(r io.Reader) proc {
	var info struct {
		ChildPid int `json:"child-pid"`
	}
	if err := json.NewDecoder(r).Decode(&info); err != nil || info.ChildPid <= 0 {
		return proc{}
	}
	st, ok := stat(info.ChildPid)
	if !ok {
		return proc{}
	}
	return proc{pid: info.ChildPid, start: st.start}
}

type procStat struct {
	state byte
	start string
}

// stat reads /proc/pid/stat's state and start time.
func stat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return procStat{}, false
	}
	return procStat{state: f[0][0], start: string(f[19])}, true
}

// alive reports whether p still runs: not gone, not a zombie, not a
// different process under its pid.
func (p proc) alive() bool {
	st, ok := stat(p.pid)
	return ok && st.start == p.start && st.state != 'Z' && st.state != 'X'
}

// gone waits until p has ended; a pid 1 ends after every process of its
// namespace. It kills p if it lingers.
func (p proc) gone() error {
	if p.pid == 0 {
		return nil
	}
	deadline := time.Now().Add(2 * time.Second)
	for wait := 100 * time.Microsecond; p.alive(); wait = min(2*wait, 10*time.Millisecond) {
		if time.Now().After(deadline) {
			if deadline.Before(time.Now().Add(-2 * time.Second)) {
				return fmt.Errorf("sandbox: the sandbox's pid 1 (host pid %d) does not exit", p.pid)
			}
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
		time.Sleep(wait)
	}
	return nil
}
