package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/verify"
)

// inFlight serves the simulated model slowly and counts the requests it
// holds at once.
type inFlight struct {
	now, most atomic.Int64
	calls     atomic.Int64
}

func (f *inFlight) serve(t *testing.T, cfg Config) string {
	t.Helper()
	model, err := NewSim(cfg.Sim)
	if err != nil {
		t.Fatal(err)
	}
	h := WithRewardModel(llm.NewServer(model, llm.ServerOptions{}), model, verify.DefaultSep)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := f.now.Add(1)
		for {
			m := f.most.Load()
			if n <= m || f.most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		f.calls.Add(1)
		h.ServeHTTP(w, r)
		f.now.Add(-1)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestEveryRoleIsLimitedMeteredAndCosted builds every role of four
// configurations, each role's model on an endpoint of its own, and sends
// each role's chain more calls at once than the run's concurrency: every
// role holds to the limit, its calls are costed at its own price and
// counted by the run's budget. A role built without the limit, the meter or
// the cost fails here.
func TestEveryRoleIsLimitedMeteredAndCosted(t *testing.T) {
	t.Parallel()
	const limit = 2
	servers := map[string]*inFlight{}
	url := func(name string, cfg Config) string {
		f := &inFlight{}
		servers[name] = f
		return f.serve(t, cfg)
	}
	base := DefaultConfig()
	base.Concurrency = limit
	base.Prices = llm.Prices{"sim": {Prompt: 1, Completion: 2}, "judge-x": {Prompt: 3, Completion: 4}, "verifier-x": {Prompt: 5, Completion: 6}}

	judged, err := ApplyPreset(base, "tot-creative/io")
	if err != nil {
		t.Fatal(err)
	}
	judged.Range, judged.BaseURL = "0:2", url("model", base)+"/v1"
	judged.JudgeModel, judged.JudgeBaseURL = "judge-x", url("judge", base)+"/v1"

	verified := base
	verified.Task, verified.Strategy, verified.Range = "game24", "bon", "900:902"
	verified.Verify = VerifierConfig{Model: "verifier-x", BaseURL: url("verifier", base), Kind: verify.PRM}

	debate := base
	debate.Task, debate.Strategy, debate.Range = "game24", "debate", "900:902"
	debate.Params = map[string]any{"agents": 2, "rounds": 1, "models": "sim@a,sim@b"}
	debate.NamedEndpoints = []Endpoint{{Name: "a", URL: url("agent sim@a", base) + "/v1"}, {Name: "b", URL: url("agent sim@b", base) + "/v1"}}

	seen := map[string]bool{}
	for _, cfg := range []Config{judged, verified, debate} {
		p, err := load(cfg)
		if err != nil {
			t.Fatal(err)
		}
		budget := llm.NewBudget(0, 0)
		roles, err := p.buildRoles(nil, nil, budget)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range roles {
			srv := servers[r.name]
			if srv == nil || r.shares {
				continue // the run's model in process, or a role on the run's chain (tested as the run's)
			}
			seen[r.name] = true
			req := llm.Request{Messages: []llm.Message{{Role: "user", Content: "Input: 4 4 6 8"}}, MaxTokens: 20}
			if r.name == "verifier" {
				req = llm.Request{Messages: []llm.Message{{Role: "user", Content: "4 4 6 8"},
					{Role: "assistant", Content: "4 + 4 = 8 (left: 6 8 8)" + verify.DefaultSep}}, Reward: &llm.Reward{Kind: verify.PRM, Sep: verify.DefaultSep}}
			}
			before := budget.Spent()
			var wg sync.WaitGroup
			var mu sync.Mutex
			var cost float64
			for i := range 3 * limit {
				wg.Add(1)
				go func() {
					defer wg.Done()
					q := req
					q.Call = fmt.Sprintf("%s/%d", r.name, i)
					resp, err := r.chain.Sample(context.Background(), q)
					if err != nil {
						t.Errorf("%s: %v", r.name, err)
						return
					}
					mu.Lock()
					cost += resp.Usage.Cost
					mu.Unlock()
				}()
			}
			wg.Wait()
			price, _ := llm.DefaultPrices().With(cfg.Prices).Lookup(r.model)
			if srv.most.Load() > limit || srv.calls.Load() != 3*limit {
				t.Errorf("role %s: %d requests at once (limit %d), %d served", r.name, srv.most.Load(), limit, srv.calls.Load())
			}
			if cost <= 0 || price == (llm.Price{}) {
				t.Errorf("role %s: calls cost %v at price %+v; want its own price", r.name, cost, price)
			}
			if got := budget.Spent() - before; got < cost*0.999 || got > cost*1.001 {
				t.Errorf("role %s: the budget counted %v of its calls' %v", r.name, got, cost)
			}
		}
	}
	for name := range servers {
		if name != "model" && !seen[name] {
			t.Errorf("role %s was not built", name)
		}
	}
}

// Config.MaxResponseBytes (--max-response-bytes) reaches the client: a run
// whose endpoint answers with more fails its call as the server's error.
func TestMaxResponseBytesReachesTheClient(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 64<<10)
	srv := httptest.NewServer(llm.NewServer(llm.SamplerFunc(func(context.Context, llm.Request) (llm.Response, error) {
		return llm.Response{Choices: []llm.Choice{{Content: big}}}, nil
	}), llm.ServerOptions{}))
	defer srv.Close()
	cfg := cotConfig(1, "900:901")
	cfg.Model, cfg.BaseURL, cfg.Retries = "m", srv.URL+"/v1", 0
	for _, c := range []struct {
		cap  int64
		fail bool
	}{{16 << 10, true}, {0, false}} {
		cfg.MaxResponseBytes = c.cap
		_, err := (&Engine{Store: tempStore(t)}).Run(context.Background(), cfg)
		var tooLarge *llm.ResponseTooLargeError
		if got := errors.As(err, &tooLarge); got != c.fail {
			t.Errorf("cap %d: err %v; want a ResponseTooLargeError %v", c.cap, err, c.fail)
		}
	}
}
