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

// cgroups makes cgroups for each sandbox beside bench's own, of two
// controllers: memory, the one bound that counts a program's tmpfs,
// /dev/shm and memfd pages with its processes' memory (an rlimit counts
// only a process's address space), and pids, which counts every process
// and thread of the sandbox, its supervisor's included. A cgroup is named
// for bench's pid and start time and the sandbox's number,
// reasonbench-<pid>-<start>-<n>, so that the cgroups a killed bench left
// are told from a running bench's and swept.
type cgroups struct {
	mem    *hierarchy // nil: no memory cgroup can be had here
	pids   *hierarchy // nil: no pids cgroup; on the unified hierarchy, mem's own when it has both
	prefix string     // reasonbench-<pid>-<start>-
}

// hierarchy is where one controller's sandbox cgroups are made: bench's
// own cgroup of that controller, or the hierarchy's root.
type hierarchy struct {
	dir string
	v2  bool
}

// cgroupSeq numbers the process's sandboxes: one counter for every
// runner (NewBwrap) of the process, whose cgroups share the prefix, so
// that two runners at once never pick the same name (issue 34).
var cgroupSeq atomic.Int64

// cgroup is one sandbox's: its directory of each controller, "" for
// none, the same directory for both on the unified hierarchy.
type cgroup struct {
	mem, pids string
	v2        bool // mem is on the unified hierarchy
}

const cgroupPrefix = "reasonbench-"

// newCgroups finds where this process may make memory and pids cgroups
// (as root, or where a cgroup was delegated to the user) and sweeps what a
// killed bench left there. Nil when neither can be had: the caller falls
// back to rlimits.
func newCgroups() *cgroups {
	self, ok := stat(os.Getpid())
	if !ok {
		return nil
	}
	c := &cgroups{prefix: fmt.Sprintf("%s%d-%s-", cgroupPrefix, os.Getpid(), self.start)}
	for _, h := range cgroupDirs("memory") {
		sweepCgroups(h.dir)
		if c.trial(h, "memory") {
			c.mem = &h
			break
		}
	}
	for _, h := range cgroupDirs("pids") {
		if c.mem != nil && c.mem.v2 && h.v2 && h.dir != c.mem.dir {
			continue // a process is in one cgroup of the unified hierarchy: the memory one's
		}
		sweepCgroups(h.dir)
		if c.trial(h, "pids") {
			c.pids = &h
			break
		}
	}
	if c.mem == nil && c.pids == nil {
		return nil
	}
	return c
}

// boundsMemory reports whether sandboxes get a memory cgroup.
func (c *cgroups) boundsMemory() bool { return c != nil && c.mem != nil }

// trial makes and removes a cgroup of h that takes ctl's limit: the
// directory can be made and has the controller's files.
func (c *cgroups) trial(h hierarchy, ctl string) bool {
	dir := filepath.Join(h.dir, c.prefix+strconv.FormatInt(cgroupSeq.Add(1), 10))
	if os.Mkdir(dir, 0o755) != nil {
		return false
	}
	defer removeDir(dir)
	if ctl == "memory" {
		return setMemory(dir, h.v2, 64<<20) == nil
	}
	return write(dir, "pids.max", "64") == nil
}

// cgroupDirs lists where sandbox cgroups of controller ctl may go: this
// process's own cgroup, then the hierarchy's root (on the unified
// hierarchy a cgroup holding processes cannot pass a controller on to
// children, the root can), the unified (v2) hierarchy's first.
func cgroupDirs(ctl string) []hierarchy {
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
	var v1, v2 []hierarchy
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
				v2 = append(v2, hierarchy{dir: filepath.Join(mnt, p), v2: true})
				if p != "/" {
					v2 = append(v2, hierarchy{dir: mnt, v2: true})
				}
			}
		case "cgroup":
			if !hasOption(fs[2], ctl) {
				continue
			}
			for ctls, p := range paths {
				if hasOption(ctls, ctl) {
					v1 = append(v1, hierarchy{dir: filepath.Join(mnt, p)})
					if p != "/" {
						v1 = append(v1, hierarchy{dir: mnt})
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

// create makes a sandbox's cgroups: memory limited to memory, swap
// included (tmpfs pages could otherwise leave for swap), and pids to
// procs processes and threads.
func (c *cgroups) create(memory int64, procs int) (*cgroup, error) {
	name := c.prefix + strconv.FormatInt(cgroupSeq.Add(1), 10)
	g := &cgroup{}
	if c.mem != nil {
		dir := filepath.Join(c.mem.dir, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("sandbox: memory cgroup: %w", err)
		}
		g.mem, g.v2 = dir, c.mem.v2
		if err := setMemory(dir, g.v2, memory); err != nil {
			g.remove()
			return nil, err
		}
	}
	if c.pids != nil {
		dir := filepath.Join(c.pids.dir, name)
		if dir != g.mem {
			if err := os.Mkdir(dir, 0o755); err != nil {
				g.remove()
				return nil, fmt.Errorf("sandbox: pids cgroup: %w", err)
			}
		}
		g.pids = dir
		if err := write(dir, "pids.max", strconv.Itoa(procs)); err != nil {
			g.remove()
			return nil, err
		}
	}
	return g, nil
}

// setMemory limits the cgroup dir to limit bytes of memory and no swap.
func setMemory(dir string, v2 bool, limit int64) error {
	lim := strconv.FormatInt(limit, 10)
	// The swap files exist only where swap is accounted.
	swap, swapVal := "memory.memsw.limit_in_bytes", lim
	err := write(dir, "memory.limit_in_bytes", lim)
	if v2 {
		swap, swapVal = "memory.swap.max", "0"
		err = write(dir, "memory.max", lim)
	}
	if _, serr := os.Stat(filepath.Join(dir, swap)); err == nil && serr == nil {
		err = write(dir, swap, swapVal)
	}
	return err
}

func write(dir, file, val string) error {
	if err := os.WriteFile(filepath.Join(dir, file), []byte(val), 0); err != nil {
		return fmt.Errorf("sandbox: cgroup: %w", err)
	}
	return nil
}

// dirs are the sandbox's cgroup directories, each once.
func (g *cgroup) dirs() []string {
	var ds []string
	for _, d := range []string{g.mem, g.pids} {
		if d != "" && (len(ds) == 0 || ds[0] != d) {
			ds = append(ds, d)
		}
	}
	return ds
}

// add moves a process into the cgroups; what it forks after stays there.
func (g *cgroup) add(pid int) error {
	for _, d := range g.dirs() {
		if err := write(d, "cgroup.procs", strconv.Itoa(pid)); err != nil {
			return err
		}
	}
	return nil
}

// oomKilled reports whether the kernel killed a process of the cgroup
// for its memory limit.
func (g *cgroup) oomKilled() bool {
	if g.mem == "" {
		return false
	}
	file := "memory.oom_control"
	if g.v2 {
		file = "memory.events"
	}
	b, err := os.ReadFile(filepath.Join(g.mem, file))
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

// remove deletes the cgroups once their last process has left them (the
// kernel refuses before, EBUSY).
func (g *cgroup) remove() error {
	var first error
	for _, d := range g.dirs() {
		if err := removeDir(d); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func removeDir(dir string) error {
	var err error
	for wait := time.Millisecond; wait < time.Second; wait *= 2 {
		if err = os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		time.Sleep(wait)
	}
	return fmt.Errorf("sandbox: cgroup: %w", err)
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
