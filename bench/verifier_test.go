package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/reasonbench/reasonbench/llm/sim"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/verify"
)

// verifyingStrategy stands in for bon/beam/dvts (another branch): it
// scores two fixed Game of 24 solutions of the item's puzzle with the
// verifier and keeps the better.
type verifyingStrategy struct{}

func (verifyingStrategy) NeedsVerifier() string { return "picks solutions by a verifier" }

func (verifyingStrategy) Solve(ctx context.Context, env strategies.Env, inst tasks.Instance) (strategies.Result, error) {
	cands := [][]string{
		{"1 + 1 = 2 (left: 2)", "Answer: 1 + 1 = 2"},
		{"2 * 2 = 5 (left: 5)", "Answer: 2 * 2 = 5"},
	}
	best, bestScore := "", -1.0
	var scores []verify.Scores
	for i, c := range cands {
		s, err := env.Verifier.Verify(ctx, verify.Request{Call: fmt.Sprintf("c%d/verify", i), Problem: inst.Input, Steps: c})
		if err != nil {
			return strategies.Result{}, err
		}
		scores = append(scores, s)
		if v, _ := verify.Aggregate("min", s); v > bestScore {
			best, bestScore = strings.Join(c, "\n"), v
		}
	}
	return strategies.Result{Output: best, Detail: scores}, nil
}

// runVerifying runs cfg with the stand-in strategy.
func runVerifying(t *testing.T, e *Engine, cfg Config) (Summary, error) {
	t.Helper()
	p, err := load(cfg)
	if err != nil {
		return Summary{}, ConfigError{err}
	}
	p.strategy = verifyingStrategy{}
	return e.start(context.Background(), p)
}

// rewardCounter counts the reward requests reaching a sampler.
type rewardCounter struct {
	s       llm.Sampler
	rewards atomic.Int64
}

func (c *rewardCounter) Sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Reward != nil {
		c.rewards.Add(1)
	}
	return c.s.Sample(ctx, req)
}

// verifyCalls counts a run's recorded verifier calls, their cache hits and cost.
func verifyCalls(t *testing.T, e *Engine, runID int64, items int) (calls, hits int, cost float64) {
	t.Helper()
	for item := range items {
		cs, err := e.Store.Calls(context.Background(), runID, item)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.Purpose == verify.Purpose {
				calls++
				cost += c.Cost
				if c.CacheHit {
					hits++
				}
			}
		}
	}
	return
}

// On the simulator with no flags, the simulated prm verifies: every call
// recorded with purpose verify, and a rerun answers them all from the
// cache.
func TestSimulatedVerifierRecordedAndCached(t *testing.T) {
	t.Parallel()
	model, err := NewSim(DefaultConfig().Sim)
	if err != nil {
		t.Fatal(err)
	}
	counter := &rewardCounter{s: model}
	e := &Engine{Store: tempStore(t), Backend: counter}
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "cot", "0:3"
	sum, err := runVerifying(t, e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	calls, hits, _ := verifyCalls(t, e, sum.RunID, 3)
	if calls != 6 || hits != 0 || counter.rewards.Load() != 6 {
		t.Fatalf("%d verifier calls recorded (%d hits), %d reached the simulator; want 6, 0, 6", calls, hits, counter.rewards.Load())
	}
	items, err := e.Store.Items(context.Background(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		// Two step scores per solution, each in [0,1].
		var scores []verify.Scores
		if err := json.Unmarshal(it.Detail, &scores); err != nil || len(scores) != 2 || len(scores[0]) != 2 || len(scores[1]) != 2 {
			t.Errorf("item %d: scores %s (%v)", it.Index, it.Detail, err)
		}
	}
	sum2, err := runVerifying(t, e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	calls, hits, _ = verifyCalls(t, e, sum2.RunID, 3)
	if calls != 6 || hits != 6 || counter.rewards.Load() != 6 {
		t.Errorf("rerun: %d verifier calls, %d hits, %d reached the simulator in all; want 6, 6, 6", calls, hits, counter.rewards.Load())
	}
}

// A reward model at its own endpoint (here the simulated verifier behind
// the stand-in /pooling server serve-sim runs): calls go there, costed at
// its price, cached under its identity; the generator stays in process.
func TestRewardModelEndpoint(t *testing.T) {
	t.Parallel()
	model, err := NewSim(DefaultConfig().Sim)
	if err != nil {
		t.Fatal(err)
	}
	ps := verify.NewPoolingServer(model, verify.DefaultSep, "prm-x")
	srv := httptest.NewServer(ps)
	defer srv.Close()
	e := &Engine{Store: tempStore(t)}
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "cot", "0:2"
	cfg.Verify = VerifierConfig{Model: "prm-x", BaseURL: srv.URL, Kind: verify.PRM}
	cfg.Prices = llm.Prices{"prm-x": {Prompt: 2, Completion: 100}}
	sum, err := runVerifying(t, e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	calls, hits, cost := verifyCalls(t, e, sum.RunID, 2)
	if calls != 4 || hits != 0 || ps.Requests() != 4 {
		t.Fatalf("%d verifier calls (%d hits), the server asked %d times; want 4, 0, 4", calls, hits, ps.Requests())
	}
	if cost <= 0 || sum.PromptTokens == 0 {
		t.Errorf("verifier cost %v, prompt tokens %d", cost, sum.PromptTokens)
	}
	// Prompt tokens at $2/M, no completion tokens.
	cs, _ := e.Store.Calls(context.Background(), sum.RunID, 0)
	for _, c := range cs {
		if c.Purpose == verify.Purpose && (c.CompletionTokens != 0 || math.Abs(c.Cost-float64(c.PromptTokens)*2/1e6) > 1e-12) {
			t.Errorf("call %+v: want prompt tokens at the verifier's price", c)
		}
	}
	if _, err := runVerifying(t, e, cfg); err != nil {
		t.Fatal(err)
	}
	if ps.Requests() != 4 {
		t.Errorf("a rerun asked the reward model %d more times", ps.Requests()-4)
	}
	// Another verifier is another configuration; none is none.
	p1, _ := load(cfg)
	p1.strategy = verifyingStrategy{}
	cfg2 := cfg
	cfg2.Verify.Kind = verify.ORM
	p2, _ := load(cfg2)
	p2.strategy = verifyingStrategy{}
	if p1.configKey() == p2.configKey() {
		t.Error("prm and orm verifiers share a config key")
	}
	p3, _ := load(cfg)
	if p3.verifierKey() != "" {
		t.Errorf("a strategy asking no verifier has verifier key %q", p3.verifierKey())
	}
}

// The verifier flags' errors: on a strategy that asks none, each flag is
// named; a reward model kind with the run's generator as the model is
// refused; bad values are refused by Check.
func TestVerifierFlagErrors(t *testing.T) {
	t.Parallel()
	for flag, set := range map[string]func(*VerifierConfig){
		"--verifier-model":    func(v *VerifierConfig) { v.Model = "x" },
		"--verifier-base-url": func(v *VerifierConfig) { v.BaseURL = "http://127.0.0.1:1" },
		"--verifier-kind":     func(v *VerifierConfig) { v.Kind = "orm" },
		"--verifier-sep":      func(v *VerifierConfig) { v.Sep = "ки" },
		"--verifier-server":   func(v *VerifierConfig) { v.Server = "sglang" },
		"--verifier-samples":  func(v *VerifierConfig) { v.Samples = 4 },
	} {
		cfg := DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range = "game24", "cot", "0:1"
		set(&cfg.Verify)
		err := Check(cfg)
		var ce ConfigError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), flag+": strategy cot asks no verifier") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", flag, err)
		}
	}
	for _, tc := range []struct {
		cfg  func(*Config)
		says string
	}{
		{func(c *Config) { c.Verify.Kind = "rm" }, `--verifier-kind "rm"`},
		{func(c *Config) { c.Verify.Server = "tgi" }, `--verifier-server "tgi"`},
		{func(c *Config) { c.Verify.BaseURL = "localhost:8000" }, "--verifier-base-url"},
		{func(c *Config) { c.Verify.Samples = -1 }, "--verifier-samples"},
	} {
		cfg := DefaultConfig()
		cfg.Task, cfg.Strategy = "game24", "cot"
		tc.cfg(&cfg)
		if err := Check(cfg); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v", tc.says, err)
		}
	}
	for _, tc := range []struct {
		cfg  func(*Config)
		says string
	}{
		{func(c *Config) { c.Model, c.BaseURL, c.Verify.Kind = "gpt-4o", "http://127.0.0.1:1/v1", verify.PRM }, "pass --verifier-model and --verifier-base-url"},
		{func(c *Config) { c.Verify.Kind, c.Verify.Sep = verify.ORM, "ки" }, "--verifier-sep: only a prm"},
		{func(c *Config) { c.Verify.Kind, c.Verify.Server = verify.LLM, verify.SGLang }, "--verifier-server"},
		{func(c *Config) { c.Verify.Samples = 3 }, "--verifier-samples: only an llm verifier"},
	} {
		cfg := DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range = "game24", "cot", "0:1"
		tc.cfg(&cfg)
		_, err := runVerifying(t, &Engine{Store: tempStore(t)}, cfg)
		var ce ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v", tc.says, err)
		}
	}
}

// An llm verifier of the run's own model over HTTP reads P(Yes) from the
// log probabilities the served simulator gives.
func TestLLMVerifierOfTheRunsModel(t *testing.T) {
	t.Parallel()
	model, err := NewSim(DefaultConfig().Sim)
	if err != nil {
		t.Fatal(err)
	}
	var logprobs atomic.Int64
	h := llm.NewServer(model, llm.ServerOptions{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost { // not the GET /v1/models probe
			logprobs.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	e := &Engine{Store: tempStore(t)}
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "cot", "0:1"
	cfg.Model, cfg.BaseURL, cfg.Verify.Kind = SimModel, srv.URL+"/v1", verify.LLM
	sum, err := runVerifying(t, e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	items, _ := e.Store.Items(context.Background(), sum.RunID)
	if len(items) != 1 || !strings.Contains(string(items[0].Detail), "0.") {
		t.Fatalf("items %+v", items)
	}
	calls, _, _ := verifyCalls(t, e, sum.RunID, 1)
	if calls != 2 || logprobs.Load() != 2 {
		t.Errorf("%d verifier calls recorded, %d reached the server", calls, logprobs.Load())
	}
}

// An experiment file's verifier: block (and --verifier-* with -f) goes to
// the runs whose strategy asks a verifier only: a cot run gets none and
// passes Check; a bad block is refused with its line.
func TestExperimentVerifierBlock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(text string) string {
		path := filepath.Join(dir, "e.yaml")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base := DefaultConfig()
	base.Verify.Kind = verify.ORM
	exp, err := LoadExperiment(write("task: game24\nrange: \"900:901\"\nverifier: {kind: prm, sep: \"ки\", model: prm-x, base_url: \"http://127.0.0.1:1\"}\nstrategies:\n  - cot: {k: 2}\n"), base, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Runs) != 1 || exp.Runs[0].Verify != (VerifierConfig{}) {
		t.Errorf("runs %+v: a cot run got a verifier", exp.Runs)
	}
	for text, says := range map[string]string{
		"task: game24\nverifier: {kind: rm}\nstrategies:\n  - cot: {k: 2}\n":      `--verifier-kind "rm"`,
		"task: game24\nverifier: {sepp: x}\nstrategies:\n  - cot: {k: 2}\n":       "e.yaml:2: unknown key verifier.sepp",
		"task: game24\nverifier: {samples: many}\nstrategies:\n  - cot: {k: 2}\n": "verifier.samples",
		"task: game24\nverifier: prm\nstrategies:\n  - cot: {k: 2}\n":             "verifier: want a mapping",
	} {
		if _, err := LoadExperiment(write(text), DefaultConfig(), 0); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: %v, want %q", text, err, says)
		}
	}
}

// bench merge refuses shards that ran with different verifiers.
func TestMergeInfoNamesTheVerifier(t *testing.T) {
	t.Parallel()
	field := func(v VerifierConfig) string {
		cfg := DefaultConfig()
		cfg.Verify = v
		spec, _ := json.Marshal(recordedSpec{Config: cfg})
		info, err := MergeInfo(store.Run{Spec: spec})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range info.Fields {
			if f.Name == "verifier" {
				return f.Value
			}
		}
		t.Fatal("no verifier field")
		return ""
	}
	if a, b := field(VerifierConfig{Kind: "prm"}), field(VerifierConfig{Kind: "orm"}); a == b {
		t.Errorf("prm and orm shards agree: %q", a)
	}
	if f := field(VerifierConfig{}); f != "" {
		t.Errorf("no verifier: %q", f)
	}
}

// With no flags the simulator verifies with its simulated prm and a real
// model as an llm verifier of itself; flags override each part.
func TestVerifierDefaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		model, url          string
		v                   VerifierConfig
		wModel, wURL, wKind string
	}{
		{SimModel, "", VerifierConfig{}, SimModel, "", verify.PRM},
		{SimModel, "http://h/v1", VerifierConfig{}, SimModel, "http://h/v1", verify.PRM},
		{"gpt-4o", "http://h/v1", VerifierConfig{}, "gpt-4o", "http://h/v1", verify.LLM},
		{"gpt-4o", "http://h/v1", VerifierConfig{Model: "prm", BaseURL: "http://p", Kind: verify.PRM}, "prm", "http://p", verify.PRM},
		{"gpt-4o", "http://h/v1", VerifierConfig{Model: "judge"}, "judge", "http://h/v1", verify.LLM},
	} {
		c := DefaultConfig()
		c.Model, c.BaseURL, c.Verify = tc.model, tc.url, tc.v
		if m, u, k := c.Verifier(); m != tc.wModel || u != tc.wURL || k != tc.wKind {
			t.Errorf("%+v: %s %s %s, want %s %s %s", tc, m, u, k, tc.wModel, tc.wURL, tc.wKind)
		}
	}
}

// With no verifier flags, a run on the simulator verifies alike in process
// and over HTTP (the served simulator's /pooling, where --model sim
// --base-url finds its verifier), at any concurrency.
func TestDefaultVerifierInProcessAndOverHTTP(t *testing.T) {
	t.Parallel()
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "cot", "900:906"
	sum, err := runVerifying(t, &Engine{Store: tempStore(t)}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	st := tempStore(t)
	cfg.Concurrency = 1
	sum1, err := runVerifying(t, &Engine{Store: st}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := recordOf(t, st, sum1.RunID)
	srv, _ := simServer(t, cfg, llm.ServerOptions{})
	cfg.BaseURL, cfg.Concurrency = srv.URL+"/v1", 16
	st2 := tempStore(t)
	sum2, err := runVerifying(t, &Engine{Store: st2}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := recordOf(t, st2, sum2.RunID); !reflect.DeepEqual(got, want) {
		t.Errorf("over HTTP differs:\n%s", firstDiff(got.Items, want.Items))
	}
	if want.Calls != 12 || sum.N != 6 {
		t.Errorf("%d calls, %d items", want.Calls, sum.N)
	}
}

// A verifier on its own endpoint gets --verifier-api-key, never the run's
// key (an OpenAI key must not reach a reward model server elsewhere); one
// on the run's endpoint gets the run's key.
func TestVerifierKeyStaysWithItsEndpoint(t *testing.T) {
	t.Parallel()
	model, srv, mu, seen := keyedRewardServer(t)
	for _, tc := range []struct {
		name, verifierKey, want string
	}{
		{"own key", "vk-reward", "Bearer vk-reward"},
		{"none given", "", ""},
	} {
		clear(seen)
		cfg := DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range = "game24", "cot", "0:2"
		cfg.Model, cfg.BaseURL = "gpt-4o", "http://127.0.0.1:1/v1" // the run's own endpoint is not asked here
		cfg.APIKey, cfg.VerifierAPIKey = "sk-run-secret", tc.verifierKey
		cfg.Verify = VerifierConfig{Model: "prm-x", BaseURL: srv.URL, Kind: verify.PRM}
		p, err := load(cfg)
		if err != nil {
			t.Fatal(err)
		}
		p.strategy = verifyingStrategy{}
		e := &Engine{Store: tempStore(t), Backend: model}
		if _, err := e.start(context.Background(), p); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		mu.Lock()
		if len(seen) != 1 || seen[tc.want] == 0 {
			t.Errorf("%s: the reward server saw Authorization %v, want only %q", tc.name, seen, tc.want)
		}
		mu.Unlock()
	}
}

// A verifier model MODEL@NAME is on the named endpoint (--endpoint
// NAME=URL,KEY_ENV), as a judge's is: its calls go there with that
// endpoint's key, never the run's; an unknown name or a --verifier-base-url
// beside it is refused.
func TestVerifierOnANamedEndpoint(t *testing.T) {
	t.Parallel()
	model, srv, mu, seen := keyedRewardServer(t)
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "cot", "0:2"
	cfg.Model, cfg.BaseURL = "gpt-4o", "http://127.0.0.1:1/v1" // the run's own endpoint is not asked here
	cfg.APIKey, cfg.VerifierAPIKey = "sk-run-secret", "vk-flag"
	cfg.Verify = VerifierConfig{Model: "prm-x@rm", Kind: verify.PRM}
	check := func(c Config) error { c.Strategy = "bon"; return Check(c) } // a strategy that asks a verifier
	if err := check(cfg); err == nil || !strings.Contains(err.Error(), "no endpoint rm") {
		t.Errorf("a verifier on an unnamed endpoint: %v", err)
	}
	cfg.NamedEndpoints = []Endpoint{{Name: "rm", URL: srv.URL, KeyEnv: "RM_KEY"}}
	cfg.NamedKeys = map[string]string{"rm": "sk-rm"}
	if err := check(cfg); err != nil {
		t.Fatal(err)
	}
	if m, u, _ := cfg.Verifier(); m != "prm-x" || u != srv.URL {
		t.Errorf("verifier %s at %s", m, u)
	}
	p, err := load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	p.strategy = verifyingStrategy{}
	if _, err := (&Engine{Store: tempStore(t), Backend: model}).start(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(seen) != 1 || seen["Bearer sk-rm"] == 0 {
		t.Errorf("the named endpoint saw Authorization %v, want only the endpoint's key", seen)
	}
	mu.Unlock()
	cfg.Verify.BaseURL = srv.URL
	if err := check(cfg); err == nil || !strings.Contains(err.Error(), "drop --verifier-base-url") {
		t.Errorf("both: %v", err)
	}
}

// keyedRewardServer is the simulator's reward model over HTTP, counting
// the Authorization headers it is sent.
func keyedRewardServer(t *testing.T) (*sim.Model, *httptest.Server, *sync.Mutex, map[string]int) {
	t.Helper()
	model, err := NewSim(DefaultConfig().Sim)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	ps := verify.NewPoolingServer(model, verify.DefaultSep, "prm-x")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("Authorization")]++
		mu.Unlock()
		ps.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return model, srv, &mu, seen
}
