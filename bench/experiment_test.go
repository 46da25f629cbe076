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
