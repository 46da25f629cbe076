package sandbox

import "sync"

// When bench runs as root, each sandbox starts bubblewrap as an
// unprivileged uid of its own, for three reasons:
//   - a sandbox's uid 65534 would otherwise be host uid 0: files it could
//     see would be root's, and root is exempt from RLIMIT_NPROC (a fork
//     bomb would meet no limit);
//   - RLIMIT_NPROC counts a uid's processes. Since Linux 5.14 the count is
//     kept per user namespace, and each sandbox has its own, but on older
//     kernels it is per host uid: sandboxes sharing a uid would share one
//     count, and one fork bomb would make its neighbours fail as procs;
//   - a uid per sandbox lets the host see what the sandbox left behind
//     (no process may keep it after Run returns; the tests check).
//
// The uids come from a range no account uses (2e9 and up, chosen by the
// process id so that two bench processes rarely meet) and are reused once
// a sandbox ends. Not as root, bubblewrap runs as the user, whose
// processes the sandbox cannot see (PID namespace) and whose files are
// outside its view; the per-namespace count of Linux >= 5.14 keeps each
// sandbox's NPROC its own.
const (
	uidBase  = 2_000_000_000
	uidSpan  = 1024 // uids per bench process before ranges overlap
	uidRange = 65536
)

type uidPool struct {
	mu   sync.Mutex
	base int
	free []int
	next int
}

func newUIDPool(pid int) *uidPool {
	return &uidPool{base: uidBase + (pid%uidRange)*uidSpan}
}

// get returns a uid no running sandbox of this pool has.
func (p *uidPool) get() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		u := p.free[n-1]
		p.free = p.free[:n-1]
		return u
	}
	u := p.base + p.next
	p.next++
	return u
}

func (p *uidPool) put(u int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = append(p.free, u)
}
