package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

func statusErr(code int, hdr ...string) error {
	res := &http.Response{StatusCode: code, Header: http.Header{}}
	for i := 0; i+1 < len(hdr); i += 2 {
		res.Header.Set(hdr[i], hdr[i+1])
	}
	return fmt.Errorf("wrapped: %w", &openai.Error{StatusCode: code, Response: res})
}

// scripted answers each call with the next error of a script (nil: success).
func scripted(errs ...error) Sampler {
	var mu sync.Mutex
	return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
		mu.Lock()
		defer mu.Unlock()
		if len(errs) == 0 {
			return Response{Choices: []Choice{{Content: "ok"}}}, nil
		}
		err := errs[0]
		errs = errs[1:]
		return Response{}, err
	})
}

func TestAdaptiveIncreaseDecrease(t *testing.T) {
	cases := []struct {
		name      string
		opts      AdaptiveOptions
		script    []error
		calls     int
		wantLimit int
	}{
		{"a window of successes adds one", AdaptiveOptions{Start: 4}, nil, 4, 5},
		{"two windows add two", AdaptiveOptions{Start: 4}, nil, 4 + 5, 6},
		{"bounded above", AdaptiveOptions{Start: 4, Max: 5}, nil, 50, 5},
		{"429 halves", AdaptiveOptions{Start: 8}, []error{statusErr(429)}, 1, 4},
		{"503 halves", AdaptiveOptions{Start: 8}, []error{statusErr(503)}, 1, 4},
		{"sequential 429s halve each time", AdaptiveOptions{Start: 8}, []error{statusErr(429), statusErr(429)}, 2, 2},
		{"bounded below", AdaptiveOptions{Start: 2, Min: 1}, []error{statusErr(429), statusErr(429), statusErr(429)}, 3, 1},
		{"400 changes nothing", AdaptiveOptions{Start: 8}, []error{statusErr(400)}, 1, 8},
		{"other errors change nothing", AdaptiveOptions{Start: 8}, []error{errors.New("boom")}, 1, 8},
		{"regrows after a cut", AdaptiveOptions{Start: 8}, []error{statusErr(429)}, 1 + 4, 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAdaptive(tc.opts)
			s := a.Middleware()(scripted(tc.script...))
			for range tc.calls {
				_, _ = s.Sample(context.Background(), Request{})
			}
			if got := a.Limit(); got != tc.wantLimit {
				t.Errorf("limit after %d calls = %d, want %d", tc.calls, got, tc.wantLimit)
			}
		})
	}
}

// Failures of calls started together cut the limit once, not once each.
func TestAdaptiveOneCutPerWindow(t *testing.T) {
	a := NewAdaptive(AdaptiveOptions{Start: 8})
	started := make(chan struct{})
	release := make(chan struct{})
	var inflight, peak atomic.Int32
	backend := SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
		if n := inflight.Add(1); n > peak.Load() {
			peak.Store(n)
		}
		started <- struct{}{}
		<-release
		inflight.Add(-1)
		return Response{}, statusErr(429)
	})
	s := a.Middleware()(backend)
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() { _, _ = s.Sample(context.Background(), Request{}) })
	}
	for range 6 {
		<-started
	}
	close(release)
	wg.Wait()
	if got := a.Limit(); got != 4 {
		t.Errorf("limit = %d after six concurrent 429s, want one halving to 4", got)
	}
	if got := a.Decreases(); got != 1 {
		t.Errorf("decreases = %d, want 1", got)
	}
}

// Calls beyond the limit wait for a slot; the limit is never exceeded.
func TestAdaptiveBoundsInFlight(t *testing.T) {
	a := NewAdaptive(AdaptiveOptions{Start: 2, Max: 2})
	started := make(chan struct{}, 10)
	release := make(chan struct{})
	var inflight, peak atomic.Int32
	backend := SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
		n := inflight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		started <- struct{}{}
		<-release
		inflight.Add(-1)
		return Response{}, nil
	})
	s := a.Middleware()(backend)
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() { _, _ = s.Sample(context.Background(), Request{}) })
	}
	<-started
	<-started
	close(release)
	wg.Wait()
	if p := peak.Load(); p > 2 {
		t.Errorf("peak in flight %d > limit 2", p)
	}
}

// A Retry-After holds back the next call for that long (on a fake clock).
func TestAdaptiveRetryAfterPauses(t *testing.T) {
	now := time.Unix(1000, 0)
	var slept []time.Duration
	a := NewAdaptive(AdaptiveOptions{Start: 4,
		Now: func() time.Time { return now },
		Sleep: func(ctx context.Context, d time.Duration) error {
			slept = append(slept, d)
			now = now.Add(d)
			return nil
		},
	})
	s := a.Middleware()(scripted(statusErr(429, "Retry-After", "3")))
	_, _ = s.Sample(context.Background(), Request{})
	if _, err := s.Sample(context.Background(), Request{}); err != nil {
		t.Fatal(err)
	}
	if len(slept) != 1 || slept[0] != 3*time.Second {
		t.Errorf("slept %v, want [3s]", slept)
	}
	if a.Limit() != 2 {
		t.Errorf("limit %d, want 2", a.Limit())
	}
}

func TestAdaptiveWaiterCancelled(t *testing.T) {
	a := NewAdaptive(AdaptiveOptions{Start: 1, Max: 1})
	release := make(chan struct{})
	started := make(chan struct{})
	s := a.Middleware()(SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
		close(started)
		<-release
		return Response{}, nil
	}))
	done := make(chan struct{})
	go func() { _, _ = s.Sample(context.Background(), Request{}); close(done) }()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Sample(ctx, Request{}); !errors.Is(err, context.Canceled) {
		t.Errorf("waiting call: err %v, want context.Canceled", err)
	}
	close(release)
	<-done
}

// Through HTTP: a server over llm.Server that answers 429 (with
// Retry-After-Ms) above 4 requests in flight. With Retry outside the
// adaptive limit every request succeeds, and the limit came down.
func TestAdaptiveOverHTTP(t *testing.T) {
	const capacity = 4
	var inflight atomic.Int32
	var rejected atomic.Int64
	sim := NewServer(&fakeSampler{}, ServerOptions{Latency: 20 * time.Millisecond})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if inflight.Add(1) > capacity {
			inflight.Add(-1)
			rejected.Add(1)
			w.Header().Set("Retry-After-Ms", "5")
			writeError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "too many requests in flight")
			return
		}
		defer inflight.Add(-1)
		sim.ServeHTTP(w, r)
	}))
	defer ts.Close()
	c, err := NewOpenAI(OpenAIConfig{BaseURL: ts.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	a := NewAdaptive(AdaptiveOptions{Start: 16, Max: 32})
	s := Chain(c, Retry(RetryPolicy{MaxAttempts: 1000, Base: time.Millisecond, Max: 10 * time.Millisecond}), a.Middleware())
	var wg sync.WaitGroup
	var failed atomic.Int64
	for i := range 64 {
		wg.Go(func() {
			msgs := []Message{{Role: "user", Content: fmt.Sprint("q", i)}}
			if _, err := s.Sample(context.Background(), Request{Messages: msgs}); err != nil {
				failed.Add(1)
				t.Log(err)
			}
		})
	}
	wg.Wait()
	if failed.Load() != 0 {
		t.Fatalf("%d requests failed", failed.Load())
	}
	if rejected.Load() == 0 || a.Decreases() == 0 {
		t.Errorf("server rejected %d, limiter cut %d times: want both > 0 (16 started at once against capacity 4)", rejected.Load(), a.Decreases())
	}
	if l := a.Limit(); l < 1 || l > 32 {
		t.Errorf("limit %d outside [1, 32]", l)
	}
}
