package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeReplica answers with its name, or fails with err while it is set.
type fakeReplica struct {
	name  string
	mu    sync.Mutex
	err   error
	calls int
	gate  chan struct{} // when set, calls wait on it
}

func (f *fakeReplica) Sample(ctx context.Context, req Request) (Response, error) {
	f.mu.Lock()
	f.calls++
	err, gate := f.err, f.gate
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	if err != nil {
		return Response{}, err
	}
	return Response{Choices: []Choice{{Content: fmt.Sprintf("%s seed %d", f.name, req.Seed)}}}, nil
}

func (f *fakeReplica) set(err error) {
	f.mu.Lock()
	f.err = err
	f.mu.Unlock()
}

var refused = &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newTestReplicas(clk *clock, fs ...*fakeReplica) *Replicas {
	var reps []Replica
	for _, f := range fs {
		reps = append(reps, Replica{Name: f.name, Sampler: f})
	}
	return NewReplicas(reps, ReplicaOptions{Failures: 2, Cooldown: time.Second, MaxCooldown: 4 * time.Second, Now: clk.now})
}

// TestReplicasLeastInFlight checks that calls go to the replica with the
// fewest calls in flight, and spread evenly when calls do not overlap.
func TestReplicasLeastInFlight(t *testing.T) {
	a, b, c := &fakeReplica{name: "a"}, &fakeReplica{name: "b"}, &fakeReplica{name: "c"}
	clk := &clock{time.Unix(0, 0)}
	r := newTestReplicas(clk, a, b, c)
	// Six overlapping calls: each goes to a replica with the fewest in
	// flight, so each replica holds two.
	gate := make(chan struct{})
	a.gate, b.gate, c.gate = gate, gate, gate
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() { defer wg.Done(); r.Sample(context.Background(), Request{}) }()
		waitFor(t, func() bool { return inflight(r) == i+1 })
	}
	r.mu.Lock()
	counts := []int{r.reps[0].inflight, r.reps[1].inflight, r.reps[2].inflight}
	r.mu.Unlock()
	if counts[0] != 2 || counts[1] != 2 || counts[2] != 2 {
		t.Errorf("six overlapping calls in flight per replica: %v; want two each", counts)
	}
	close(gate)
	wg.Wait()
	a.gate, b.gate, c.gate = nil, nil, nil
	for range 300 {
		if _, err := r.Sample(context.Background(), Request{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range r.Stats() {
		if s.Served != 102 || s.Failed != 0 {
			t.Errorf("replica %s served %d of 306 calls; want an even share, 102", s.Name, s.Served)
		}
	}
}

func inflight(r *Replicas) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, rep := range r.reps {
		n += rep.inflight
	}
	return n
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestReplicasSetAsideAndBack checks that a replica refusing connections
// is set aside at once, one failing otherwise after Failures in a row, that
// both are tried again after their cooldown (which doubles when they fail
// again), and that the request reaches the replica unchanged.
func TestReplicasSetAsideAndBack(t *testing.T) {
	a, b := &fakeReplica{name: "a"}, &fakeReplica{name: "b"}
	clk := &clock{time.Unix(0, 0)}
	r := newTestReplicas(clk, a, b)
	ctx := context.Background()
	a.set(refused)
	// The first call goes to a (ties go to the first), fails, and a is aside.
	if _, err := r.Sample(ctx, Request{Seed: 7}); !errors.Is(err, syscall.ECONNREFUSED) || !Retryable(err) {
		t.Fatalf("refused call: %v", err)
	}
	for i := range 5 {
		resp, err := r.Sample(ctx, Request{Seed: int64(i)})
		if err != nil || resp.Choices[0].Content != fmt.Sprintf("b seed %d", i) {
			t.Fatalf("call %d with a aside: %v %v", i, resp, err)
		}
	}
	if st := r.Stats(); !st[0].Aside || st[0].Failed != 1 || st[1].Served != 5 {
		t.Errorf("stats %+v", st)
	}
	// After the cooldown a is tried again; still refusing, it is set aside
	// for twice as long.
	clk.t = clk.t.Add(time.Second)
	if _, err := r.Sample(ctx, Request{}); err == nil {
		t.Fatal("a probe of a refusing replica succeeded")
	}
	clk.t = clk.t.Add(1500 * time.Millisecond)
	if resp, _ := r.Sample(ctx, Request{}); resp.Choices[0].Content[0] != 'b' {
		t.Errorf("a came back before its doubled cooldown")
	}
	// Back up: after the cooldown a serves again, and its cooldown resets.
	a.set(nil)
	clk.t = clk.t.Add(time.Second)
	if resp, err := r.Sample(ctx, Request{Seed: 3}); err != nil || resp.Choices[0].Content != "a seed 3" {
		t.Fatalf("a after its cooldown: %v %v", resp, err)
	}
	// A 500 sets a replica aside only after Failures (2) in a row.
	b.set(errors.Join(errors.New("overloaded"), context.DeadlineExceeded))
	a.set(nil)
	r.mu.Lock()
	r.reps[0].served, r.reps[1].served = 100, 0 // send the next calls to b
	r.mu.Unlock()
	r.Sample(ctx, Request{})
	if r.Stats()[1].Aside {
		t.Errorf("b set aside after one timeout")
	}
	r.Sample(ctx, Request{})
	if !r.Stats()[1].Aside {
		t.Errorf("b not set aside after two timeouts in a row")
	}
	// A request the server refuses (not retryable) says nothing of the
	// replica.
	clk.t = clk.t.Add(10 * time.Second)
	b.set(&ParamError{Param: "temperature", Err: errors.New("temperature: unsupported")})
	for range 5 {
		r.Sample(ctx, Request{})
	}
	if st := r.Stats(); st[1].Aside || st[1].Failed != 2 {
		t.Errorf("a refused parameter counted against the replica: %+v", st[1])
	}
}

// TestReplicasInsideRetry checks that behind Retry a call whose replica
// refuses connections is answered by another with the same answer.
func TestReplicasInsideRetry(t *testing.T) {
	a, b := &fakeReplica{name: "a"}, &fakeReplica{name: "b"}
	a.set(refused)
	r := NewReplicas([]Replica{{"a", a}, {"b", b}}, ReplicaOptions{})
	s := Chain(r, Retry(RetryPolicy{MaxAttempts: 3, Sleep: func(context.Context, time.Duration) error { return nil }}))
	resp, err := s.Sample(context.Background(), Request{Seed: 42})
	if err != nil || resp.Choices[0].Content != "b seed 42" {
		t.Fatalf("%v %v", resp, err)
	}
	if a.calls != 1 || b.calls != 1 {
		t.Errorf("a asked %d times, b %d; want once each", a.calls, b.calls)
	}
}

// TestReplicasTrialOneCallAtATime checks that a replica back from aside
// takes one call at a time until one succeeds (calls that overlap the
// trial go to the others), that failing the trial sets it aside again at
// once, for twice as long, and that after a success it takes its share.
func TestReplicasTrialOneCallAtATime(t *testing.T) {
	a, b := &fakeReplica{name: "a"}, &fakeReplica{name: "b"}
	clk := &clock{time.Unix(0, 0)}
	r := newTestReplicas(clk, a, b) // Failures 2, cooldown 1s
	ctx := context.Background()
	hang := errors.Join(errors.New("no answer"), context.DeadlineExceeded)
	a.set(hang)
	for range 2 { // b has served more each time: the calls go to a
		r.mu.Lock()
		r.reps[1].served = 10
		r.mu.Unlock()
		r.Sample(ctx, Request{})
	}
	if st := r.Stats(); !st[0].Aside || st[0].Failed != 2 {
		t.Fatalf("a after two timeouts: %+v", st[0])
	}
	clk.t = clk.t.Add(time.Second)
	overlap := func(n int) (onA, onB int) {
		gate := make(chan struct{})
		a.mu.Lock()
		a.gate = gate
		a.mu.Unlock()
		b.mu.Lock()
		b.gate = gate
		b.mu.Unlock()
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() { defer wg.Done(); r.Sample(ctx, Request{}) }()
			waitFor(t, func() bool { return inflight(r) == i+1 })
		}
		r.mu.Lock()
		onA, onB = r.reps[0].inflight, r.reps[1].inflight
		r.mu.Unlock()
		close(gate)
		wg.Wait()
		a.gate, b.gate = nil, nil
		return onA, onB
	}
	if onA, onB := overlap(6); onA != 1 || onB != 5 {
		t.Errorf("six overlapping calls with a on trial: %d on a, %d on b; want 1 and 5", onA, onB)
	}
	// The trial call timed out: a is aside again after one failure, for 2s.
	if st := r.Stats(); !st[0].Aside || st[0].Failed != 3 {
		t.Fatalf("a after failing its trial: %+v", st[0])
	}
	clk.t = clk.t.Add(1500 * time.Millisecond)
	if st := r.Stats(); !st[0].Aside {
		t.Errorf("a back before its doubled cooldown")
	}
	clk.t = clk.t.Add(time.Second)
	a.set(nil)
	if resp, err := r.Sample(ctx, Request{Seed: 5}); err != nil || resp.Choices[0].Content != "a seed 5" {
		t.Fatalf("a's trial after its cooldown: %v %v", resp, err)
	}
	if onA, onB := overlap(6); onA != 3 || onB != 3 {
		t.Errorf("six overlapping calls after a's trial succeeded: %d on a, %d on b; want 3 each", onA, onB)
	}
}
