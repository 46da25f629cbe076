package llm

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/openai/openai-go/v3"
)

// AdaptiveOptions configures an Adaptive limit. Zero fields take defaults.
type AdaptiveOptions struct {
	Start, Min, Max int // initial limit (4) and its bounds (1..64)
	// MaxPause caps a server's Retry-After (30s).
	MaxPause time.Duration
	// Now and Sleep stand in for the clock in tests; nil: real time.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Adaptive bounds the calls in flight like Limit, with a limit that adapts
// to the server (additive increase, multiplicative decrease, as TCP does):
// after a full window of successes (as many as the limit) the limit grows
// by one; a 429 or 503 halves it, once per window — failures of calls
// started before the last decrease do not halve it again — and a
// Retry-After holds back new calls until that time. It belongs inside
// Retry, so that every attempt is counted.
type Adaptive struct {
	o          AdaptiveOptions
	mu         sync.Mutex
	limit      int
	inflight   int
	successes  int
	gen        int // increases with every decrease
	pauseUntil time.Time
	waiters    []chan struct{}
	decreases  int
}

// NewAdaptive returns an adaptive limit.
func NewAdaptive(o AdaptiveOptions) *Adaptive {
	if o.Max < 1 {
		o.Max = 64
	}
	if o.Min < 1 {
		o.Min = 1
	}
	o.Min = min(o.Min, o.Max)
	if o.Start < 1 {
		o.Start = 4
	}
	o.Start = min(max(o.Start, o.Min), o.Max)
	if o.MaxPause <= 0 {
		o.MaxPause = DefaultRetryMax
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = sleepCtx
	}
	return &Adaptive{o: o, limit: o.Start}
}

// Limit returns the current limit; 0 for a nil Adaptive.
func (a *Adaptive) Limit() int {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.limit
}

// Decreases returns how often the limit was cut.
func (a *Adaptive) Decreases() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.decreases
}

// Middleware returns the limiting middleware; a nil Adaptive limits nothing.
func (a *Adaptive) Middleware() Middleware {
	return func(next Sampler) Sampler {
		if a == nil {
			return next
		}
		return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
			gen, err := a.acquire(ctx)
			if err != nil {
				return Response{}, err
			}
			resp, err := next.Sample(ctx, req)
			a.release(gen, err)
			return resp, err
		})
	}
}

func (a *Adaptive) acquire(ctx context.Context) (int, error) {
	for {
		a.mu.Lock()
		if wait := a.pauseUntil.Sub(a.o.Now()); wait > 0 {
			a.mu.Unlock()
			if err := a.o.Sleep(ctx, wait); err != nil {
				return 0, err
			}
			continue
		}
		if a.inflight < a.limit {
			a.inflight++
			gen := a.gen
			a.mu.Unlock()
			return gen, nil
		}
		ch := make(chan struct{})
		a.waiters = append(a.waiters, ch)
		a.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			a.mu.Lock()
			if i := slices.Index(a.waiters, ch); i >= 0 {
				a.waiters = slices.Delete(a.waiters, i, i+1)
			} else {
				a.wakeLocked() // we were woken: pass the turn on
			}
			a.mu.Unlock()
			return 0, ctx.Err()
		}
	}
}

func (a *Adaptive) release(gen int, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inflight--
	switch {
	case err == nil:
		a.successes++
		if a.successes >= a.limit && a.limit < a.o.Max {
			a.limit++
			a.successes = 0
		}
	case overloaded(err):
		if gen == a.gen {
			a.limit = max(a.o.Min, a.limit/2)
			a.gen++
			a.successes = 0
			a.decreases++
		}
		if d, ok := retryAfter(err); ok {
			if until := a.o.Now().Add(min(d, a.o.MaxPause)); until.After(a.pauseUntil) {
				a.pauseUntil = until
			}
		}
	}
	a.wakeLocked()
}

// wakeLocked lets waiters retry, as many as there are free slots.
func (a *Adaptive) wakeLocked() {
	for free := a.limit - a.inflight; free > 0 && len(a.waiters) > 0; free-- {
		close(a.waiters[0])
		a.waiters = a.waiters[1:]
	}
}

// overloaded reports whether the server asked the client to slow down:
// 429, 503, or any answer carrying Retry-After.
func overloaded(err error) bool {
	var ae *openai.Error
	if !errors.As(err, &ae) {
		return false
	}
	if ae.StatusCode == http.StatusTooManyRequests || ae.StatusCode == http.StatusServiceUnavailable {
		return true
	}
	_, ok := retryAfter(err)
	return ok
}
