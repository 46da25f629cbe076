package bench

import (
	"context"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	simgame24 "github.com/reasonbench/reasonbench/simulator/game24"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

// BenchmarkHarnessOverheadPerCompletion measures what the harness adds to
// each sampled completion with the in-process simulator: prompt rendering,
// the middleware chain (limit, meter), scoring with the exact parser, and
// the simulator itself. One op is one CoT completion (k=100 per call); the
// store is left out here because it is measured per call below.
func BenchmarkHarnessOverheadPerCompletion(b *testing.B) {
	model, err := sim.New(sim.DefaultParams(), simgame24.NewResponder())
	if err != nil {
		b.Fatal(err)
	}
	lib, err := prompts.Bundled()
	if err != nil {
		b.Fatal(err)
	}
	task := game24.NewTask()
	insts, err := task.Instances()
	if err != nil {
		b.Fatal(err)
	}
	perCompletion(b, model, task, lib, func(i int) tasks.Instance { return insts[900+i%100] })
}

// perCompletion solves CoT k=100 on puzzles from pick until b.N completions
// are sampled, through the middlewares a run uses, and reports the time per
// completion.
func perCompletion(b *testing.B, model llm.Sampler, task tasks.Task, lib *prompts.Library, pick func(int) tasks.Instance) {
	b.Helper()
	spec, _ := strategies.Lookup("cot")
	v, _ := param.Resolve(spec.Params, map[string]any{"k": 100})
	strat, _ := spec.New(v)
	base := llm.Chain(model, llm.Limit(16))
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	completions := 0
	for i := 0; completions < b.N; i++ {
		env := strategies.Env{Sampler: base, Task: task, Prompts: lib, Seed: int64(i)}
		if _, err := strat.Solve(ctx, env, pick(i)); err != nil {
			b.Fatal(err)
		}
		completions += 100
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(completions)/1e3, "µs/completion")
}

// BenchmarkRunPerCompletion is the whole engine with the SQLite store: a CoT
// k=10 run over the hard set, per completion.
func BenchmarkRunPerCompletion(b *testing.B) {
	st := tempStore(b)
	eng := &Engine{Store: st}
	cfg := cotConfig(10, "900:1000")
	b.ResetTimer()
	for range b.N {
		if _, err := eng.Run(context.Background(), cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000)/1e3, "µs/completion")
}

// canned replays fixed completions: what is left is the harness alone.
type canned struct{ texts []string }

func (c canned) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	resp := llm.Response{Usage: llm.Usage{Requests: 1, PromptTokens: 300}}
	for i := range req.Samples() {
		resp.Choices = append(resp.Choices, llm.Choice{Index: i, Content: c.texts[i%len(c.texts)]})
	}
	return resp, nil
}

// BenchmarkHarnessOnlyPerCompletion is the harness without any model: prompt
// rendering, middlewares, exact scoring of every sample.
func BenchmarkHarnessOnlyPerCompletion(b *testing.B) {
	lib, err := prompts.Bundled()
	if err != nil {
		b.Fatal(err)
	}
	task := game24.NewTask()
	insts, _ := task.Instances()
	model := canned{texts: []string{
		"Steps:\n10 - 4 = 6 (left: 5 6 6)\n6 / 6 = 1 (left: 1 5)\n1 * 5 = 5 (left: 5)\nAnswer: (6 / (10 - 4)) * 5 = 24",
		"Steps:\n4 * 5 = 20 (left: 6 10 20)\n10 - 6 = 4 (left: 4 20)\n4 + 20 = 24 (left: 24)\nAnswer: (4 * 5) + (10 - 6) = 24",
	}}
	perCompletion(b, model, task, lib, func(int) tasks.Instance { return insts[900] })
}

// BenchmarkToTConcurrency runs ToT b=5 on the 100 hard puzzles against the
// simulator served over HTTP with a fixed latency, and reports the wall
// time against two lower bounds: the critical path (the longest chain of
// dependent calls: propose then value at each of 4 depths, times the
// latency) and the work bound (HTTP requests times latency divided by the
// concurrency). The run can be no faster than the larger of the two.
func BenchmarkToTConcurrency(b *testing.B) {
	latency := benchLatency()
	const concurrency = 64
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "tot", "900:1000"
	cfg.Params = map[string]any{"b": 5}
	cfg.Concurrency = concurrency
	cfg.Cache = llm.CacheOff
	model, err := NewSim(cfg.Sim)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(llm.NewServer(model, llm.ServerOptions{Latency: latency}))
	defer srv.Close()
	cfg.BaseURL = srv.URL + "/v1"
	for range b.N {
		st := tempStore(b)
		start := time.Now()
		sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		wall := time.Since(start)
		critical := 8 * latency
		work := time.Duration(sum.Requests) * latency / concurrency
		bound := max(critical, work)
		b.ReportMetric(wall.Seconds(), "wall_s")
		b.ReportMetric(critical.Seconds(), "critical_path_s")
		b.ReportMetric(work.Seconds(), "work_bound_s")
		b.ReportMetric(wall.Seconds()/critical.Seconds(), "x_critical")
		b.ReportMetric(wall.Seconds()/bound.Seconds(), "x_bound")
		b.ReportMetric(float64(sum.Requests), "requests")
	}
}

// benchLatency is the injected latency of BenchmarkToTConcurrency
// (REASONBENCH_LATENCY, default 20ms).
func benchLatency() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("REASONBENCH_LATENCY")); err == nil {
		return d
	}
	return 20 * time.Millisecond
}
