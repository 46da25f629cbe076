// One run, one writer: the lease a process holds on the run it works on.

package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/reasonbench/reasonbench/store"
)

// Lease timing: a holder renews its lease every beat; a lease whose last
// renewal is older than stale belongs to a process that is gone (killed,
// or on a machine that died), and another may take the run over. On this
// machine a dead holder is seen at once, by its pid.
const (
	defaultLeaseBeat  = 5 * time.Second
	defaultLeaseStale = 30 * time.Second
)

// RunHeldError refuses to work on a run another live process holds.
type RunHeldError struct {
	RunID  int64
	Holder store.Holder
	Age    time.Duration // since the holder's last heartbeat
	Stale  time.Duration
}

func (e RunHeldError) Error() string {
	return fmt.Sprintf("run %d is being worked on by another process (pid %d on %s, alive %s ago): wait for it to end; if that process is gone, take the run over with --force (or without it once its heartbeat is %s old)",
		e.RunID, e.Holder.PID, e.Holder.Host, e.Age.Round(time.Second), e.Stale)
}

// lease is this process's hold on one run.
type lease struct {
	runID int64
	token string
}

func (e *Engine) leaseBeat() time.Duration {
	if e.LeaseBeat > 0 {
		return e.LeaseBeat
	}
	return defaultLeaseBeat
}

func (e *Engine) leaseStale() time.Duration {
	if e.LeaseStale > 0 {
		return e.LeaseStale
	}
	return defaultLeaseStale
}

// holder is this process as a lease holder, with a fresh token.
func (e *Engine) holder() store.Holder {
	h := e.identity
	if h.Host == "" {
		h = selfHolder()
	}
	var b [8]byte
	rand.Read(b[:])
	h.Token = hex.EncodeToString(b[:])
	return h
}

// takeLease makes this process the holder of run id, refusing a run a live
// process holds (RunHeldError) unless e.Force.
func (e *Engine) takeLease(ctx context.Context, runID int64) (lease, error) {
	me := e.holder()
	err := e.Store.TakeLease(ctx, runID, me, func(cur store.Lease) error {
		if e.Force || holderGone(cur.Holder, me) {
			return nil
		}
		age := time.Since(cur.Heartbeat)
		if age > e.leaseStale() {
			return nil
		}
		return RunHeldError{RunID: runID, Holder: cur.Holder, Age: max(age, 0), Stale: e.leaseStale()}
	})
	if err != nil {
		return lease{}, err
	}
	return lease{runID: runID, token: me.Token}, nil
}

// heartbeat renews l until ctx ends. When another process took the run
// over, it cancels the run with store.ErrLeaseLost as the cause: this
// process must not write to it any more.
func (e *Engine) heartbeat(ctx context.Context, l lease, cancel context.CancelCauseFunc) {
	t := time.NewTicker(e.leaseBeat())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := e.Store.RenewLease(ctx, l.runID, l.token); errors.Is(err, store.ErrLeaseLost) {
				cancel(err)
				return
			}
			// Any other failure (a busy database) is retried at the next beat.
		}
	}
}

// selfHolder describes this process.
func selfHolder() store.Holder {
	host, _ := os.Hostname()
	ns, _ := os.Readlink("/proc/self/ns/pid")
	start, _, _ := procStat(os.Getpid())
	return store.Holder{Host: host, PIDNS: ns, PID: os.Getpid(), Start: start}
}

// holderGone reports whether h is known to be dead: a process of this
// machine's pid namespace that no longer exists, is a zombie, or is another
// process that reused its pid. A holder elsewhere is judged by its
// heartbeat alone.
func holderGone(h, me store.Holder) bool {
	if h.Host != me.Host || h.PIDNS != me.PIDNS || h.PID <= 0 {
		return false
	}
	start, state, err := procStat(h.PID)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	return state == 'Z' || state == 'X' || (h.Start != 0 && start != h.Start)
}

// procStat reads a process's start time (clock ticks after boot) and state
// from /proc/PID/stat.
func procStat(pid int) (start uint64, state byte, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields that follow start after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); starttime is field 22.
	if len(f) < 20 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	start, err = strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return start, f[0][0], nil
}

// HeldRuns lists the runs of st that a live process holds now: a holder of
// this machine that still runs, or one elsewhere whose heartbeat is younger
// than stale (0: the default). bench merge refuses such inputs: their
// items are still being written.
func HeldRuns(ctx context.Context, st *store.Store, stale time.Duration) ([]RunHeldError, error) {
	if stale <= 0 {
		stale = defaultLeaseStale
	}
	ls, err := st.Leases(ctx)
	if err != nil {
		return nil, err
	}
	me := selfHolder()
	var out []RunHeldError
	for _, l := range ls {
		age := time.Since(l.Heartbeat)
		if holderGone(l.Holder, me) || age > stale {
			continue
		}
		out = append(out, RunHeldError{RunID: l.RunID, Holder: l.Holder, Age: max(age, 0), Stale: stale})
	}
	return out, nil
}

// ReleaseGone gives up the leases of runs whose holder is a process of
// this machine that has ended (bench db vacuum, which a cluster script runs
// on a killed shard's database before copying it to another machine, where
// the holder could only be judged by its heartbeat). It returns the runs.
func ReleaseGone(ctx context.Context, st *store.Store) ([]int64, error) {
	ls, err := st.Leases(ctx)
	if err != nil {
		return nil, err
	}
	me := selfHolder()
	var out []int64
	for _, l := range ls {
		if !holderGone(l.Holder, me) {
			continue
		}
		if err := st.DropLease(ctx, l.RunID, l.Holder.Token); err != nil {
			return out, err
		}
		out = append(out, l.RunID)
	}
	return out, nil
}
