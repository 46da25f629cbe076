package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
)

// Replica is one endpoint serving the model.
type Replica struct {
	Name    string // for records: the base URL without credentials
	Sampler Sampler
}

// ReplicaOptions say when a failing replica is set aside.
type ReplicaOptions struct {
	// Failures in a row that set a replica aside; 0 → 3. A refused
	// connection sets it aside at once: nothing listens there.
	Failures int
	// Cooldown is how long a replica first stays aside; it doubles each
	// time the replica fails again after coming back, up to MaxCooldown.
	// 0 → 1s and 30s.
	Cooldown, MaxCooldown time.Duration
	// Now is the clock; nil → time.Now.
	Now func() time.Time
}

// ReplicaStat is what one replica did.
type ReplicaStat struct {
	Name   string `json:"url"`
	Served int64  `json:"served"`           // calls it answered
	Failed int64  `json:"failed,omitempty"` // attempts that failed on it (retried elsewhere)
	Aside  bool   `json:"-"`                // set aside now
}

// Replicas spreads calls over several replicas of one model: each call goes
// to the replica with the fewest calls in flight (ties: the one that served
// fewest), and a replica that refuses connections or fails several times in
// a row is set aside for a while, then tried again with one call at a time
// until one succeeds (a replica that hangs would otherwise take a share of
// every call in flight each time it comes back); one that fails that trial
// goes aside again at once. The request is passed on
// unchanged, seed included, so the answer does not depend on the replica
// that gives it. It sits inside Retry: a failed attempt returns its error,
// and Retry's next attempt goes to another replica.
type Replicas struct {
	opts ReplicaOptions
	mu   sync.Mutex
	reps []*replicaState
}

type replicaState struct {
	Replica
	inflight       int
	served, failed int64
	streak         int // failures in a row
	asideUntil     time.Time
	cooldown       time.Duration
	trial          bool // back from aside, no success since: one call at a time
}

// NewReplicas spreads calls over reps (at least one).
func NewReplicas(reps []Replica, o ReplicaOptions) *Replicas {
	if o.Failures <= 0 {
		o.Failures = 3
	}
	if o.Cooldown <= 0 {
		o.Cooldown = time.Second
	}
	if o.MaxCooldown < o.Cooldown {
		o.MaxCooldown = max(30*time.Second, o.Cooldown)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	r := &Replicas{opts: o}
	for _, rep := range reps {
		r.reps = append(r.reps, &replicaState{Replica: rep, cooldown: o.Cooldown})
	}
	return r
}

// Sample sends the request to one replica.
func (r *Replicas) Sample(ctx context.Context, req Request) (Response, error) {
	rep := r.pick()
	resp, err := rep.Sampler.Sample(ctx, req)
	r.done(ctx, rep, err)
	if err != nil {
		return resp, fmt.Errorf("replica %s: %w", rep.Name, err)
	}
	return resp, nil
}

// pick takes the replica with the fewest calls in flight among those not
// set aside; when all are, the one whose time aside ends first.
func (r *Replicas) pick() *replicaState {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.opts.Now()
	var best *replicaState
	for _, rep := range r.reps {
		if rep.asideUntil.After(now) || (rep.trial && rep.inflight > 0) {
			continue
		}
		if best == nil || rep.inflight < best.inflight ||
			(rep.inflight == best.inflight && rep.served+rep.failed < best.served+best.failed) {
			best = rep
		}
	}
	if best == nil {
		for _, rep := range r.reps {
			if best == nil || rep.asideUntil.Before(best.asideUntil) {
				best = rep
			}
		}
	}
	best.inflight++
	return best
}

// done counts a call's outcome against its replica.
func (r *Replicas) done(ctx context.Context, rep *replicaState, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep.inflight--
	switch {
	case err == nil:
		rep.served++
		rep.streak, rep.cooldown, rep.trial = 0, r.opts.Cooldown, false
	case ctx.Err() != nil || !replicaFault(err):
		// The caller gave up, or the request itself is at fault (a 400,
		// a refused parameter): not the replica's doing.
	default:
		rep.failed++
		rep.streak++
		if rep.streak >= r.opts.Failures || rep.trial || errors.Is(err, syscall.ECONNREFUSED) {
			rep.asideUntil = r.opts.Now().Add(rep.cooldown)
			rep.cooldown = min(2*rep.cooldown, r.opts.MaxCooldown)
			rep.streak, rep.trial = 0, true
		}
	}
}

// replicaFault reports whether an error says the replica is unwell: what
// Retry would retry, except a 429, which says it is busy (the adaptive
// limit handles that).
func replicaFault(err error) bool {
	var ae *openai.Error
	if errors.As(err, &ae) && ae.StatusCode == http.StatusTooManyRequests {
		return false
	}
	return Retryable(err)
}

// Stats returns what each replica did so far, in the order given; nil for
// a nil Replicas.
func (r *Replicas) Stats() []ReplicaStat {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.opts.Now()
	out := make([]ReplicaStat, len(r.reps))
	for i, rep := range r.reps {
		out[i] = ReplicaStat{Name: rep.Name, Served: rep.served, Failed: rep.failed, Aside: rep.asideUntil.After(now)}
	}
	return out
}
