package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/store"
)

func TestParseExperimentExpands(t *testing.T) {
	t.Parallel()
	src := `name: abl
task: game24
range: "900:905"
seeds: [3, 4]
sim: {skill: 0.4}
strategies:
  - cot: {k: 10}
  - tot: {b: [1, 2, 5], n_evaluate: [1, 3]}
`
	exp, err := ParseExperiment("abl.yaml", []byte(src), DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if exp.ID != "abl" || len(exp.Runs) != (1+3*2)*2 {
		t.Fatalf("id %s, %d runs, want 14", exp.ID, len(exp.Runs))
	}
	first, last := exp.Runs[0], exp.Runs[len(exp.Runs)-1]
	if first.Strategy != "cot" || first.Seed != 3 || first.Params["k"] != 10 || first.Sim.Skill != 0.4 || first.Experiment != "abl" {
		t.Errorf("first run %+v", first)
	}
	if last.Strategy != "tot" || last.Seed != 4 || last.Params["b"] != 5 || last.Params["n_evaluate"] != 3 {
		t.Errorf("last run %+v", last)
	}
	exp, err = ParseExperiment("abl.yaml", []byte(src), DefaultConfig(), 3)
	if err != nil || len(exp.Runs) != 7*3 || exp.Runs[2].Seed != DefaultConfig().Seed+2 {
		t.Errorf("--repeats 3: %d runs, %v", len(exp.Runs), err)
	}
}

func TestParseExperimentErrorsPointAtTheLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		src, want string
	}{
		{"task: game24\ntemperture: 1\nstrategies: [{cot: {}}]\n", `x.yaml:2: unknown key "temperture" (allowed: name, task, range`},
		{"task: game24\nstrategies:\n  - cot: {kk: 3}\n", `x.yaml:3: unknown parameter "kk" (allowed: k, temperature`},
		{"task: game24\nstrategies:\n  - cot: {k: three}\n", "x.yaml:3: cot: parameter k=three: want a whole number"},
		{"task: game24\nstrategies:\n  - magic: {}\n", `x.yaml:3: unknown strategy "magic"`},
		{"task: game24\nrepeats: two\nstrategies: [{cot: {}}]\n", "x.yaml:2: repeats: want a whole number"},
		{"task: game24\nsim: {skil: 1}\nstrategies: [{cot: {}}]\n", "x.yaml:2: unknown key sim.skil (allowed: skill, slip"},
		{"task: game24\n", "strategies: want a list"},
		{"task: chess\nstrategies: [{cot: {}}]\n", `unknown task "chess"`},
		{"task: game24\nrange: 5:1\nstrategies: [{cot: {}}]\n", "bad range"},
		{"- just a list\n", "want a mapping"},
	}
	for _, c := range cases {
		_, err := ParseExperiment("x.yaml", []byte(c.src), DefaultConfig(), 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %q", c.src, err, c.want)
		}
	}
}

func TestExampleExperimentsRun(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "experiments", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example experiments: %v", err)
	}
	for _, f := range files {
		exp, err := LoadExperiment(f, DefaultConfig(), 0)
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if len(exp.Runs) == 0 {
			t.Errorf("%s: no runs", f)
		}
	}
}

func TestRunExperimentContinues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "e.yaml")
	os.WriteFile(path, []byte("task: game24\nrange: \"900:903\"\nrepeats: 2\nstrategies:\n  - cot: {k: [1, 2]}\n"), 0o644)
	exp, err := LoadExperiment(path, DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	st := tempStore(t)
	eng := &Engine{Store: st}
	first, err := eng.RunExperiment(ctx, exp, Keys{})
	if err != nil || len(first) != 4 {
		t.Fatalf("%d runs, %v", len(first), err)
	}
	again, err := eng.RunExperiment(ctx, exp, Keys{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range again {
		if again[i].RunID != first[i].RunID || again[i].Accuracy != first[i].Accuracy {
			t.Errorf("rerun %d: run %d, want the finished run %d kept", i, again[i].RunID, first[i].RunID)
		}
	}
	runs, _ := st.Runs(ctx, storeFilter("e"))
	if len(runs) != 4 {
		t.Errorf("%d runs stored for the experiment, want 4", len(runs))
	}
}

func storeFilter(experiment string) store.RunFilter { return store.RunFilter{Experiment: experiment} }

func TestExperimentBaseline(t *testing.T) {
	t.Parallel()
	exp, err := ParseExperiment("x.yaml", []byte("task: game24\nbaseline: cotsc\nstrategies: [{cot: {}}, {cotsc: {k: 5}}]\n"), DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range exp.Runs {
		if c.Baseline != "cotsc" {
			t.Errorf("run %s: baseline %q, want cotsc recorded with every run", c.Strategy, c.Baseline)
		}
	}
	for _, bad := range []string{"baseline: tot\n", "baseline: ''\n", "baseline: [cot]\n"} {
		if _, err := ParseExperiment("x.yaml", []byte("task: game24\n"+bad+"strategies: [{cot: {}}]\n"), DefaultConfig(), 0); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

// TestParseExperimentMessages holds every message of an experiment file's
// keys to its wording and line: the value's, or the entry's or key's
// inside it.
func TestParseExperimentMessages(t *testing.T) {
	t.Parallel()
	const strat = "strategies: [{cot: {}}]\n"
	for _, c := range []struct{ src, want string }{
		{"task: game24\nseeds: [3, x]\n" + strat, `x.yaml:2: seeds: want a whole number, got "x"`},
		{"task: game24\nseeds:\n  - 3\n  - x\n" + strat, `x.yaml:4: seeds: want a whole number, got "x"`},
		{"task: game24\nseeds: []\n" + strat, "x.yaml:2: seeds: want a list of whole numbers"},
		{"task: game24\nseeds:\n" + strat, "x.yaml:2: seeds: want a list of whole numbers"},
		{"task: game24\nseeds: [3, 4]\nrepeats: 3\n" + strat, "x.yaml:1: repeats 3 but 2 seeds: give one or the other"},
		{"task: game24\nrepeats: 0\n" + strat, "x.yaml:2: repeats: want at least 1"},
		{"task: game24\nrepeats: 1.5\n" + strat, `x.yaml:2: repeats: want a whole number, got "1.5"`},
		{"task: [game24]\n" + strat, "x.yaml:1: task: want text"},
		{"task: game24\nconcurrency: \"3\"\n" + strat, `x.yaml:2: concurrency: want a whole number, got "3"`},
		{"task: game24\ntimeout_seconds:\n" + strat, `x.yaml:2: timeout_seconds: want a whole number, got ""`},
		{"task: game24\nseed: 1.5\n" + strat, `x.yaml:2: seed: want a whole number, got "1.5"`},
		{"task: game24\nname: [a]\n" + strat, "x.yaml:2: name: want text"},
		{"task: game24\ntemperture: 1\n" + strat, `x.yaml:2: unknown key "temperture" (allowed: name, task, range, model, base_url, concurrency, seed, seeds, repeats, cache, timeout_seconds, retries, prompts, sim, strategies, task_spec, scorer, baseline, verifier, mcp, tool_cache, endpoints)`},
		{"- just a list\n", "x.yaml:1: want a mapping with keys name, task, range, model, base_url, concurrency, seed, seeds, repeats, cache, timeout_seconds, retries, prompts, sim, strategies, task_spec, scorer, baseline, verifier, mcp, tool_cache, endpoints"},
		{"task: game24\nsim: {skil: 1}\n" + strat, "x.yaml:2: unknown key sim.skil (allowed: skill, slip, misjudge, boost, focus, verify_flip, verify_spread, conformity)"},
		{"task: game24\nsim: {skill: high}\n" + strat, "x.yaml:2: sim.skill: want a number"},
		{"task: game24\nsim: 0.5\n" + strat, "x.yaml:2: sim: want a mapping like {skill: 0.5}"},
		{"task: game24\nsim:\n  skill: 0.3\n  slip: \"0.1\"\n" + strat, "x.yaml:4: sim.slip: want a number"},
		{"task: game24\nmodel:\n  nmae: x\n" + strat, "x.yaml:3: unknown key model.nmae (allowed: name, api, think, think_tags, max_tokens_field, params, base_urls, user_model)"},
		{"task: game24\nmodel:\n  name: [x]\n" + strat, "x.yaml:3: model.name: want text"},
		{"task: game24\nmodel: [x]\n" + strat, "x.yaml:2: model: want text"},
		{"task: game24\nmodel:\n  params: [1]\n" + strat, "x.yaml:3: model.params: want a mapping like {reasoning_effort: high}"},
		{"task: game24\nmodel:\n  params:\n    top_k: 5\n    seed: 0\n" + strat, "x.yaml:5: model.params: --param seed: bench sets seed itself; use --seed"},
		{"task: game24\nmodel:\n  params:\n    a: {1: 2}\n" + strat, "x.yaml:4: model.params.a: not representable as JSON: json: unsupported type: map[interface {}]interface {}"},
		{"task: game24\nmodel:\n  name: m\n  base_urls: http://a/v1\n" + strat, "x.yaml:4: model.base_urls: want a list of base URLs, e.g. [http://node1:8000/v1, http://node2:8000/v1]"},
		{"task: game24\nmodel:\n  name: m\n  base_urls:\n    - http://a/v1\n    - \"http://a/v1,http://b/v1\"\n" + strat, "x.yaml:6: model.base_urls: want one base URL per entry"},
		{"task: game24\nverifier: {kind: rm}\n" + strat, `x.yaml:2: verifier: --verifier-kind "rm": want one of prm, orm, llm`},
		{"task: game24\nverifier:\n  sep: x\n  sepp: x\n" + strat, "x.yaml:4: unknown key verifier.sepp (allowed: model, base_url, kind, sep, server, system, samples)"},
		{"task: game24\nverifier: {samples: many}\n" + strat, `x.yaml:2: verifier.samples: want a whole number, got "many"`},
		{"task: game24\nverifier: prm\n" + strat, "x.yaml:2: verifier: want a mapping like {kind: prm, model: Qwen/Qwen2.5-Math-PRM-7B, base_url: http://127.0.0.1:8001}"},
		{"task: game24\nendpoints: [a]\n" + strat, `x.yaml:2: endpoints: want a mapping like {local: "http://127.0.0.1:8000/v1", openai: "https://api.openai.com/v1,OPENAI_API_KEY"}`},
		{"task: game24\nendpoints:\n  local: [a]\n" + strat, "x.yaml:3: endpoints: local: want text"},
		{"task: game24\nendpoints:\n  local: \"http://127.0.0.1:8000/v1\"\n  local: \"http://127.0.0.1:8001/v1\"\n" + strat, "x.yaml:4: endpoints: local is named twice (in the file, or by --endpoint too): name each endpoint once"},
		{"task: hotpotqa\nmcp: [a]\nstrategies:\n  - react: {}\n", "x.yaml:2: mcp: want a mapping of server names to a command, a URL or {command, args, env, url}"},
		{"task: game24\nbaseline: ''\n" + strat, "x.yaml:2: baseline: want a strategy, optionally with parameters, e.g. `baseline: cotsc` or `baseline: tot b=1`"},
		{"task: game24\nbaseline: [cot]\n" + strat, "x.yaml:2: baseline: want text"},
		{"task: game24\nbaseline: tot\n" + strat, `x.yaml:1: baseline "tot": no strategy tot in strategies`},
		{"task: game24\nstrategies: {cot: {}}\n", "x.yaml:1: strategies: want a list like `- cot: {k: 10}`"},
		{"task: &a game24\nrange: *a\n" + strat, "x.yaml:2: range: want text"},
	} {
		_, err := ParseExperiment("x.yaml", []byte(c.src), DefaultConfig(), 0)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
	}
}

// TestExperimentUserModel: the model block names the simulated user's
// model, which goes to every run, and is refused on a task without one.
func TestExperimentUserModel(t *testing.T) {
	t.Parallel()
	src := "task: tau-airline\nrange: \"0:2\"\nendpoints: {users: \"http://127.0.0.1:9/v1\"}\nmodel:\n  name: sim\n  user_model: u-model@users\nstrategies:\n  - react: {protocol: [tools, act]}\n"
	exp, err := ParseExperiment("u.yaml", []byte(src), DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(exp.Runs))
	}
	for _, c := range exp.Runs {
		if c.UserModel != "u-model@users" || c.Model != SimModel {
			t.Errorf("run %v: user model %q, model %q", c.Params, c.UserModel, c.Model)
		}
	}
	if _, err := ParseExperiment("u.yaml", []byte(strings.Replace(src, "@users", "@nowhere", 1)), DefaultConfig(), 0); err == nil || !strings.Contains(err.Error(), "--user-model") {
		t.Errorf("a user model on an endpoint not named: %v", err)
	}
	game := "task: game24\nmodel:\n  user_model: u\nstrategies: [{cot: {}}]\n"
	if _, err := ParseExperiment("u.yaml", []byte(game), DefaultConfig(), 0); err == nil || !strings.Contains(err.Error(), "task game24 has no simulated user") {
		t.Errorf("a user model on game24: %v", err)
	}
}
