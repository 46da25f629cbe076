package bench

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/store"
)

// gate is a simulated model whose answers wait until the test opens it:
// a run held open is a live process working on its run.
type gate struct {
	model llm.Sampler
	open  chan struct{}
	calls atomic.Int64
}

func newGate(t *testing.T, cfg Config) *gate {
	t.Helper()
	model, err := NewSim(cfg.Sim)
	if err != nil {
		t.Fatal(err)
	}
	return &gate{model: model, open: make(chan struct{})}
}

func (g *gate) Sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	select {
	case <-g.open:
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
	g.calls.Add(1)
	return g.model.Sample(ctx, req)
}

// otherProcess opens the same database file as a second process would.
func otherProcess(t *testing.T, st *store.Store) *store.Store {
	t.Helper()
	o, err := store.Open(context.Background(), st.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

// startHeld starts cfg in a goroutine on a gated model and returns once
// the run exists: its process is alive and holds it.
func startHeld(t *testing.T, st *store.Store, cfg Config) (runID int64, g *gate, result <-chan error) {
	t.Helper()
	g = newGate(t, cfg)
	out := make(chan error, 1)
	eng := &Engine{Store: st, Backend: g, LeaseBeat: 20 * time.Millisecond}
	go func() {
		_, err := eng.Run(context.Background(), cfg)
		out <- err
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		runs, err := st.Runs(context.Background(), store.RunFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) > 0 {
			return runs[len(runs)-1].ID, g, out
		}
		if time.Now().After(deadline) {
			t.Fatal("the run did not start")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestResumeRefusesARunALiveProcessHolds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := tempStore(t)
	cfg := cotConfig(1, "900:910")
	id, g, result := startHeld(t, st, cfg)

	other := otherProcess(t, st)
	_, err := (&Engine{Store: other}).Resume(ctx, id, "")
	var held RunHeldError
	var ce ConfigError
	if !errors.As(err, &held) || !errors.As(err, &ce) || held.RunID != id || held.Holder.PID != os.Getpid() {
		t.Fatalf("resume of a live run: err = %v, want a RunHeldError (a usage error) naming run %d and this pid", err, id)
	}
	for _, want := range []string{"run ", "--force", "being worked on"} {
		if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("refusal %q: want one line saying %q", err, want)
		}
	}
	// run --continue of the same configuration is refused the same way.
	if _, err := (&Engine{Store: other}).RunExperiment(ctx, Experiment{Runs: []Config{cfg}}, Keys{}); !errors.As(err, &held) {
		t.Fatalf("--continue of a live run: err = %v, want RunHeldError", err)
	}

	close(g.open)
	if err := <-result; err != nil {
		t.Fatal(err)
	}
	sum, err := Summarize(ctx, st, id)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != store.StatusDone || sum.N != 10 || sum.Calls != 10 || g.calls.Load() != 10 {
		t.Errorf("after the refusals: %+v, %d model calls; want 10 items of one call each, done", sum, g.calls.Load())
	}
	if _, held, _ := st.LeaseOf(ctx, id); held {
		t.Error("a finished run keeps its lease")
	}
}

func TestTwoConcurrentResumesOneWorks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := tempStore(t)
	cfg := cotConfig(1, "900:930")
	cfg.Concurrency = 1
	cctx, cancel := context.WithCancel(ctx)
	eng := &Engine{Store: st, OnProgress: func(p Progress) {
		if p.Done == 5 {
			cancel()
		}
	}}
	sum, err := eng.Run(cctx, cfg)
	if !errors.Is(err, context.Canceled) || sum.Status != store.StatusInterrupted {
		t.Fatalf("interrupting the run: %+v, %v", sum, err)
	}
	id, kept := sum.RunID, sum.N

	// Two processes resume it at once; the models answer only once both
	// have tried, so neither can finish before the other asks.
	g := newGate(t, cfg)
	results := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := (&Engine{Store: otherProcess(t, st), Backend: g}).Resume(ctx, id, "")
			results <- err
		}()
	}
	first := <-results // the refusal: the other cannot finish before the gate opens
	close(g.open)
	errs := []error{first, <-results}
	var refused, worked int
	for _, err := range errs {
		var held RunHeldError
		switch {
		case err == nil:
			worked++
		case errors.As(err, &held):
			refused++
		default:
			t.Errorf("resume: %v", err)
		}
	}
	if refused != 1 || worked != 1 {
		t.Fatalf("two resumes at once: %d worked, %d refused (%v); want one each", worked, refused, errs)
	}
	got, err := Summarize(ctx, st, id)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(30 - kept); got.Status != store.StatusDone || got.N != 30 || got.Calls != 30 || g.calls.Load() != want {
		t.Errorf("after two resumes: %+v with %d model calls; want 30 items, 30 stored calls, %d calls made", got, g.calls.Load(), want)
	}
}

// setLease gives run id to holder h with its heartbeat age ago.
func setLease(t *testing.T, st *store.Store, id int64, h store.Holder, age time.Duration) {
	t.Helper()
	ctx := context.Background()
	if err := st.TakeLease(ctx, id, h, func(store.Lease) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := st.DB().ExecContext(ctx, `UPDATE leases SET heartbeat_ms = ? WHERE run_id = ?`, time.Now().Add(-age).UnixMilli(), id); err != nil {
		t.Fatal(err)
	}
}

func TestLeaseTakeOver(t *testing.T) {
	t.Parallel()
	me := selfHolder()
	// A process of this machine that has ended.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := me
	dead.PID = cmd.Process.Pid
	reused := me // this very pid, started at another time: the pid was reused
	reused.Start = me.Start + 1
	elsewhere := store.Holder{Host: me.Host + "-elsewhere", PID: os.Getpid(), Start: me.Start}
	cases := []struct {
		name   string
		holder store.Holder
		age    time.Duration
		force  bool
		taken  bool
	}{
		{"live process of this machine", me, 0, false, false},
		{"live process of this machine, old heartbeat", me, time.Hour, false, true},
		{"ended process of this machine", dead, 0, false, true},
		{"reused pid", reused, 0, false, true},
		{"another machine, fresh heartbeat", elsewhere, time.Second, false, false},
		{"another machine, stale heartbeat", elsewhere, 31 * time.Second, false, true},
		{"another machine, --force", elsewhere, 0, true, true},
		{"live process of this machine, --force", me, 0, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := tempStore(t)
			cctx, cancel := context.WithCancel(ctx)
			cfg := cotConfig(1, "900:903")
			cfg.Concurrency = 1
			sum, _ := (&Engine{Store: st, OnProgress: func(Progress) { cancel() }}).Run(cctx, cfg)
			if sum.RunID == 0 || sum.Status != store.StatusInterrupted {
				t.Fatalf("interrupting the run: %+v", sum)
			}
			h := tc.holder
			h.Token = "theirs"
			setLease(t, st, sum.RunID, h, tc.age)
			got, err := (&Engine{Store: st, Force: tc.force}).Resume(ctx, sum.RunID, "")
			var held RunHeldError
			switch {
			case tc.taken && err != nil:
				t.Fatalf("not taken over: %v", err)
			case tc.taken && got.Status != store.StatusDone:
				t.Fatalf("taken over but %+v", got)
			case !tc.taken && !errors.As(err, &held):
				t.Fatalf("taken over a live holder's run: %+v, %v", got, err)
			}
			l, ok, err := st.LeaseOf(ctx, sum.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if tc.taken == ok || (ok && l.Holder.Token != "theirs") {
				t.Errorf("lease after the resume: %+v (held %v)", l, ok)
			}
		})
	}
}

func TestForcedTakeOverStopsTheOldHolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := tempStore(t)
	cfg := cotConfig(1, "900:920")
	id, g, result := startHeld(t, st, cfg)
	// The holder is alive; a user who believes it gone forces the run.
	taker := &Engine{Store: otherProcess(t, st), Backend: g, Force: true}
	taken := make(chan error, 1)
	var sum Summary
	go func() {
		var err error
		sum, err = taker.Resume(ctx, id, "")
		taken <- err
	}()
	// The old holder learns at its next heartbeat that the run is not its
	// own any more, and stops without finishing it.
	if err := <-result; !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("the old holder after a forced take-over: %v, want ErrLeaseLost", err)
	}
	close(g.open)
	if err := <-taken; err != nil {
		t.Fatal(err)
	}
	if sum.Status != store.StatusDone || sum.N != 20 || sum.Calls != 20 {
		t.Errorf("the run after the take-over: %+v", sum)
	}
}
