package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/store"
)

// experimentDB stores experiment exp1: cot k=2 with seeds 1, 2, 3 (one
// configuration), cot k=4 and tot once each, a cache-hit call in the first
// run; and one run outside the experiment.
func experimentDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "b.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng := &bench.Engine{Store: st}
	cfg := func(strategy string, params map[string]any, seed int64, exp string) bench.Config {
		c := bench.DefaultConfig()
		c.Task, c.Strategy, c.Range, c.Params, c.Seed, c.Experiment = "game24", strategy, "900:905", params, seed, exp
		return c
	}
	for _, c := range []bench.Config{
		cfg("cot", map[string]any{"k": 2}, 1, "exp1"),
		cfg("cot", map[string]any{"k": 2}, 2, "exp1"),
		cfg("cot", map[string]any{"k": 4}, 1, "exp1"),
		cfg("cot", map[string]any{"k": 2}, 3, "exp1"),
		cfg("tot", map[string]any{"b": 1}, 1, "exp1"),
		cfg("io", map[string]any{"k": 1}, 1, ""),
	} {
		if _, err := eng.Run(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.RecordCall(ctx, store.Call{RunID: 1, Item: 900, Purpose: "cot", PromptTokens: 300, CompletionTokens: 50,
		Requests: 1, Cost: 0.0125, CacheHit: true}); err != nil {
		t.Fatal(err)
	}
	return db
}

func TestExperimentReport(t *testing.T) {
	t.Parallel()
	db := experimentDB(t)
	code, out, stderr := cli(t, "report", "--db", db, "--experiment", "exp1", "--format", "md")
	if code != 0 {
		t.Fatalf("md: exit %d: %s", code, stderr)
	}
	t.Logf("md:\n%s", out)
	var tableRows []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| game24") {
			tableRows = append(tableRows, l)
		}
	}
	if len(tableRows) != 3 || !strings.Contains(tableRows[0], "| k=2 ") || !strings.Contains(tableRows[0], "|    3 |") ||
		!strings.Contains(tableRows[0], "] t |") || !strings.Contains(tableRows[1], "] ti |") || !strings.Contains(tableRows[2], "] W |") {
		t.Errorf("want 3 configurations, k=2 pooled over 3 runs (t over runs), k=4's items means of 4 samples (t over items), tot's 0/1 (Wilson):\n%s", out)
	}
	for _, want := range []string{"Wilson, n items", "Student-t", "over a single run's items", "sim (simulated)", "$0.0125, 350 tok", "saving 350 tokens and $0.0125"} {
		if !strings.Contains(out, want) {
			t.Errorf("md lacks %q", want)
		}
	}
	if strings.Contains(out, "| io ") {
		t.Errorf("a run outside the experiment is in its table:\n%s", out)
	}

	code, out, _ = cli(t, "report", "--db", db, "--experiment", "exp1", "--format", "latex")
	t.Logf("latex:\n%s", out)
	if code != 0 || !strings.Contains(out, `\caption{experiment exp1`) || !strings.Contains(strings.Split(out, "\n")[3], "simulated") || !strings.Contains(out, `\begin{table}`) ||
		!strings.Contains(out, `\toprule`) || !strings.Contains(out, `\bottomrule`) || strings.Count(out, `\textsuperscript{t}`) != 1 ||
		strings.Count(out, `\textsuperscript{ti}`) != 1 || strings.Count(out, `\textsuperscript{W}`) != 1 || !strings.Contains(out, `95\% CI`) {
		t.Errorf("latex: %d\n%s", code, out)
	}

	code, out, _ = cli(t, "report", "--db", db, "--experiment", "exp1", "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(recs) != 4 {
		t.Fatalf("csv: %d %v\n%s", code, err, out)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	if r := recs[1]; r[col["run_ids"]] != "1 2 4" || r[col["seeds"]] != "1 2 3" || r[col["ci_method"]] != "Student-t, 3 runs (df=2)" || r[col["saved_tokens"]] != "350" {
		t.Errorf("csv row: %v", r)
	}
	if r := recs[3]; r[col["strategy"]] != "tot" || r[col["ci_method"]] != "Wilson, 5 items" || r[col["any_at_b"]] == "" {
		t.Errorf("csv tot row: %v", r)
	}

	code, out, _ = cli(t, "report", "--db", db, "--experiment", "exp1", "--format", "json")
	var doc struct {
		Experiment     string
		Simulated      bool
		Configurations []struct {
			Label    string
			CIMethod string `json:"ci_method"`
			Accuracy float64
			CI       struct{ Low, High float64 }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(doc.Configurations) != 3 || !doc.Simulated {
		t.Fatalf("json: %d %v\n%s", code, err, out)
	}
	for _, c := range doc.Configurations {
		if c.CI.Low > c.Accuracy || c.CI.High < c.Accuracy {
			t.Errorf("%s: accuracy %v outside its interval %+v", c.Label, c.Accuracy, c.CI)
		}
	}

	// Per-run views still work, with a Wilson column; --group=false lists an experiment's runs.
	code, out, _ = cli(t, "report", "--db", db, "--experiment", "exp1", "--group=false", "--format", "csv")
	if code != 0 || strings.Count(out, "\n") != 6 || !strings.HasPrefix(out, "run,task,strategy,params,model,rule,prompts,n,accuracy,ci_low,ci_high") {
		t.Errorf("per-run csv: %d\n%s", code, out)
	}
	if code, out, _ = cli(t, "report", "--db", db, "--runs", "1,2,6", "--group"); code != 0 || !strings.Contains(out, "| io ") || strings.Count(out, "| game24 |") != 2 {
		t.Errorf("--runs --group: %d\n%s", code, out)
	}
	if code, _, stderr = cli(t, "report", "--db", db, "--experiment", "nope"); code != 2 || !strings.Contains(stderr, `experiment "nope" has no runs`) {
		t.Errorf("unknown experiment: %d %s", code, stderr)
	}
}

func TestPlot(t *testing.T) {
	t.Parallel()
	db := experimentDB(t)
	dir := t.TempDir()
	svg := filepath.Join(dir, "fig.svg")
	code, out, stderr := cli(t, "plot", "--db", db, "--experiment", "exp1", "--x", "tokens", "--y", "accuracy", "--out", svg)
	if code != 0 || !strings.Contains(out, "3 configurations from 5 runs") {
		t.Fatalf("plot: %d %s %s", code, out, stderr)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, "<svg") || !strings.Contains(s, "(simulated)") {
		t.Errorf("not the SVG plot: %.300s", s)
	}
	for _, label := range []string{">cot k=2<", ">cot k=4<", ">tot b=1<"} {
		if strings.Count(s, label) != 1 {
			t.Errorf("svg has %d labels %s, want 1", strings.Count(s, label), label)
		}
	}
	pngFile := filepath.Join(dir, "fig.png")
	if code, _, stderr = cli(t, "plot", "--db", db, "--runs", "1,2,3", "--x", "calls", "--logx", "--out", pngFile); code != 0 {
		t.Fatalf("png: %d %s", code, stderr)
	}
	f, err := os.Open(pngFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("png: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--experiment", "exp1"}, "no --out"},
		{[]string{"--experiment", "exp1", "--out", filepath.Join(dir, "x.gif")}, "want .svg, .png or .pdf"},
		{[]string{"--experiment", "exp1", "--x", "flops", "--out", svg}, `--x "flops"`},
		{[]string{"--experiment", "exp1", "--kind", "trials", "--out", svg}, "no configuration reports per-trial accuracy"},
		{[]string{"--experiment", "none", "--out", svg}, `experiment "none" has no runs`},
	} {
		code, _, stderr := cli(t, append([]string{"plot", "--db", db}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestExport(t *testing.T) {
	t.Parallel()
	db := experimentDB(t)
	out := filepath.Join(t.TempDir(), "run5.jsonl")
	if code, _, stderr := cli(t, "export", "5", "--db", db, "--out", out, "--calls"); code != 0 {
		t.Fatalf("export: %d %s", code, stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	var lines []map[string]json.RawMessage
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d: %v", len(lines)+1, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 6 {
		t.Fatalf("%d lines, want header + 5 items", len(lines))
	}
	var header struct {
		Run struct {
			ID         int64
			Experiment string
			Strategy   string
			Spec       struct{ Config struct{ Task, Range string } }
			Items      int
		}
	}
	raw, _ := json.Marshal(lines[0])
	if err := json.Unmarshal(raw, &header); err != nil || header.Run.ID != 5 || header.Run.Experiment != "exp1" ||
		header.Run.Strategy != "tot" || header.Run.Spec.Config.Task != "game24" || header.Run.Items != 5 {
		t.Errorf("header %s: %+v %v", raw, header, err)
	}
	var item struct {
		Idx     int
		Input   string
		Correct *bool
		Metrics map[string]float64
		Tree    []struct{ ID, Parent int }
		Calls   []struct{ Purpose string }
	}
	raw, _ = json.Marshal(lines[1])
	if err := json.Unmarshal(raw, &item); err != nil || item.Idx != 900 || item.Input == "" || item.Correct == nil ||
		len(item.Tree) == 0 || item.Tree[0].Parent != -1 || len(item.Calls) == 0 || item.Metrics == nil {
		t.Errorf("item: %+v %v", item, err)
	}
	// Without --calls, to stdout.
	code, stdout, _ := cli(t, "export", "1", "--db", db)
	if code != 0 || strings.Count(stdout, "\n") != 6 || strings.Contains(stdout, `"calls":[`) || !strings.HasPrefix(stdout, `{"run":{"id":1,`) {
		t.Errorf("export to stdout: %d\n%.400s", code, stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--db", db}, "usage: bench export RUN"},
		{[]string{"export", "99", "--db", db}, "run 99: not found"},
		{[]string{"export", "1", "--db", db, "--format", "csv"}, `unknown format "csv"`},
	} {
		code, _, stderr := cli(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
