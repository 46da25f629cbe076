package main

import (
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/store"
)

// pairedDB stores experiment "p": cot and io and cotsc k=3, baseline cotsc
// as the experiment file's baseline: key records it, and a rerun of io
// with the same seed outside any experiment.
func pairedDB(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "p.db")
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng := &bench.Engine{Store: st}
	for _, s := range []struct {
		strategy string
		params   map[string]any
		exp      string
	}{
		{"cot", nil, "p"}, {"io", nil, "p"}, {"cotsc", map[string]any{"k": 3}, "p"}, {"io", nil, ""}, {"io", nil, ""},
	} {
		c := bench.DefaultConfig()
		c.Task, c.Strategy, c.Range, c.Params, c.Experiment = "game24", s.strategy, "900:930", s.params, s.exp
		if s.exp != "" {
			c.Baseline = "cotsc"
		}
		if _, err := eng.Run(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func TestExperimentPairedColumns(t *testing.T) {
	t.Parallel()
	db := pairedDB(t)
	code, out, stderr := cli(t, "report", "--db", db, "--experiment", "p")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"vs baseline", "paired 95% CI", "p (Holm)", "baseline |", "Newcombe", "Minimum detectable difference at these n", "(cotsc k=3)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// --baseline RUN overrides the file's baseline.
	code, out, _ = cli(t, "report", "--db", db, "--experiment", "p", "--baseline", "1", "--format", "json")
	var doc struct {
		Configurations []struct {
			Strategy   string
			IsBaseline bool `json:"is_baseline"`
			VsBaseline *struct {
				Baseline   int64
				Difference float64
				CI         []float64
				PHolm      *float64 `json:"p_holm"`
			} `json:"vs_baseline"`
			ParamsJSON json.RawMessage `json:"params_json"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(doc.Configurations) != 3 {
		t.Fatalf("json: %d %v\n%s", code, err, out)
	}
	for _, c := range doc.Configurations {
		if (c.Strategy == "cot") != c.IsBaseline || (c.VsBaseline == nil) != c.IsBaseline {
			t.Errorf("%s: baseline %v, comparison %+v", c.Strategy, c.IsBaseline, c.VsBaseline)
		}
		if c.VsBaseline != nil && (c.VsBaseline.Baseline != 1 || c.VsBaseline.PHolm == nil) {
			t.Errorf("%s: %+v", c.Strategy, c.VsBaseline)
		}
		if len(c.ParamsJSON) == 0 || c.ParamsJSON[0] != '{' {
			t.Errorf("%s: params_json %s, want a JSON object", c.Strategy, c.ParamsJSON)
		}
	}
	if code, _, stderr := cli(t, "report", "--db", db, "--experiment", "p", "--baseline", "4"); code != 2 || !strings.Contains(stderr, "not among the selected runs") {
		t.Errorf("--baseline outside: %d %s", code, stderr)
	}
}

// TestGroupSameSeedReruns: two runs of one configuration with the same
// seed are a rerun, not two repeats: no zero-width Student-t interval.
func TestGroupSameSeedReruns(t *testing.T) {
	t.Parallel()
	db := pairedDB(t)
	code, out, stderr := cli(t, "report", "--db", db, "--runs", "4,5", "--group")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(out, "] t") || !strings.Contains(out, "] W") || !strings.Contains(out, "reruns, not repeats") ||
		!strings.Contains(out, "No repeats with other seeds for io") {
		t.Errorf("same-seed reruns pooled as repeats:\n%s", out)
	}
}

func TestPlotFrontier(t *testing.T) {
	t.Parallel()
	db := pairedDB(t)
	out := filepath.Join(t.TempDir(), "f.png")
	code, stdout, stderr := cli(t, "plot", "--db", db, "--experiment", "p", "--frontier", "--out", out)
	if code != 0 || !strings.Contains(stdout, "Pareto frontier") {
		t.Fatalf("plot --frontier: %d %s %s", code, stdout, stderr)
	}
	// The frontier, cheapest first: each point costs more and scores
	// higher than the one before, and the cheapest configuration (io k=1)
	// opens it whatever it scored.
	var prevTok, prevAcc float64 = -1, -1
	points := 0
	for _, line := range strings.Split(stdout, "\n") {
		var tok, acc float64
		if n, _ := fmt.Sscanf(strings.TrimSpace(line), "%g %g", &tok, &acc); n != 2 {
			continue
		}
		if points == 0 && !strings.Contains(line, "io k=1") {
			t.Errorf("the frontier opens with %q, not the cheapest configuration", line)
		}
		if tok <= prevTok || acc <= prevAcc {
			t.Errorf("frontier point %q does not cost more and score higher than the one before", line)
		}
		prevTok, prevAcc = tok, acc
		points++
	}
	if points == 0 {
		t.Errorf("no frontier points in:\n%s", stdout)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("not a PNG: %v", err)
	}
	if code, _, _ := cli(t, "plot", "--db", db, "--experiment", "p", "--frontier", "--x", "calls", "--out", out); code != 2 {
		t.Errorf("--frontier --x calls: exit %d, want 2", code)
	}
	// Unpriced simulated runs all cost 0: no frontier "at no cost".
	if code, _, stderr := cli(t, "plot", "--db", db, "--experiment", "p", "--frontier", "--x", "cost", "--out", out); code != 2 || !strings.Contains(stderr, "--x tokens") {
		t.Errorf("--frontier --x cost without costs: exit %d %q, want 2 naming --x tokens", code, stderr)
	}
}
