package llm

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// mapCache is a ResponseCache in memory (the store's is tested in store/).
type mapCache struct {
	mu   sync.Mutex
	m    map[string]json.RawMessage
	reqs map[string]json.RawMessage // the requests CachePut was given
}

func (c *mapCache) CacheGet(_ context.Context, key string) (json.RawMessage, time.Duration, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	raw, ok := c.m[key]
	return raw, time.Millisecond, ok, nil
}

func (c *mapCache) CachePut(_ context.Context, key string, req, resp json.RawMessage, _ time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[key] = resp
	if c.reqs == nil {
		c.reqs = map[string]json.RawMessage{}
	}
	c.reqs[key] = req
	return nil
}

// The cache hands the store the request and response exactly as Record
// encodes them, so that one stored copy serves the cache entry and the call.
func TestCachePutGetsWhatRecordRecords(t *testing.T) {
	mc := &mapCache{m: map[string]json.RawMessage{}}
	var recorded []CallRecord
	rec := recorderFunc(func(c CallRecord) { recorded = append(recorded, c) })
	model := SamplerFunc(func(_ context.Context, req Request) (Response, error) {
		return Response{Choices: []Choice{{Content: "4 + 5 = 9 (left: 6 9)"}}, Usage: Usage{PromptTokens: 3, Requests: 1}}, nil
	})
	s := Chain(model, Record(rec), Cache(mc, CacheReadWrite, "test"))
	req := Request{Messages: []Message{{Role: "user", Content: "Input: 4 5 6 <&>"}}, N: 2, Temperature: Temp(0.7), Seed: 3, Purpose: "propose"}
	for range 2 {
		if _, err := s.Sample(t.Context(), req); err != nil {
			t.Fatal(err)
		}
	}
	key := CacheKey("test", req)
	if len(recorded) != 2 || !recorded[1].CacheHit {
		t.Fatalf("recorded %+v", recorded)
	}
	for i, c := range recorded {
		if string(c.Request) != string(mc.reqs[key]) || string(c.Response) != string(mc.m[key]) {
			t.Errorf("call %d recorded\n%s\n%s\nthe cache was given\n%s\n%s", i, c.Request, c.Response, mc.reqs[key], mc.m[key])
		}
	}
}

type recorderFunc func(CallRecord)

func (f recorderFunc) RecordCall(_ context.Context, c CallRecord) error { f(c); return nil }

// gate answers after release is closed, counting calls per prompt; fail
// makes the first call of each prompt fail.
type gate struct {
	release chan struct{}
	calls   atomic.Int64
	fail    atomic.Bool
}

func (g *gate) Sample(ctx context.Context, req Request) (Response, error) {
	g.calls.Add(1)
	<-g.release
	if g.fail.CompareAndSwap(true, false) {
		return Response{}, errors.New("server said no")
	}
	return Response{Choices: []Choice{{Content: "answer to " + req.Messages[0].Content}}, Usage: Usage{PromptTokens: 3, CompletionTokens: 2}}, nil
}

func TestCacheSendsIdenticalConcurrentRequestsOnce(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mode      string
		fail      bool
		prompts   []string // one goroutine each
		wantCalls int64
		wantHits  int
		wantErrs  int
	}{
		{"identical", CacheReadWrite, false, []string{"a", "a", "a", "a", "a"}, 1, 4, 0},
		{"identical, read-only cache", CacheRead, false, []string{"a", "a", "a"}, 1, 2, 0},
		{"distinct", CacheReadWrite, false, []string{"a", "b", "c"}, 3, 0, 0},
		{"mixed", CacheReadWrite, false, []string{"a", "b", "a", "b"}, 2, 2, 0},
		// The first caller's failure is its own: the waiter asks again.
		{"first fails", CacheReadWrite, true, []string{"a", "a"}, 2, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &gate{release: make(chan struct{})}
			g.fail.Store(tc.fail)
			s := Cache(&mapCache{m: map[string]json.RawMessage{}}, tc.mode, "test")(g)
			type result struct {
				resp Response
				err  error
			}
			results := make(chan result, len(tc.prompts))
			for _, p := range tc.prompts {
				go func() {
					resp, err := s.Sample(t.Context(), Request{Messages: []Message{{Role: "user", Content: p}}, Seed: 1})
					results <- result{resp, err}
				}()
			}
			// Let every goroutine reach the cache before the model answers.
			deadline := time.Now().Add(5 * time.Second)
			for g.calls.Load() < tc.wantCalls-boolInt(tc.fail) && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond)
			close(g.release)
			hits, errs := 0, 0
			for range tc.prompts {
				r := <-results
				if r.err != nil {
					errs++
					continue
				}
				if r.resp.CacheHit {
					hits++
				}
				if len(r.resp.Choices) != 1 || r.resp.Choices[0].Content[:10] != "answer to " {
					t.Errorf("response %+v", r.resp)
				}
			}
			if got := g.calls.Load(); got != tc.wantCalls || hits != tc.wantHits || errs != tc.wantErrs {
				t.Errorf("%d model calls, %d hits, %d errors; want %d, %d, %d", got, hits, errs, tc.wantCalls, tc.wantHits, tc.wantErrs)
			}
		})
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
