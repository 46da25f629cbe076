package bench

import (
	"context"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/sandbox"
	"github.com/reasonbench/reasonbench/sandbox/sandboxtest"
	simcode "github.com/reasonbench/reasonbench/simulator/code"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
)

// The programming presets are the logged runs: the task, its whole range,
// the protocol version of the logged MBPP run, its iterations, and
// parameters the strategy accepts.
func TestReflexionCodePresets(t *testing.T) {
	spec, err := strategies.Lookup("reflexion_code")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, task, rng, strategy string
		iters                     int
	}{
		{"reflexion-mbpp/simple", "mbpp", "0:397", "simple", 5},
		{"reflexion-mbpp/reflexion", "mbpp", "0:397", "reflexion", 5},
		{"reflexion-humaneval/simple", "humaneval", "0:164", "simple", 5},
		{"reflexion-humaneval/reflexion", "humaneval", "0:164", "reflexion", 10},
	} {
		cfg, err := ApplyPreset(DefaultConfig(), c.name)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Task != c.task || cfg.Range != c.rng || cfg.Strategy != "reflexion_code" {
			t.Errorf("%s: task %s range %s strategy %s", c.name, cfg.Task, cfg.Range, cfg.Strategy)
		}
		// The logged verdicts are the reference executor's: the paper's rule.
		if cfg.Rule != "reference" {
			t.Errorf("%s: rule %q, want reference", c.name, cfg.Rule)
		}
		if task, err := OpenTask(cfg.Task, cfg.TaskSpec, cfg.Rule); err != nil {
			t.Errorf("%s: %v", c.name, err)
		} else if r, ok := task.(interface{ ScoringRule() string }); !ok || r.ScoringRule() == "" {
			t.Errorf("%s: the task names no rule", c.name)
		}
		v, err := param.Resolve(spec.Params, cfg.Params)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if v.String("strategy") != c.strategy || v.String("version") != strategies.CodeVersionLogged || v.Int("max_iters") != c.iters ||
			v.Float("temperature") != 0 || v.Int("max_tests") != 0 {
			t.Errorf("%s: %v", c.name, v)
		}
		// The reference's internal tests share its executor's namespace.
		if want := map[string]string{"simple": "isolated", "reflexion": "shared"}[c.strategy]; v.String("namespace") != want {
			t.Errorf("%s: namespace %s, want %s", c.name, v.String("namespace"), want)
		}
		// --set wins over the preset.
		cfg, err = ApplyPreset(Config{Params: map[string]any{"version": "current"}}, c.name)
		if err != nil || cfg.Params["version"] != "current" {
			t.Errorf("%s with --set version=current: %v %v", c.name, cfg.Params, err)
		}
	}
}

// mbppTestWriter is the simulator with one skill added for the MBPP
// preset's benchmark: MBPP's docstrings have no examples, from which the
// simulated model writes its internal tests, so a test-writing call is
// answered with the problem's own asserts (its hidden tests, candidate
// named by the entry point). Every other call is the simulator's: its
// first implementation returns a zero value, fails those tests, and its
// improved ones answer the failing cases the feedback shows, so each
// problem execs its tests, output fetches and implementations in the
// shared namespace.
type mbppTestWriter struct {
	sim   llm.Sampler
	tests map[string]string // by prompt
}

func newMBPPTestWriter(tb testing.TB, model llm.Sampler) *mbppTestWriter {
	tb.Helper()
	task, err := OpenTask("mbpp", "", "")
	if err != nil {
		tb.Fatal(err)
	}
	insts, err := task.Instances()
	if err != nil {
		tb.Fatal(err)
	}
	w := &mbppTestWriter{sim: model, tests: map[string]string{}}
	for _, inst := range insts {
		p := task.(tasks.Coding).Problem(inst)
		var asserts []string
		for _, line := range strings.Split(task.(tasks.TestShower).HiddenTests(inst), "\n") {
			if line = strings.TrimSpace(line); strings.HasPrefix(line, "assert candidate(") {
				asserts = append(asserts, strings.ReplaceAll(line, "candidate(", p.EntryPoint+"("))
			}
		}
		w.tests[p.Prompt] = strings.Join(asserts, "\n")
	}
	return w
}

func (w *mbppTestWriter) Sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	if len(req.Messages) == 2 && strings.HasPrefix(req.Messages[0].Content, simcode.MarkerRCTests) {
		user := req.Messages[1].Content
		const sig = "\n\nfunc signature:\n" // after the examples, which have one too
		if i := strings.LastIndex(user, sig); i >= 0 {
			if tests, ok := w.tests[strings.TrimSuffix(user[i+len(sig):], "\nunit tests:")]; ok {
				return llm.Response{Choices: []llm.Choice{{Content: tests, FinishReason: "stop"}}}, nil
			}
		}
	}
	return w.sim.Sample(ctx, req)
}

// noSessions is a sandbox that keeps no sessions: the shared namespace is
// then replayed in a program per test, as before sessions.
type noSessions struct{ sandbox.Runner }

// runMBPPPreset runs --preset reflexion-mbpp/reflexion on rng against
// the simulator and returns the run's items (each with its wall time) and
// the number of internal tests and output fetches they ran; replayed,
// without sessions.
func runMBPPPreset(tb testing.TB, rng string, replayed bool) ([]store.Item, int) {
	tb.Helper()
	r := sandboxtest.Runner(tb)
	ctx := context.Background()
	cfg, err := ApplyPreset(DefaultConfig(), "reflexion-mbpp/reflexion")
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Range = rng
	model, err := NewSim(cfg.Sim)
	if err != nil {
		tb.Fatal(err)
	}
	st := tempStore(tb)
	e := &Engine{Store: st, Backend: newMBPPTestWriter(tb, model)}
	if replayed {
		e.Sandbox = noSessions{r}
	}
	sum, err := e.Run(ctx, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	items, err := st.Items(ctx, sum.RunID)
	if err != nil {
		tb.Fatal(err)
	}
	steps := 0
	for _, it := range items {
		execs, err := st.Executions(ctx, sum.RunID, it.Index)
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range execs {
			if strings.Contains(e.Site, "/internal/") {
				steps++
			}
		}
	}
	return items, steps
}

// meanWall is the mean wall time of items[from:to], in seconds.
func meanWall(items []store.Item, from, to int) float64 {
	var s float64
	for _, it := range items[from:to] {
		s += it.WallSeconds
	}
	return s / float64(to-from)
}

// BenchmarkReflexionMBPPPreset is --preset reflexion-mbpp/reflexion on
// all 397 MBPP problems against the simulator (mbppTestWriter), the
// shared namespace and all: the seconds per problem of the first 50 and
// of the last 50 (flat when each step costs the same however long the
// run), and of the whole run (docs/reflexion-code.md has the figures).
//
//	go test -run XXX -bench ReflexionMBPPPreset -benchtime 1x ./bench/
func BenchmarkReflexionMBPPPreset(b *testing.B) {
	benchMBPPPreset(b, "0:397", false)
}

// BenchmarkReflexionMBPPPresetReplayed is the same on the first 100
// problems with the namespace replayed in a program per test (the
// executor keeping no sessions), as before: its cost per problem grows
// with the run.
func BenchmarkReflexionMBPPPresetReplayed(b *testing.B) {
	benchMBPPPreset(b, "0:100", true)
}

func benchMBPPPreset(b *testing.B, rng string, replayed bool) {
	want, err := tasks.ParseRange(rng, 397)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		start := time.Now()
		items, steps := runMBPPPreset(b, rng, replayed)
		total := time.Since(start)
		if len(items) != want.End-want.Start {
			b.Fatalf("%d items", len(items))
		}
		solved := 0
		for _, it := range items {
			if it.Error != "" {
				b.Fatalf("item %d: %s", it.Index, it.Error)
			}
			if it.Correct {
				solved++
			}
		}
		b.ReportMetric(meanWall(items, 0, 50), "s/problem-first50")
		b.ReportMetric(meanWall(items, len(items)-50, len(items)), "s/problem-last50")
		b.ReportMetric(total.Seconds(), "s/run")
		b.ReportMetric(float64(steps), "tests+fetches")
		b.ReportMetric(float64(solved), "solved")
	}
}

// The benchmark's workload: every MBPP problem gets asserts, and on the
// first problems the preset runs tests and output fetches in the shared
// namespace, each item done without error.
func TestReflexionMBPPPresetWorkload(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a few problems in the sandbox")
	}
	w := newMBPPTestWriter(t, nil)
	if len(w.tests) != 397 {
		t.Fatalf("%d problems", len(w.tests))
	}
	for prompt, tests := range w.tests {
		if !strings.HasPrefix(tests, "assert ") || strings.Contains(tests, "candidate(") {
			t.Errorf("%.60q: tests %q", prompt, tests)
		}
	}
	items, steps := runMBPPPreset(t, "0:6", false)
	if len(items) != 6 || steps < 12 {
		t.Fatalf("%d items, %d tests and fetches", len(items), steps)
	}
	for _, it := range items {
		if it.Error != "" || it.Metrics["iterations"] < 1 {
			t.Errorf("item %d: %q %v", it.Index, it.Error, it.Metrics)
		}
	}
	t.Logf("%d tests and fetches; seconds per problem %.2f", steps, meanWall(items, 0, len(items)))
}

// The preset's shared namespace on the benchmark's workload gives the
// same run at concurrency 1 and 64 and killed midway then resumed (its
// interpreter rebuilt from the stored items): items, calls, steps and
// every recorded test and output fetch.
func TestReflexionMBPPPresetSameRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs problems in the sandbox three times")
	}
	sandboxtest.Runner(t)
	ctx := context.Background()
	cfg, err := ApplyPreset(DefaultConfig(), "reflexion-mbpp/reflexion")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Range = "0:8"
	model, err := NewSim(cfg.Sim)
	if err != nil {
		t.Fatal(err)
	}
	writer := newMBPPTestWriter(t, model)
	run := func(conc int, backend llm.Sampler, ctx context.Context) (*store.Store, int64, error) {
		st := tempStore(t)
		c := cfg
		c.Concurrency = conc
		sum, err := (&Engine{Store: st, Backend: backend}).Run(ctx, c)
		return st, sum.RunID, err
	}
	st, id, err := run(1, writer, ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := recordOf(t, st, id)
	if st, id, err = run(64, writer, ctx); err != nil {
		t.Fatal(err)
	}
	if got := recordOf(t, st, id); !reflect.DeepEqual(got, want) {
		t.Errorf("concurrency 64 differs:\n%s", firstDiff(got.Items, want.Items))
	}
	killCtx, kill := context.WithCancel(ctx)
	defer kill()
	var n atomic.Int64
	killAt := int64(want.Calls / 2)
	backend := llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		if n.Add(1) >= killAt {
			kill()
			return llm.Response{}, context.Canceled
		}
		return writer.Sample(ctx, req)
	})
	st, id, err = run(4, backend, killCtx)
	if err == nil {
		t.Fatalf("the run killed at call %d finished", killAt)
	}
	if items, err := st.Items(ctx, id); err != nil || len(items) == 0 || len(items) >= 8 {
		t.Fatalf("killed at call %d with %d items stored (%v): not midway", killAt, len(items), err)
	}
	if _, err := (&Engine{Store: st, Backend: writer}).Resume(ctx, id, ""); err != nil {
		t.Fatal(err)
	}
	if got := recordOf(t, st, id); !reflect.DeepEqual(got, want) {
		t.Errorf("killed at call %d and resumed, differs:\n%s", killAt, firstDiff(got.Items, want.Items))
	}
}
