package render

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/writers.golden from the writers' output")

// TestWritersGolden holds every table writer's output in every format,
// and its error for an unknown one, byte for byte to
// testdata/writers.golden (go test ./render -run TestWritersGolden
// -update rewrites it after a change made on purpose).
func TestWritersGolden(t *testing.T) {
	rows := expRows()
	rows[0].RuleForgeable = true
	rows[1].ScoreKind = ScoreMean
	rows[4].Params = "k=4 temperature=default"
	groups := Pivot(rows, 0.95)
	budget := []BudgetRow{
		{Level: "level=1", RunID: 1, Task: "math500", Strategy: "cotsc", Params: "k=4", Model: "m", Status: "done", Select: "vote", K: 2, KOf: 4,
			Items: 3, Accuracy: 2.0 / 3, GeneratedTokens: 100.4, Estimated: true, Exact: true},
		{Level: "level=1", RunID: 2, Task: "math500", Strategy: "cot", Model: "m", Status: "done", Items: 3, Accuracy: 1.0 / 3, GeneratedTokens: 50, Exact: true},
		{Level: "level=2", RunID: 2, Task: "math500", Strategy: "bon", Model: "m", Status: "interrupted", Select: "weighted", K: 64, KOf: 64, Items: 3,
			Accuracy: 0.5, GeneratedTokens: 50, VerifierTokens: 700, MCSE: 0.0123, Simulated: true},
	}
	series := []SeriesRow{{RunID: 1, Task: "hotpotqa", Strategy: "reflexion", Status: "done", Model: "m", N: 10, Step: 1, Ran: 10, Accuracy: 0.3},
		{RunID: 1, Task: "hotpotqa", Strategy: "reflexion", Status: "done", Model: "m", N: 10, Step: 2, Ran: 7, Accuracy: 0.5, Gain: 0.2}}
	curve := []SeriesRow{{RunID: 2, Task: "g", Strategy: "cotsc", Step: 1, Accuracy: 0.4, BestOf: Float(0.4), Exact: Bool(true), TokensPerItem: Float(100)},
		{RunID: 2, Task: "g", Strategy: "cotsc", Step: 2, Accuracy: 0.5, BestOf: Float(0.6), Exact: Bool(false), MCSE: Float(0.01), TokensPerItem: Float(200)}}
	models := []ModelRow{{RunID: 1, Strategy: "debate", Params: "agents=3", Model: "a@x", Calls: 5, PromptTokens: 100, CompletionTokens: 50, Cost: 0.01234}}
	tools := []ToolRow{{RunID: 1, Task: "h", Strategy: "react", Model: "m", Simulated: true, Status: "done", N: 3, Server: "s", Tool: "(all)",
		Calls: 4, Errors: 1, Success: 0.75, Replayed: 2, LatencyMS: 12.34, P50MS: 10, P90MS: 20,
		CallsPerItem: &Spread{1.333, 1, 2}, StepsPerItem: &Spread{2, 2, 3}},
		{RunID: 1, Server: "s", Tool: "search|x", Calls: 4}}
	writers := map[string]func(w *bytes.Buffer, format string) error{
		"runs":              func(w *bytes.Buffer, f string) error { return Write(w, f, rows) },
		"runs none":         func(w *bytes.Buffer, f string) error { return Write(w, f, nil) },
		"runs --columns":    func(w *bytes.Buffer, f string) error { return WriteColumns(w, f, rows, []string{"run", "accuracy"}) },
		"experiment":        func(w *bytes.Buffer, f string) error { return WriteExperiment(w, f, "exp1", groups) },
		"experiment none":   func(w *bytes.Buffer, f string) error { return WriteExperiment(w, f, "exp1", nil) },
		"experiment paired": func(w *bytes.Buffer, f string) error { return WriteExperiment(w, f, "p", pairedGroups()) },
		"experiment --columns": func(w *bytes.Buffer, f string) error {
			return WriteExperimentColumns(w, f, "c", groups, []string{"accuracy"})
		},
		"comparisons":      func(w *bytes.Buffer, f string) error { return WriteComparisons(w, f, comparisons()) },
		"comparisons none": func(w *bytes.Buffer, f string) error { return WriteComparisons(w, f, nil) },
		"budget":           func(w *bytes.Buffer, f string) error { return WriteBudget(w, f, budget, []string{"a note", "b"}) },
		"budget one level": func(w *bytes.Buffer, f string) error { return WriteBudget(w, f, budget[2:], nil) },
		"budget none":      func(w *bytes.Buffer, f string) error { return WriteBudget(w, f, nil, nil) },
		"series trial":     func(w *bytes.Buffer, f string) error { return WriteSeries(w, f, "trial", series) },
		"series k":         func(w *bytes.Buffer, f string) error { return WriteSeries(w, f, "k", curve) },
		"series round":     func(w *bytes.Buffer, f string) error { return WriteSeries(w, f, "round", curve) },
		"series trials":    func(w *bytes.Buffer, f string) error { return WriteSeries(w, f, "trials", curve) },
		"series none":      func(w *bytes.Buffer, f string) error { return WriteSeries(w, f, "trial", nil) },
		"models":           func(w *bytes.Buffer, f string) error { return WriteModels(w, f, models) },
		"models none":      func(w *bytes.Buffer, f string) error { return WriteModels(w, f, nil) },
		"tools":            func(w *bytes.Buffer, f string) error { return WriteTools(w, f, tools) },
		"tools none":       func(w *bytes.Buffer, f string) error { return WriteTools(w, f, nil) },
	}
	names := make([]string, 0, len(writers))
	for name := range writers {
		names = append(names, name)
	}
	slices.Sort(names)
	var all strings.Builder
	for _, name := range names {
		for _, f := range []string{"md", "csv", "latex", "json", "xml"} {
			var b bytes.Buffer
			err := writers[name](&b, f)
			fmt.Fprintf(&all, "==== %s, %s (error: %v)\n%s", name, f, err, b.String())
		}
	}
	const golden = "testdata/writers.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(all.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	got := all.String()
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			t.Fatalf("%s:%d differs:\n got %q\nwant %q\n(go test ./render -run TestWritersGolden -update after a change made on purpose)", golden, i+1, gl[i], wl[i])
		}
	}
	t.Fatalf("%s: %d lines written, %d expected", golden, len(gl), len(wl))
}
