package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/verify"
)

func tempStore(t testing.TB) *store.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bench.db")
	empty, err := emptyDatabase()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, empty, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// emptyDatabase is the file of a new database, migrated once per test
// binary: the hundreds of stores these tests open start from a copy, as
// the schema's migrations (tested in package store) were a tenth of the
// package's CPU under the race detector.
var emptyDatabase = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "bench-empty-db-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "empty.db")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		return nil, err
	}
	if err := st.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
})

func cotConfig(k int, rng string) Config {
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "cot", rng
	cfg.Params = map[string]any{"k": k}
	return cfg
}

// simServer serves the simulated model on loopback.
func simServer(t *testing.T, cfg Config, o llm.ServerOptions) (*httptest.Server, *llm.Server) {
	t.Helper()
	model, err := NewSim(cfg.Sim)
	if err != nil {
		t.Fatal(err)
	}
	h := llm.NewServer(model, o)
	srv := httptest.NewServer(WithRewardModel(h, model, verify.DefaultSep)) // as serve-sim: the simulated verifier too
	t.Cleanup(srv.Close)
	return srv, h
}

func TestRunStoresEveryItemAndCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := tempStore(t)
	eng := &Engine{Store: st}
	sum, err := eng.Run(ctx, cotConfig(10, "900:930"))
	if err != nil {
		t.Fatal(err)
	}
	if sum.N != 30 || sum.Status != store.StatusDone || !sum.Simulated || sum.Calls != 30 {
		t.Fatalf("summary = %+v", sum)
	}
	items, err := st.Items(ctx, sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var acc, best float64
	for _, it := range items {
		acc += it.Score
		best += it.Metrics["best_of_k"]
		if it.Calls != 1 || it.PromptTokens == 0 {
			t.Errorf("item %d: calls %d tokens %d", it.Index, it.Calls, it.PromptTokens)
		}
	}
	if got := acc / 30; got != sum.Accuracy {
		t.Errorf("accuracy %v, items say %v", sum.Accuracy, got)
	}
	if got := best / 30; got != sum.Metrics["best_of_k"] || got < sum.Accuracy {
		t.Errorf("best_of_k %v, items say %v (accuracy %v)", sum.Metrics["best_of_k"], got, sum.Accuracy)
	}
	calls, err := st.Calls(ctx, sum.RunID, -1)
	if err != nil || len(calls) != 30 {
		t.Fatalf("calls = %d, %v", len(calls), err)
	}
	if !strings.Contains(string(calls[0].Request), "Input:") || !strings.Contains(string(calls[0].Response), "Answer:") {
		t.Errorf("call not recorded in full: %s / %s", calls[0].Request, calls[0].Response)
	}
	run, err := st.GetRun(ctx, sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"k":10`, `"prompt_hashes"`, `"skill":0.5`} {
		if !strings.Contains(string(run.Spec), want) {
			t.Errorf("spec lacks %s: %s", want, run.Spec)
		}
	}
	var spec recordedSpec
	if err := json.Unmarshal(run.Spec, &spec); err != nil {
		t.Fatal(err)
	}
	text, err := st.Prompt(ctx, spec.Prompts["game24/cot"])
	if err != nil || !strings.Contains(text, "{{.Input}}") {
		t.Errorf("the cot template text is not stored under its hash: %q, %v", text, err)
	}
}

func TestHTTPMatchesInProcess(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type localRun struct {
		store *store.Store
		sum   Summary
	}
	locals := map[string]localRun{}
	for _, c := range []struct {
		strategy string
		params   map[string]any
		maxN     int
	}{
		{"cot", map[string]any{"k": 10}, 0},
		{"cot", map[string]any{"k": 10}, 3}, // n capped: the client tops up with seeds s+i
		{"cotsc", map[string]any{"k": 7}, 1},
		{"tot", map[string]any{"b": 2}, 0},
	} {
		cfg := cotConfig(1, "900:910")
		cfg.Strategy, cfg.Params = c.strategy, c.params
		// One in-process run a configuration: the two cot cases differ
		// only in the server's max_n.
		key := fmt.Sprint(cfg.Strategy, cfg.Params)
		lr, ok := locals[key]
		if !ok {
			lr.store = tempStore(t)
			var err error
			if lr.sum, err = (&Engine{Store: lr.store}).Run(ctx, cfg); err != nil {
				t.Fatal(err)
			}
			locals[key] = lr
		}
		localStore, local := lr.store, lr.sum
		srv, _ := simServer(t, cfg, llm.ServerOptions{MaxN: c.maxN})
		remoteCfg := cfg
		remoteCfg.BaseURL = srv.URL + "/v1"
		remoteStore := tempStore(t)
		remote, err := (&Engine{Store: remoteStore}).Run(ctx, remoteCfg)
		if err != nil {
			t.Fatal(err)
		}
		if local.Accuracy != remote.Accuracy || local.Calls != remote.Calls || local.CompletionTokens != remote.CompletionTokens {
			t.Errorf("%s max_n=%d: in-process %+v\nover HTTP %+v", c.strategy, c.maxN, local, remote)
		}
		if c.maxN == 0 && (local.PromptTokens != remote.PromptTokens || local.Requests != remote.Requests) {
			t.Errorf("%s: prompt tokens %d/%d requests %d/%d", c.strategy, local.PromptTokens, remote.PromptTokens, local.Requests, remote.Requests)
		}
		a, _ := localStore.Items(ctx, local.RunID)
		b, _ := remoteStore.Items(ctx, remote.RunID)
		if len(a) != 10 || len(b) != 10 {
			t.Fatalf("%s: %d and %d items", c.strategy, len(a), len(b))
		}
		for i := range a {
			if a[i].Output != b[i].Output || string(a[i].Detail) != string(b[i].Detail) {
				t.Errorf("%s max_n=%d item %d differs:\n%s\n%s", c.strategy, c.maxN, a[i].Index, a[i].Detail, b[i].Detail)
				break
			}
		}
	}
}

func TestBatchedRequestsOverHTTP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const k, maxN = 100, 8
	cfg := cotConfig(k, "900:903")
	srv, h := simServer(t, cfg, llm.ServerOptions{MaxN: maxN})
	cfg.BaseURL = srv.URL + "/v1"
	sum, err := (&Engine{Store: tempStore(t)}).Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	perItem := (k + maxN - 1) / maxN // ceil(100/8) = 13
	if got := h.Requests(); got != int64(3*perItem) {
		t.Errorf("HTTP requests = %d, want %d (ceil(%d/%d) per puzzle)", got, 3*perItem, k, maxN)
	}
	if sum.Requests != 3*perItem || sum.Calls != 3 {
		t.Errorf("recorded %d requests in %d calls", sum.Requests, sum.Calls)
	}
}

func TestUnreachableEndpointFailsRunKeepsStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	st := tempStore(t)
	earlier, err := (&Engine{Store: st}).Run(ctx, cotConfig(2, "0:3"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := cotConfig(2, "0:3")
	cfg.BaseURL = "http://" + addr + "/v1"
	cfg.Model = "some-model"
	cfg.Retries = 0
	eng := &Engine{Store: st}
	sum, err := eng.Run(ctx, cfg)
	if err == nil {
		t.Fatal("run against a closed port succeeded")
	}
	if !strings.Contains(err.Error(), addr) {
		t.Errorf("error does not name the endpoint: %v", err)
	}
	if sum.Status != store.StatusFailed {
		t.Errorf("status = %q", sum.Status)
	}
	still, err := Summarize(ctx, st, earlier.RunID)
	if err != nil || still.N != 3 {
		t.Errorf("earlier run damaged: %+v %v", still, err)
	}
}

func TestCancelledRunIsInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	st := tempStore(t)
	done := 0
	eng := &Engine{Store: st, OnProgress: func(p Progress) {
		done = p.Done
		if p.Done == 5 {
			cancel()
		}
	}}
	cfg := cotConfig(2, "0:400")
	cfg.Concurrency = 1
	sum, err := eng.Run(ctx, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if sum.Status != store.StatusInterrupted || sum.N < 5 || sum.N >= 400 || done < 5 {
		t.Errorf("summary after cancel: %+v", sum)
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mutate func(*Config)
		want   string
	}{
		{func(c *Config) { c.Task = "chess" }, `unknown task "chess"`},
		{func(c *Config) { c.Strategy = "magic" }, `unknown strategy "magic"`},
		{func(c *Config) { c.Params = map[string]any{"kk": "1"} }, `unknown parameter "kk"`},
		{func(c *Config) { c.Params = map[string]any{"k": "-1"} }, "must be at least 1"},
		{func(c *Config) { c.Range = "5:2" }, "bad range"},
		{func(c *Config) { c.Range = "0:99999" }, "bad range"},
		{func(c *Config) { c.Concurrency = 0 }, "--concurrency"},
		{func(c *Config) { c.BaseURL = "localhost:8000" }, "--base-url"},
		{func(c *Config) { c.Sim.Skill = 2 }, "sim skill"},
		{func(c *Config) { c.Strategy = "cotsc"; c.Params = map[string]any{"vote_key": "nonsense"} }, "vote_key"},
	}
	for _, c := range cases {
		cfg := cotConfig(1, "0:1")
		c.mutate(&cfg)
		err := Check(cfg)
		var ce ConfigError
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check: %v, want ConfigError containing %q", err, c.want)
		}
	}
}

func TestPublicEndpointDropsSecrets(t *testing.T) {
	t.Parallel()
	got := PublicEndpoint("https://user:sk-secret@example.invalid/v1?api-key=sk-other")
	if strings.Contains(got, "sk-") || strings.Contains(got, "user") {
		t.Errorf("PublicEndpoint kept a secret: %s", got)
	}
}

func TestRerunFromCacheMakesNoHTTPRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, strategy := range []string{"cot", "tot"} {
		cfg := cotConfig(5, "900:905")
		cfg.Strategy = strategy
		if strategy == "tot" {
			cfg.Params = map[string]any{"b": 2}
		}
		srv, h := simServer(t, cfg, llm.ServerOptions{})
		cfg.BaseURL = srv.URL + "/v1"
		st := tempStore(t)
		eng := &Engine{Store: st}
		first, err := eng.Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		before := h.Requests()
		if before == 0 {
			t.Fatal("the first run made no HTTP requests")
		}
		second, err := eng.Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Requests() - before; got != 0 {
			t.Errorf("%s: rerun made %d HTTP requests, want 0", strategy, got)
		}
		if first.Accuracy != second.Accuracy || first.Calls != second.Calls || first.PromptTokens != second.PromptTokens ||
			first.CompletionTokens != second.CompletionTokens || first.Requests != second.Requests {
			t.Errorf("%s: rerun numbers differ:\n%+v\n%+v", strategy, first, second)
		}
		calls, _ := st.Calls(ctx, second.RunID, -1)
		orig, _ := st.Calls(ctx, first.RunID, -1)
		// Identical requests may occur twice in a first run (two beams with
		// the same numbers, or two puzzles reaching the same numbers); the
		// cache keeps the first one stored.
		latencies := map[string]map[time.Duration]bool{}
		for _, c := range orig {
			k := string(c.Request)
			if latencies[k] == nil {
				latencies[k] = map[time.Duration]bool{}
			}
			latencies[k][c.Latency] = true
		}
		for i, c := range calls {
			if !c.CacheHit {
				t.Fatalf("%s: call %d of the rerun is not a cache hit", strategy, i)
			}
			if !latencies[string(c.Request)][c.Latency] {
				t.Errorf("%s: cached call %d has latency %v, not one of the original's %v", strategy, i, c.Latency, latencies[string(c.Request)])
			}
		}
		// With the cache off the same rerun asks the server again.
		cfg.Cache = llm.CacheOff
		if _, err := eng.Run(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		if h.Requests() == before {
			t.Errorf("%s: --cache off still answered from the cache", strategy)
		}
	}
}

func TestAPIKeyNeverStored(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const key = "sk-test-NEVER-STORE-THIS-0123456789"
	cfg := cotConfig(2, "900:903")
	srv, _ := simServer(t, cfg, llm.ServerOptions{})
	cfg.BaseURL = srv.URL + "/v1"
	cfg.APIKey = key
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := (&Engine{Store: st}).Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&Engine{Store: st}).Resume(ctx, sum.RunID, key); err != nil {
		t.Fatal(err)
	}
	st.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "k.db*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(key)) || bytes.Contains(b, []byte("NEVER-STORE")) {
			t.Errorf("%s contains the API key", f)
		}
	}
	// Requests and responses are stored compressed, where the scan above
	// cannot see them: read them back.
	ro, err := store.OpenReadOnly(ctx, filepath.Join(dir, "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	calls, err := ro.Calls(ctx, sum.RunID, -1)
	if err != nil || len(calls) == 0 {
		t.Fatalf("calls: %v %v", calls, err)
	}
	for _, c := range calls {
		if bytes.Contains(c.Request, []byte("NEVER-STORE")) || bytes.Contains(c.Response, []byte("NEVER-STORE")) {
			t.Errorf("call %d contains the API key", c.ID)
		}
	}
}

// A call a model over HTTP answered is stored as it arrives, not when its
// item ends: a process killed mid-item keeps what it paid for. Here the
// server answers five ToT calls of the first puzzle and then hangs; the
// five are in the database while the item is still running.
func TestPaidCallsStoredAsTheyArrive(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := tempStore(t)
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.Concurrency, cfg.Retries = "game24", "tot", "900:901", 1, 0
	model, err := NewSim(cfg.Sim)
	if err != nil {
		t.Fatal(err)
	}
	const answered = 5
	inner := llm.NewServer(model, llm.ServerOptions{})
	arrived := make(chan struct{}, 100)
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && n.Add(1) > answered { // the GET /v1/models probe is answered
			io.Copy(io.Discard, r.Body) // read, so that a client hanging up ends r.Context()
			arrived <- struct{}{}
			<-r.Context().Done()
			return
		}
		inner.ServeHTTP(w, r)
	}))
	defer srv.Close()
	cfg.BaseURL = srv.URL + "/v1"
	done := make(chan error, 1)
	go func() {
		_, err := (&Engine{Store: st}).Run(ctx, cfg)
		done <- err
	}()
	select {
	case <-arrived:
	case err := <-done:
		t.Fatalf("run ended before the server hung: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("the run never made a sixth call")
	}
	// Calls answered at once (a step's value prompts) are recorded as
	// each returns: wait for the last of the five.
	var tot store.RunTotals
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if tot, err = st.Totals(context.Background(), 1); err != nil {
			t.Fatal(err)
		}
		if tot.Calls >= answered {
			break
		}
	}
	if tot.Calls != answered {
		t.Errorf("%d calls stored while the item runs, want the %d answered", tot.Calls, answered)
	}
	cancel()
	<-done
}

// A strategy's declared template the task lacks is refused before the run
// is stored, resolved as rendering resolves it (bundled templates, then a
// --prompts folder over them); supplying it in the folder lets it run.
func TestMissingTemplateRefusedBeforeTheRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mk := func(task, strategy string, params map[string]any) Config {
		cfg := DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range, cfg.Params = task, strategy, "0:2", params
		return cfg
	}
	// withPrompts adds a --prompts folder holding creative/NAME.txt for
	// each name.
	withPrompts := func(cfg Config, names ...string) Config {
		cfg.PromptDir = t.TempDir()
		if err := os.MkdirAll(filepath.Join(cfg.PromptDir, "creative"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			if err := os.WriteFile(filepath.Join(cfg.PromptDir, "creative", name+".txt"), []byte("{{.Input}}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return cfg
	}
	for _, c := range []struct {
		name string
		cfg  Config
		want string // "" for a configuration that passes
	}{
		{"selfrefine-crosswords", mk("crosswords", "selfrefine", nil),
			"strategy selfrefine on task crosswords needs template crosswords/feedback (prompts/crosswords/feedback.txt or --prompts DIR)"},
		{"reflexion-creative", mk("creative", "reflexion", nil), "needs template creative/reflexion_cot"},
		{"reflexion-creative-prompts", withPrompts(mk("creative", "reflexion", nil), "reflexion_cot", "reflect"), ""},
		{"reflexion-creative-self", withPrompts(mk("creative", "reflexion", map[string]any{"evaluator": "self"}), "reflexion_cot", "reflect"),
			"needs template creative/self_eval"},
		{"reflexion-creative-no-reflect", withPrompts(mk("creative", "reflexion", nil), "reflexion_cot"), "needs template creative/reflect"},
		// A mode that renders fewer templates asks for fewer: one trial
		// writes no reflection.
		{"reflexion-creative-one-trial", withPrompts(mk("creative", "reflexion", map[string]any{"trials": 1}), "reflexion_cot"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Check(c.cfg)
			if c.want == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			var ce ConfigError
			if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Check: %v, want a ConfigError containing %q", err, c.want)
			}
			st := tempStore(t)
			if _, err := (&Engine{Store: st, Backend: failing{}}).Run(ctx, c.cfg); err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Run: %v, want a ConfigError containing %q", err, c.want)
			}
			runs, err := st.Runs(ctx, store.RunFilter{})
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != 0 {
				t.Errorf("the refused run was stored: %+v", runs[0])
			}
		})
	}
}
