package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
)

// identityConfigs is every registry strategy's Probe (its main mode, named
// by the strategy) and the extra configurations here, one for each other
// mode that makes calls differently, at temperature 0.7 where it has one.
// Each runs six times in TestEverySampleIsASample, so ranges are as small
// as still run several items at once: 2 to 3 items for the configurations
// that make hundreds of calls an item (crosswords DFS, LATS, Reflexion
// with a ReAct actor, ToT sample/vote on HotpotQA) and for those that start
// a program per item or call (sandboxed code, PAL, program), 4 to 6 for
// the rest.
func identityConfigs() []identityConfig {
	var out []identityConfig
	for _, s := range strategies.Registry() {
		cfg := probeConfig(s)
		if r, ok := sandboxProbeRange[s.Name]; ok {
			cfg.Range = r
		}
		out = append(out, identityConfig{s.Name, cfg})
	}
	return append(out, extraIdentityConfigs()...)
}

// sandboxProbeRange narrows the probes of the strategies that start a
// program per item or per call (sandboxed or not) to two items, the fewest
// that still run at once: a program's start-up, not its calls, is their
// cost, and six legs repeat it (issue 34). Each item still makes every
// kind of call its strategy makes.
var sandboxProbeRange = map[string]string{
	"reflexion_code": "0:2",
	"pal":            "0:2",
	"program":        "900:902",
}

// runsPrograms names the configurations that run programs (sandboxed
// code, PAL, the python tool, program).
var runsPrograms = map[string]bool{
	"reflexion_code": true, "pal": true, "program": true,
	"reflexion_code-humaneval-current": true, "reflexion_code-simple": true, "reflexion_code-shared": true, "pal-game24": true, "react-python-tools": true,
	"selfrefine-gsm8k-pal": true, "selfrefine-humaneval-code": true, "program-completions-concurrent": true,
}

// talksHTTP is whether a configuration's strategy talks to the model
// over HTTP already (a program calls bench's recording endpoint): the HTTP
// backend leg would add only the same client on the other side of it.
func talksHTTP(cfg Config) bool { return cfg.Strategy == "program" }

type identityConfig struct {
	name string
	cfg  Config
}

// probeConfig is the run of a strategy's registry Probe.
func probeConfig(s strategies.Spec) Config {
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.Params = s.Probe.Task, s.Name, s.Probe.Range, maps.Clone(s.Probe.Params)
	return cfg
}

// extraIdentityConfigs are the modes beyond the registry probes.
func extraIdentityConfigs() []identityConfig {
	mk := func(task, strategy, rng string, params map[string]any) Config {
		cfg := DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range, cfg.Params = task, strategy, rng, params
		return cfg
	}
	t07 := 0.7
	withPreset := func(name, rng string) Config {
		cfg, err := ApplyPreset(DefaultConfig(), name)
		if err != nil {
			panic(err)
		}
		cfg.Range = rng
		return cfg
	}
	codePreset := func(name, rng string, set map[string]any) Config {
		cfg := withPreset(name, rng)
		maps.Copy(cfg.Params, set)
		return cfg
	}
	tot5, _ := ApplyPreset(DefaultConfig(), "tot-game24/tot-b5")
	tot5.Range = "900:904"
	return []identityConfig{
		{"tot-b5-preset", tot5},
		{"tot-bfs-sampled-beam-no-cache", mk("game24", "tot", "900:904", map[string]any{"b": 3, "select": "sample", "value_cache": "off", "temperature": t07})},
		{"tot-dfs", mk("game24", "tot", "900:906", map[string]any{"search": "dfs", "max_steps": 12, "temperature": t07})},
		{"tot-sample-vote", mk("hotpotqa", "tot", "0:4", map[string]any{"generate": "sample", "evaluate": "vote", "n_generate": 3, "b": 2, "steps": 2, "temperature": t07})},
		{"debate-gsm8k-alone", mk("gsm8k", "debate", "0:5", map[string]any{"agents": 1, "rounds": 3, "temperature": t07})},
		{"debate-models", mk("game24", "debate", "900:904", map[string]any{"agents": 3, "rounds": 2, "models": "sim,sim,sim", "temperature": t07})},
		{"debate-judge", mk("gsm8k", "debate", "0:4", map[string]any{"agents": 2, "rounds": 2, "final": "judge", "temperature": t07})},
		{"debate-hotpotqa-2x3", mk("hotpotqa", "debate", "0:5", map[string]any{"agents": 2, "rounds": 3, "temperature": t07})},
		{"react-json", mk("hotpotqa", "react", "0:6", map[string]any{"protocol": "json", "temperature": t07})},
		{"react-tools", mk("hotpotqa", "react", "0:6", map[string]any{"protocol": "tools", "temperature": t07})},
		{"react-xml", mk("hotpotqa", "react", "0:6", map[string]any{"protocol": "xml", "temperature": t07})},
		// τ-bench's agents on episodes with the simulated user: trials,
		// the user's setup calls and its own role's calls (identity
		// t<trial>/user/...), the few-shot draw.
		{"tau-tool-calling", codePreset("tau-airline/tool-calling", "0:4", map[string]any{"trials": 2, "temperature": t07})},
		{"tau-act-retail", codePreset("tau-retail/act", "0:3", map[string]any{"trials": 2, "temperature": t07})},
		{"tau-react-user", codePreset("tau-airline/react", "0:3", map[string]any{"user": "react", "temperature": t07})},
		{"tau-xml-verify-user", mk("tau-retail", "react", "0:3", map[string]any{"protocol": "xml", "max_steps": 30, "user": "verify", "temperature": t07})},
		{"tau-few-shot-reflection-user", codePreset("tau-airline/few-shot", "0:3", map[string]any{"user": "reflection", "temperature": t07})},
		{"tau-reflexion", mk("tau-airline", "reflexion", "0:3", map[string]any{"actor": "react", "protocol": "tools", "trials": 2, "reflection": "last_attempt_and_reflexion", "max_steps": 30, "temperature": t07})},
		{"reflexion-none", mk("hotpotqa", "reflexion", "0:6", map[string]any{"reflection": "none", "trials": 3, "temperature": t07})},
		{"reflexion-last-attempt", mk("hotpotqa", "reflexion", "0:6", map[string]any{"reflection": "last_attempt", "trials": 3, "temperature": t07})},
		{"reflexion-react-both", mk("hotpotqa", "reflexion", "0:3", map[string]any{"actor": "react", "reflection": "last_attempt_and_reflexion", "trials": 3, "temperature": t07})},
		{"reflexion_ref-react", mk("hotpotqa", "reflexion_ref", "0:3", map[string]any{"agent": "react", "reflection": "last_attempt_and_reflexion", "trials": 3, "temperature": t07})},
		{"tot_dfs-no-check-cache", mk("crosswords", "tot_dfs", "0:2", map[string]any{"max_states": 10, "check_cache": "off", "temperature": t07})},
		{"tot_dfs-greedy", mk("crosswords", "tot_dfs", "0:2", map[string]any{"backtrack": false, "greedy_steps": 6, "temperature": t07})},
		{"creative-tot-vote-judged", withPreset("tot-creative/tot", "0:3")},
		{"creative-cot-judged", mk("creative", "cot", "0:4", map[string]any{"k": 3, "temperature": t07})},
		// The programming protocol's other presets: the current version's
		// six-message chat and the one-shot baseline (the registry probe is
		// the b448a9b MBPP preset's configuration).
		{"reflexion_code-humaneval-current", codePreset("reflexion-humaneval/reflexion", "0:2", map[string]any{"version": "current", "max_iters": 3, "temperature": t07})},
		{"reflexion_code-simple", codePreset("reflexion-mbpp/simple", "0:2", map[string]any{"temperature": t07})},
		// The logged protocol's shared namespace (the current one above
		// shares it too): items one at a time, in order, each test
		// replaying the execs of the items before it. HumanEval, whose
		// docstrings' examples become the simulated model's tests.
		{"reflexion_code-shared", codePreset("reflexion-humaneval/reflexion", "0:3", map[string]any{"max_iters": 3, "temperature": t07})},
		{"pal-game24", mk("game24", "pal", "900:902", map[string]any{"k": 2, "temperature": t07})},
		{"react-python-tools", mk("gsm8k", "react", "0:2", map[string]any{"tools": "python", "protocol": "tools", "temperature": t07})},
		{"cotsc-math500", mk("math500", "cotsc", "0:6", map[string]any{"k": 4, "temperature": t07})},
		{"selfrefine-gsm8k-pal", func() Config {
			cfg := withPreset("selfrefine-gsm8k/pal", "0:2")
			cfg.Params["temperature"] = t07
			return cfg
		}()},
		// A stop phrase the simulated critic never writes: its functions
		// mostly pass their examples at once, and every refine call
		// identity should be drawn.
		// bon, beam and dvts: their other selection rules and switches.
		{"bon-majority", mk("gsm8k", "bon", "0:5", map[string]any{"n": 4, "select": "majority", "temperature": t07})},
		{"bon-weighted-game24", mk("game24", "bon", "900:904", map[string]any{"n": 4, "select": "weighted", "agg": "min", "temperature": t07})},
		{"beam-dedup-sorted-gsm8k", mk("gsm8k", "beam", "0:4", map[string]any{"n": 4, "beam_width": 2, "num_iterations": 6, "filter_duplicates": true, "sort_completed": true, "temperature": t07})},
		{"dvts-no-lookahead-game24", mk("game24", "dvts", "900:904", map[string]any{"n": 4, "beam_width": 2, "num_iterations": 6, "lookahead": 0, "select": "weighted", "temperature": t07})},
		{"selfrefine-humaneval-code", codePreset("selfrefine-humaneval/code", "0:2", map[string]any{"iterations": 2, "stop_phrase": "refinement over", "temperature": t07})},
		// A program's concurrent identical completions (program_test.go).
		{"program-completions-concurrent", mk("game24", "program", "900:902", map[string]any{"cmd": programCompletions, "temperature": t07})},
	}
}

// runRecord is what a run gave: per item its output, verdict, score,
// metrics, detail, tree, steps, calls, tokens, sandboxed programs and
// events.
type runRecord struct {
	Items []string
	Calls int
}

func recordOf(t *testing.T, st *store.Store, run int64) runRecord {
	t.Helper()
	ctx := context.Background()
	items, err := st.Items(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	var r runRecord
	for _, it := range items {
		nodes, err := st.Nodes(ctx, run, it.Index)
		if err != nil {
			t.Fatal(err)
		}
		steps, err := st.Steps(ctx, run, it.Index)
		if err != nil {
			t.Fatal(err)
		}
		for i := range nodes {
			nodes[i].RunID = 0
		}
		for i := range steps {
			steps[i].RunID = 0
		}
		// The programs it ran in the sandbox (PAL, Self-Refine, hidden
		// tests), less their durations and stderr.
		execs, err := st.Executions(ctx, run, it.Index)
		if err != nil {
			t.Fatal(err)
		}
		var ran [][]any
		for _, e := range execs {
			ran = append(ran, []any{e.Site, e.Program, e.Stdin, e.Status, e.ExitCode, e.Signal, e.Stdout, e.Truncated})
		}
		// Its events, less what differs between runs of one configuration
		// (latency, cache hits and replays, call record ids and times).
		evs, err := st.ItemEvents(ctx, run, it.Index)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal([]any{it.Index, it.Output, it.Correct, it.Score, it.Metrics, it.Detail, it.Calls,
			it.PromptTokens, it.CompletionTokens, nodes, steps, ran, canonical(evs)})
		r.Items = append(r.Items, string(b))
		r.Calls += it.Calls
	}
	return r
}

// TestEverySampleIsASample runs one configuration of every strategy on the
// simulator at temperature 0.7 and checks what "every sample is a sample"
// means: every call names its identity; no two calls of an item share one;
// a fresh run answers nothing from the cache except the draws a method
// declares shared; two calls with the same text are sent with different
// seeds unless shared; and the same configuration gives identical items,
// trees, trajectories and call counts at concurrency 1 and 128, rerun
// into the same database (then from the cache alone), over HTTP with
// --concurrency auto, and killed half way at concurrency 16 and resumed.
// (A fresh run at 16 was dropped, issue 25: the killed run's first half
// is one, and 128 lets more calls overlap. The HTTP leg is skipped for
// program runs, issue 34: a program's every call crosses HTTP already.)
func TestEverySampleIsASample(t *testing.T) {
	t.Parallel()
	everySampleIsASample(t, false)
}

// TestEverySampleIsASampleWithPrograms is the same for the configurations
// that run programs (sandboxed code, PAL, the python tool, program), one
// at a time and before the package's parallel tests: a sandbox's wall
// limit on a crowded machine changes a verdict (a HumanEval hidden test
// ended "timeout" on a rerun, once, when these ran beside the rest).
func TestEverySampleIsASampleWithPrograms(t *testing.T) {
	everySampleIsASample(t, true)
}

// everySampleIsASample checks the configurations that run programs, or
// those that do not.
func everySampleIsASample(t *testing.T, programs bool) {
	ctx := context.Background()
	for _, c := range identityConfigs() {
		if runsPrograms[c.name] != programs {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			// Each configuration has its own stores, servers and models;
			// at -parallel GOMAXPROCS one's SQLite and HTTP waits overlap
			// another's work. Those that run programs stay sequential
			// (TestEverySampleIsASampleWithPrograms).
			if !programs {
				t.Parallel()
			}
			if _, err := LookupTask(c.cfg.Task); err != nil {
				t.Skipf("task %s is not in this build: %v", c.cfg.Task, err)
			}
			var want runRecord
			var st *store.Store
			for k, conc := range []int{1, 128} {
				st = tempStore(t)
				cfg := c.cfg
				cfg.Concurrency = conc
				sum, err := (&Engine{Store: st}).Run(ctx, cfg)
				if err != nil {
					t.Fatal(err)
				}
				got := recordOf(t, st, sum.RunID)
				if len(got.Items) == 0 {
					t.Fatal("no items")
				}
				if k == 0 {
					want = got
					checkDraws(t, st, sum.RunID)
					checkReadings(t, st, sum.RunID, c.cfg.Strategy)
					continue
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("concurrency %d differs from concurrency 1:\n%s", conc, firstDiff(got.Items, want.Items))
				}
			}
			cfg := c.cfg
			cfg.Concurrency = 16
			sum, err := (&Engine{Store: st, Backend: failing{}}).Run(ctx, cfg)
			if err != nil {
				t.Fatalf("rerun into the same database reached the model: %v", err)
			}
			if got := recordOf(t, st, sum.RunID); !reflect.DeepEqual(got, want) {
				t.Errorf("rerun differs:\n%s", firstDiff(got.Items, want.Items))
			}

			// Over HTTP, through the simulator served on loopback, with
			// --concurrency auto (not for a program, whose every call
			// crosses HTTP already).
			if !talksHTTP(c.cfg) {
				srv, _ := simServer(t, c.cfg, llm.ServerOptions{})
				cfg = c.cfg
				cfg.BaseURL, cfg.ConcurrencyAuto, cfg.Concurrency, cfg.ConcurrencyMax = srv.URL+"/v1", true, 4, 64
				st = tempStore(t)
				sum, err = (&Engine{Store: st}).Run(ctx, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if got := recordOf(t, st, sum.RunID); !reflect.DeepEqual(got, want) {
					t.Errorf("over HTTP with --concurrency auto differs:\n%s", firstDiff(got.Items, want.Items))
				}
			}

			// Killed after half its calls, then resumed.
			st = tempStore(t)
			model, err := NewSim(c.cfg.Sim)
			if err != nil {
				t.Fatal(err)
			}
			runCtx, kill := context.WithCancel(ctx)
			defer kill()
			var n atomic.Int64
			killAt := int64(max(1, want.Calls/2))
			backend := llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
				if n.Add(1) >= killAt {
					kill()
					return llm.Response{}, context.Canceled
				}
				return model.Sample(ctx, req)
			})
			cfg = c.cfg
			cfg.Concurrency = 16
			sum, err = (&Engine{Store: st, Backend: backend}).Run(runCtx, cfg)
			if err == nil {
				t.Fatalf("the run killed at call %d finished", killAt)
			}
			if _, err := (&Engine{Store: st}).Resume(ctx, sum.RunID, ""); err != nil {
				t.Fatal(err)
			}
			if got := recordOf(t, st, sum.RunID); !reflect.DeepEqual(got, want) {
				t.Errorf("killed at call %d and resumed, differs:\n%s", killAt, firstDiff(got.Items, want.Items))
			}
		})
	}
}

// failing is a model that refuses every call: a rerun must not need one.
type failing struct{}

func (failing) Sample(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{}, fmt.Errorf("the model was called")
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			// From a little before the first byte that differs: items
			// agree on their long first fields.
			at := 0
			for at < min(len(a[i]), len(b[i])) && a[i][at] == b[i][at] {
				at++
			}
			from := max(0, at-200)
			return fmt.Sprintf("from byte %d:\ngot  %.800s\nwant %.800s", from, a[i][from:], b[i][from:])
		}
	}
	return fmt.Sprintf("%d items, want %d", len(a), len(b))
}

// checkDraws checks a fresh run's calls.
func checkDraws(t *testing.T, st *store.Store, run int64) {
	t.Helper()
	calls, err := st.Calls(context.Background(), run, -1)
	if err != nil {
		t.Fatal(err)
	}
	type text struct {
		item int
		key  string
	}
	ids := map[string]bool{}
	seeds := map[string]map[int64]string{} // request text (seed aside) → seed → identity
	shared := 0
	for _, c := range calls {
		var req llm.Request
		if err := json.Unmarshal(c.Request, &req); err != nil {
			t.Fatal(err)
		}
		if req.Call == "" {
			t.Fatalf("item %d: a %s call without an identity", c.Item, c.Purpose)
		}
		if req.Share != "" {
			shared++
		} else if c.CacheHit {
			t.Errorf("item %d: %s call %s answered from the cache in a fresh run", c.Item, c.Purpose, req.Call)
		}
		id := fmt.Sprintf("%d %s", c.Item, req.Call)
		if ids[id] {
			t.Errorf("item %d: two calls with identity %s", c.Item, req.Call)
		}
		ids[id] = true
		seed := req.Seed
		req.Seed, req.Call, req.Purpose = 0, "", ""
		key := llm.CacheKey("", req)
		if seeds[key] == nil {
			seeds[key] = map[int64]string{}
		}
		if prev, ok := seeds[key][seed]; ok && req.Share == "" {
			t.Errorf("item %d: identities %s and %s sent the same text with the same seed %d", c.Item, prev, id, seed)
		}
		seeds[key][seed] = id
	}
	t.Logf("%d calls, %d of them declared shared", len(calls), shared)
}

// countingSim counts the requests reaching the simulator by cache key.
type countingSim struct {
	model llm.Sampler
	mu    sync.Mutex
	n     map[string]int
}

func (c *countingSim) Sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	c.mu.Lock()
	if req.Share != "" {
		c.n[llm.CacheKey("", req)]++
	}
	c.mu.Unlock()
	return c.model.Sample(ctx, req)
}

// TestSharedDrawsReachTheModelOnce: with the response cache off, a draw
// the method declares shared (ToT's run-wide value cache) still reaches the
// model once for the whole run, however many puzzles ask it at once; a
// server that answers a repeated request differently cannot split it.
func TestSharedDrawsReachTheModelOnce(t *testing.T) {
	t.Parallel()
	cfg, err := ApplyPreset(DefaultConfig(), "tot-game24/tot-b5")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Range, cfg.Cache, cfg.Concurrency = "900:920", llm.CacheOff, 64
	model, err := NewSim(cfg.Sim)
	if err != nil {
		t.Fatal(err)
	}
	c := &countingSim{model: model, n: map[string]int{}}
	if _, err := (&Engine{Store: tempStore(t), Backend: c}).Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if len(c.n) == 0 {
		t.Fatal("no shared draws")
	}
	for k, n := range c.n {
		if n != 1 {
			t.Errorf("shared draw %s reached the model %d times", k[:12], n)
		}
	}
}

// TestEveryStrategyHasAProbe: a strategy joins the property test above
// by its registry line alone, so that line must carry a Probe that runs
// (the task is known, the parameters valid, every declared template there)
// and say what the strategy shares; the extra configurations must name
// registered strategies and run too.
func TestEveryStrategyHasAProbe(t *testing.T) {
	t.Parallel()
	for _, s := range strategies.Registry() {
		if s.Probe.Task == "" || s.Probe.Range == "" {
			t.Errorf("strategy %s has no Probe (Spec.Probe: task and range)", s.Name)
			continue
		}
		if s.Shares == "" {
			t.Errorf("strategy %s does not say what it shares (Spec.Shares)", s.Name)
		}
		if s.Templates == nil {
			t.Errorf("strategy %s declares no templates (Spec.Templates)", s.Name)
		}
		if _, err := LookupTask(s.Probe.Task); err != nil {
			t.Logf("strategy %s: probe task %s is not in this build", s.Name, s.Probe.Task)
			continue
		}
		if err := Check(probeConfig(s)); err != nil {
			t.Errorf("strategy %s: its probe does not run: %v", s.Name, err)
		}
	}
	names := map[string]bool{}
	for _, c := range identityConfigs() {
		names[c.name] = true
	}
	for n := range runsPrograms {
		if !names[n] {
			t.Errorf("runsPrograms names %s, which is no configuration", n)
		}
	}
	for n := range sandboxProbeRange {
		if !names[n] {
			t.Errorf("sandboxProbeRange names %s, which is no configuration", n)
		}
	}
	for _, c := range extraIdentityConfigs() {
		if _, err := LookupTask(c.cfg.Task); err != nil {
			continue
		}
		if err := Check(c.cfg); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestConfigurationsDrawApart: two configurations in one database share no
// answer through the cache, even where their first calls are the same text
// with the same identity (ReAct, and Reflexion's first trial with a ReAct
// actor); the same configuration rerun does.
func TestConfigurationsDrawApart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := tempStore(t)
	eng := &Engine{Store: st}
	react := DefaultConfig()
	react.Task, react.Strategy, react.Range = "hotpotqa", "react", "0:10"
	react.Params = map[string]any{"temperature": 0.7}
	if _, err := eng.Run(ctx, react); err != nil {
		t.Fatal(err)
	}
	refl := react
	refl.Strategy = "reflexion"
	refl.Params = map[string]any{"actor": "react", "reflection": "none", "temperature": 0.7}
	sum, err := eng.Run(ctx, refl)
	if err != nil {
		t.Fatal(err)
	}
	calls, err := st.Calls(ctx, sum.RunID, -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		if c.CacheHit {
			t.Fatalf("reflexion item %d answered from the react run's cache", c.Item)
		}
	}
	again, err := (&Engine{Store: st, Backend: failing{}}).Run(ctx, refl)
	if err != nil || again.Accuracy != sum.Accuracy {
		t.Errorf("rerun: %v, accuracy %v, want %v", err, again.Accuracy, sum.Accuracy)
	}
}
