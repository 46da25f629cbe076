//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// cgroups makes one memory cgroup per sandbox, beside bench's own: the
// one bound that counts a program's tmpfs, /dev/shm and memfd pages with
// its processes' memory (an rlimit counts only a process's address
// space). A cgroup is named for bench's pid and start time and the
// sandbox's number, reasonbench-<pid>-<start>-<n>, so that the cgroups a
// killed bench left are told from a running bench's and swept.
type cgroups struct {
	dir    string // where the sandboxes' cgroups are made: bench's own memory cgroup
	v2     bool
	prefix string // reasonbench-<pid>-<start>-
}

// cgroupSeq numbers the process's sandboxes: one counter for every
// runner (NewBwrap) of the process, whose cgroups share the prefix, so
// that two runners at once never pick the same name (issue 34).
var cgroupSeq atomic.Int64

// cgroup is one sandbox's.
type cgroup struct {
	dir string
	v2  bool
}

const cgroupPrefix = "reasonbench-"

// newCgroups finds a memory cgroup this process may make cgroups in (as
// root, or where one was delegated to the user) and sweeps what a killed
// bench left there. Nil when there is none: the caller falls back.
func newCgroups() *cgroups {
	self, ok := stat(os.Getpid())
	if !ok {
		return nil
	}
	for _, c := range memoryCgroupDirs() {
		c.prefix = fmt.Sprintf("%s%d-%s-", cgroupPrefix, os.Getpid(), self.start)
		sweepCgroups(c.dir)
		// A trial cgroup: the directory can be made, has the memory
		// controller's files, and takes a limit.
		g, err := c.create(64 << 20)
		if err != nil {
			continue
		}
		g.remove()
		return c
	}
	return nil
}

// memoryCgroupDirs lists where sandbox cgroups may go: this process's own
// memory cgroup, then the hierarchy's root (on the unified hierarchy a
// cgroup holding processes cannot pass the memory controller on to
// children, the root can), the unified (v2) hierarchy's first.
func memoryCgroupDirs() []*cgroups {
	paths := map[string]string{} // controller list ("" for v2) -> path
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.SplitN(l, ":", 3)
			if len(f) == 3 {
				paths[f[1]] = f[2]
			}
		}
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	var v1, v2 []*cgroups
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, fs := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(fs) < 3 {
			continue
		}
		mnt := fields[4]
		switch fs[0] {
		case "cgroup2":
			if p, ok := paths[""]; ok {
				v2 = append(v2, &cgroups{dir: filepath.Join(mnt, p), v2: true})
				if p != "/" {
					v2 = append(v2, &cgroups{dir: mnt, v2: true})
				}
			}
		case "cgroup":
			if !hasOption(fs[2], "memory") {
				continue
			}
			for ctl, p := range paths {
				if hasOption(ctl, "memory") {
					v1 = append(v1, &cgroups{dir: filepath.Join(mnt, p)})
					if p != "/" {
						v1 = append(v1, &cgroups{dir: mnt})
					}
				}
			}
		}
	}
	return append(v2, v1...)
}

func hasOption(list, opt string) bool {
	for _, o := range strings.Split(list, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

// create makes a sandbox's cgroup with its memory limit, swap included
// (tmpfs pages could otherwise leave for swap).
func (c *cgroups) create(limit int64) (*cgroup, error) {
	g := &cgroup{dir: filepath.Join(c.dir, c.prefix+strconv.FormatInt(cgroupSeq.Add(1), 10)), v2: c.v2}
	if err := os.Mkdir(g.dir, 0o755); err != nil {
		return nil, fmt.Errorf("sandbox: memory cgroup: %w", err)
	}
	lim := strconv.FormatInt(limit, 10)
	// The swap files exist only where swap is accounted.
	swap, swapVal := "memory.memsw.limit_in_bytes", lim
	err := write(g.dir, "memory.limit_in_bytes", lim)
	if c.v2 {
		swap, swapVal = "memory.swap.max", "0"
		err = write(g.dir, "memory.max", lim)
	}
	if _, serr := os.Stat(filepath.Join(g.dir, swap)); err == nil && serr == nil {
		err = write(g.dir, swap, swapVal)
	}
	if err != nil {
		g.remove()
		return nil, err
	}
	return g, nil
}

func write(dir, file, val string) error {
	if err := os.WriteFile(filepath.Join(dir, file), []byte(val), 0); err != nil {
		return fmt.Errorf("sandbox: memory cgroup: %w", err)
	}
	return nil
}

// add moves a process into the cgroup; what it forks after stays there.
func (g *cgroup) add(pid int) error { return write(g.dir, "cgroup.procs", strconv.Itoa(pid)) }

// oomKilled reports whether the kernel killed a process of the cgroup
// for its memory limit.
func (g *cgroup) oomKilled() bool {
	file := "memory.oom_control"
	if g.v2 {
		file = "memory.events"
	}
	b, err := os.ReadFile(filepath.Join(g.dir, file))
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, " "); ok && k == "oom_kill" {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n > 0
		}
	}
	return false
}

// remove deletes the cgroup once its last process has left it (the
// kernel refuses before, EBUSY).
func (g *cgroup) remove() error {
	var err error
	for wait := time.Millisecond; wait < time.Second; wait *= 2 {
		if err = os.Remove(g.dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		time.Sleep(wait)
	}
	return fmt.Errorf("sandbox: memory cgroup: %w", err)
}

// sweepCgroups removes the sandbox cgroups under dir whose bench process
// is gone (a pid no longer running, or running a later process): a
// SIGKILLed bench leaves them. Those of a running bench are kept, and a
// cgroup that still holds a process cannot be removed.
func sweepCgroups(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, start, ok := cgroupOwner(e.Name())
		if !e.IsDir() || !ok {
			continue
		}
		if st, alive := stat(pid); alive && st.start == start {
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}

// cgroupOwner parses reasonbench-<pid>-<start>-<n>.
func cgroupOwner(name string) (pid int, start string, ok bool) {
	rest, ok := strings.CutPrefix(name, cgroupPrefix)
	if !ok {
		return 0, "", false
	}
	f := strings.Split(rest, "-")
	if len(f) != 3 {
		return 0, "", false
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return 0, "", false
	}
	if _, err := strconv.ParseUint(f[1], 10, 64); err != nil {
		return 0, "", false
	}
	return pid, f[1], true
}
