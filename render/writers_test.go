package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
)

func readCSV(t *testing.T, b []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%s", err, b)
	}
	return rows
}

// column is row's value under name in a CSV with header.
func column(t *testing.T, header, row []string, name string) string {
	t.Helper()
	i := slices.Index(header, name)
	if i < 0 {
		t.Fatalf("no column %q in %q", name, header)
	}
	return row[i]
}

// comparisons are two: a 0/1 comparison with a tiny p-value, and a
// continuous one of one item, whose p-value and interval are undefined.
func comparisons() []Comparison {
	cs := []Comparison{
		{Run: 3, Runs: []int64{3, 4}, Baseline: 1, BaselineRuns: []int64{1}, Label: "tot b=5", BaseLabel: "cot", Level: 0.9,
			Comparison: stats.Comparison{N: 100, Accuracy: 0.45, BaselineAccuracy: 0.3, Difference: 0.15000000000000002, Low: 0.05, High: 0.25,
				CIMethod: stats.MethodNewcombe, P: 0.0004, Test: stats.NameMcNemar, RunOnly: 20, BaselineOnly: 5}},
		{Run: 7, Runs: []int64{7}, Baseline: 1, BaselineRuns: []int64{1}, Label: "self-refine", BaseLabel: "cot",
			Comparison: stats.Comparison{N: 1, Accuracy: 0.5, BaselineAccuracy: 0.5, Difference: -0.0000001, Low: math.Inf(-1), High: math.Inf(1),
				CIMethod: stats.MethodPairedT, P: math.NaN(), Test: stats.NamePairedT}},
	}
	HolmAdjust(cs)
	return cs
}

// TestWriteComparisons: the comparison table in each format, with its
// marks, the undefined figures as n/a, empty or null, and the notes.
func TestWriteComparisons(t *testing.T) {
	cs := comparisons()
	if cs[0].PHolm != 0.0004 || !math.IsNaN(cs[1].PHolm) {
		t.Fatalf("Holm: %v %v", cs[0].PHolm, cs[1].PHolm)
	}
	var md bytes.Buffer
	if err := WriteComparisons(&md, "md", cs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"90% CI (paired)", "| 3+4 ", "| tot b=5 ", "+0.150", "[+0.050, +0.250] N", "<0.001", "n/a T", "+0.000",
		"- N: Newcombe's hybrid score interval", "- T: paired t interval", "over the 2 comparisons",
		"tot b=5 0.", "self-refine none (too few discordant items)"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "-0.000") {
		t.Errorf("a negative zero printed:\n%s", md.String())
	}
	var c bytes.Buffer
	if err := WriteComparisons(&c, "csv", cs); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, c.Bytes())
	if len(rows) != 3 {
		t.Fatalf("csv rows %q", rows)
	}
	mdd, _ := cs[0].MDD(MDDAlpha, MDDPower)
	for name, want := range map[string]string{"run": "3", "runs": "3+4", "label": "tot b=5", "baseline": "1", "baseline_runs": "1", "n": "100",
		"accuracy": "0.45", "difference": "0.15", "ci_low": "0.05", "ci_high": "0.25", "level": "0.9", "p_value": "0.0004",
		"test": stats.NameMcNemar, "p_holm": "0.0004", "run_only": "20", "baseline_only": "5", "mdd": ftoa(mdd)} {
		if got := column(t, rows[0], rows[1], name); got != want {
			t.Errorf("csv %s = %q, want %q", name, got, want)
		}
	}
	for _, name := range []string{"ci_low", "ci_high", "p_value", "p_holm", "mdd"} {
		if got := column(t, rows[0], rows[2], name); got != "" {
			t.Errorf("csv %s of the undefined comparison = %q, want empty", name, got)
		}
	}
	var j bytes.Buffer
	if err := WriteComparisons(&j, "json", cs); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Comparisons []struct {
			Run        int64       `json:"run"`
			Difference float64     `json:"difference"`
			CI         [2]*float64 `json:"ci"`
			PValue     *float64    `json:"p_value"`
			PHolm      *float64    `json:"p_holm"`
			MDD        *float64    `json:"mdd"`
			Level      float64     `json:"level"`
		} `json:"comparisons"`
	}
	if err := json.Unmarshal(j.Bytes(), &doc); err != nil || len(doc.Comparisons) != 2 {
		t.Fatalf("json %s: %v", j.Bytes(), err)
	}
	a, b := doc.Comparisons[0], doc.Comparisons[1]
	if a.Run != 3 || a.Difference != 0.15 || a.CI[0] == nil || *a.CI[0] != 0.05 || a.PValue == nil || *a.PValue != 0.0004 || a.MDD == nil || a.Level != 0.9 {
		t.Errorf("json of the first: %+v", a)
	}
	if b.CI[0] != nil || b.CI[1] != nil || b.PValue != nil || b.PHolm != nil || b.MDD != nil {
		t.Errorf("json of the undefined: %+v", b)
	}
	var empty bytes.Buffer
	if err := WriteComparisons(&empty, "json", nil); err != nil || !strings.Contains(empty.String(), `"comparisons": []`) {
		t.Errorf("no comparisons: %s %v", empty.String(), err)
	}
	var tex bytes.Buffer
	if err := WriteComparisons(&tex, "latex", cs); err != nil || !strings.Contains(tex.String(), `\caption{paired comparisons against the baseline}`) ||
		!strings.Contains(tex.String(), `tot b=5`) || !strings.Contains(tex.String(), `\textless{}0.001`) {
		t.Errorf("latex: %v\n%s", err, tex.String())
	}
	if err := WriteComparisons(&bytes.Buffer{}, "xml", cs); err == nil || !strings.Contains(err.Error(), "md, csv, latex, json") {
		t.Errorf("an unknown format: %v", err)
	}
	header, body, notes := ComparisonTable(cs)
	if len(header) != len(body[0]) || header[4] != "accuracy" || body[1][7] != "n/a T" || len(notes) != 5 {
		t.Errorf("table %q %q %q", header, body, notes)
	}
	cs[0].Metric = "f1"
	if header, _, _ := ComparisonTable(cs); header[4] != "f1" || header[5] != "baseline f1" || header[7] != "90% CI (paired)" {
		t.Errorf("a metric's table: %q", header)
	}
	if header, _, _ := ComparisonTable(nil); header[7] != "95% CI (paired)" {
		t.Errorf("no comparisons: %q", header)
	}
}

// TestWriteSeries: trial series, a debate's rounds and a vote curve,
// each with its own columns.
func TestWriteSeries(t *testing.T) {
	base := SeriesRow{RunID: 2, Task: "hotpotqa", Strategy: "reflexion", Params: "trials=2", Model: "sim", Simulated: true, Status: "done", N: 10}
	trials := []SeriesRow{base, base}
	trials[0].Step, trials[0].Ran, trials[0].Accuracy = 1, 10, 0.3
	trials[1].Step, trials[1].Ran, trials[1].Accuracy, trials[1].Gain = 2, 7, 0.5, 0.2
	var c bytes.Buffer
	if err := WriteSeries(&c, "csv", "trial", trials); err != nil {
		t.Fatal(err)
	}
	want := "run,task,strategy,params,model,n,trial,ran,accuracy,gain\n2,hotpotqa,reflexion,trials=2,sim (simulated),10,1,10,0.300,+0.000\n" +
		"2,hotpotqa,reflexion,trials=2,sim (simulated),10,2,7,0.500,+0.200\n"
	if c.String() != want {
		t.Errorf("trials:\n%s\nwant\n%s", c.String(), want)
	}
	rounds := []SeriesRow{base}
	rounds[0].Status, rounds[0].Step, rounds[0].BestOf = "interrupted", 1, Float(0.75)
	var md bytes.Buffer
	if err := WriteSeries(&md, "md", "round", rounds); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"majority accuracy", "any agent right", "reflexion [interrupted]", "0.750"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("rounds lack %q:\n%s", want, md.String())
		}
	}
	curve := []SeriesRow{base, base}
	curve[0].Step, curve[0].BestOf, curve[0].Exact, curve[0].TokensPerItem = 1, Float(0.5), Bool(true), Float(1234.4)
	curve[1].Step, curve[1].BestOf, curve[1].Exact, curve[1].MCSE = 2, Float(0.6), Bool(false), Float(0.01234)
	c.Reset()
	if err := WriteSeries(&c, "csv", "k", curve); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, c.Bytes())
	if h := rows[0]; h[8] != "vote accuracy" || !slices.Equal(h[10:], []string{"mc_se", "best-of-k'", "tokens/item"}) {
		t.Errorf("curve header %q", h)
	}
	if !slices.Equal(rows[1][10:], []string{"exact", "0.500", "1234"}) || !slices.Equal(rows[2][10:], []string{"0.0123", "0.600", ""}) {
		t.Errorf("curve rows %q", rows[1:])
	}
	var j bytes.Buffer
	if err := WriteSeries(&j, "json", "k", nil); err != nil || strings.TrimSpace(j.String()) != "[]" {
		t.Errorf("no rows as json: %q %v", j.String(), err)
	}
	j.Reset()
	if err := WriteSeries(&j, "json", "k", curve); err != nil || !strings.Contains(j.String(), `"mc_se": 0.01234`) || !strings.Contains(j.String(), `"exact": false`) {
		t.Errorf("json: %v\n%s", err, j.String())
	}
	if err := WriteSeries(&bytes.Buffer{}, "latex", "k", curve); err == nil {
		t.Error("an unknown format")
	}
}

// TestWriteToolsAndModels: the tool table with its per-item spreads, and
// the per-model table, in each format.
func TestWriteToolsAndModels(t *testing.T) {
	rows := []ToolRow{
		{RunID: 5, Task: "qa", Strategy: "react", Model: "m", Status: "done", N: 3, Server: "web", Tool: "search", Calls: 4, Errors: 1,
			Success: 0.75, Replayed: 1, LatencyMS: 25, P50MS: 20, P90MS: 40},
		{RunID: 5, Task: "qa", Strategy: "react", Model: "m", Status: "done", N: 3, Tool: "(all)", Calls: 4, Errors: 1, Success: 0.75,
			CallsPerItem: &Spread{Mean: 4.0 / 3, Median: 1, Max: 3}, StepsPerItem: &Spread{Mean: 3, Median: 2.5, Max: 5}},
	}
	var c bytes.Buffer
	if err := WriteTools(&c, "csv", rows); err != nil {
		t.Fatal(err)
	}
	got := readCSV(t, c.Bytes())
	if len(got) != 3 || !slices.Equal(got[1][7:14], []string{"4", "1", "0.750", "1", "25.0", "20.0", "40.0"}) || got[1][14] != "" ||
		got[2][14] != "1.33 (1, 3)" || got[2][15] != "3.00 (2.5, 5)" {
		t.Errorf("tools csv %q", got)
	}
	var md bytes.Buffer
	if err := WriteTools(&md, "md", rows); err != nil || !strings.Contains(md.String(), "calls/item (median, max)") || !strings.Contains(md.String(), "(all)") {
		t.Errorf("tools md: %v\n%s", err, md.String())
	}
	var j bytes.Buffer
	if err := WriteTools(&j, "json", nil); err != nil || strings.TrimSpace(j.String()) != "[]" {
		t.Errorf("no tool rows: %q %v", j.String(), err)
	}
	if err := WriteTools(&bytes.Buffer{}, "pdf", rows); err == nil || !strings.Contains(err.Error(), "--by tool") {
		t.Errorf("an unknown format: %v", err)
	}
	models := []ModelRow{{RunID: 1, Strategy: "debate", Params: "agents=2", Model: "qwen", Calls: 6, PromptTokens: 1200, CompletionTokens: 300, Cost: 0.01234}}
	c.Reset()
	if err := WriteModels(&c, "csv", models); err != nil || c.String() != "run,strategy,params,model,calls,tokens in,tokens out,cost\n1,debate,agents=2,qwen,6,1200,300,0.0123\n" {
		t.Errorf("models csv %q %v", c.String(), err)
	}
	md.Reset()
	if err := WriteModels(&md, "md", models); err != nil || !strings.Contains(md.String(), "qwen") {
		t.Errorf("models md %v\n%s", err, md.String())
	}
	j.Reset()
	if err := WriteModels(&j, "json", models); err != nil || !strings.Contains(j.String(), `"prompt_tokens": 1200`) {
		t.Errorf("models json %v\n%s", err, j.String())
	}
	j.Reset()
	if err := WriteModels(&j, "json", nil); err != nil || strings.TrimSpace(j.String()) != "[]" {
		t.Errorf("no model rows: %q", j.String())
	}
	if err := WriteModels(&bytes.Buffer{}, "pdf", models); err == nil || !strings.Contains(err.Error(), "--by model") {
		t.Errorf("an unknown format: %v", err)
	}
}

// TestWriteStepsAndExecutions: a trajectory trial by trial, continuation
// lines indented; executions with their verdicts and the tails of what
// they printed.
func TestWriteStepsAndExecutions(t *testing.T) {
	var b bytes.Buffer
	err := WriteSteps(&b, []store.Step{{Trial: 0, Kind: "thought", Content: "I search.\nThen I look up."}, {Trial: 0, Kind: "action", Content: "search[x]"},
		{Trial: 1, Kind: "reflection", Content: "  wrong page  "}})
	want := "--- trial 1\nthought:     I search.\n             Then I look up.\naction:      search[x]\n--- trial 2\nreflection:  wrong page\n"
	if err != nil || b.String() != want {
		t.Errorf("steps:\n%q\nwant\n%q (%v)", b.String(), want, err)
	}
	var long strings.Builder
	for i := range 25 {
		long.WriteString("line " + string(rune('a'+i)) + "\n")
	}
	b.Reset()
	err = WriteExecutions(&b, []store.Execution{
		{Site: "hidden", Status: "exit", ExitCode: 1, DurationMS: 12.5, Program: "assert f(1) == 2", Stderr: "AssertionError\n"},
		{Site: "s0/run", Status: "timeout", Signal: "SIGKILL", Truncated: true, DurationMS: 1000, Program: "while True: pass", Stdout: long.String()},
		{Site: "ok", Status: "ok", DurationMS: 3, Program: "print(1)", Stdout: "1\n"},
	})
	out := b.String()
	for _, want := range []string{"--- hidden: exit code 1 in 12.5 ms\nprogram:     assert f(1) == 2\nstderr:      AssertionError\n",
		"--- s0/run: timeout (SIGKILL), output cut in 1000 ms\n", "stdout:      ...\n             line f\n", "             line y\n",
		"--- ok: ok in 3 ms\nprogram:     print(1)\nstdout:      1\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("executions lack %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "line e\n") || strings.Contains(out, "stderr:      \n") {
		t.Errorf("more than 20 lines, or an empty part, shown:\n%s", out)
	}
	if s := tailLines(strings.Repeat("x", 5000), 20); len(s) != 4096+4 || !strings.HasPrefix(s, "...\n") {
		t.Errorf("a 5000-byte line kept as %d bytes", len(s))
	}
}

// TestBudgetLevelsAndIntervals: levels in table order, numbers
// numerically and before text; what an interval says of itself.
func TestBudgetLevelsAndIntervals(t *testing.T) {
	rows := []BudgetRow{{Level: "level=10"}, {Level: "level=2"}, {Level: "level=hard"}, {Level: "level=2"}, {Level: "a=9"}}
	if got := BudgetLevels(rows); !slices.Equal(got, []string{"a=9", "level=2", "level=10", "level=hard"}) {
		t.Errorf("BudgetLevels = %q", got)
	}
	if BudgetLevels(nil) != nil {
		t.Error("levels of no rows")
	}
	for _, c := range []struct {
		iv          Interval
		valid       bool
		name, descr string
	}{
		{Wilson(3, 10, 0.95), true, "Wilson", "Wilson, 10 items"},
		{ItemsT(0.5, 0.2, 8, 0.95), true, "t", "t over items, 8 items (df=7)"},
		{Interval{Method: MethodStudentT, N: 3}, true, "t", "Student-t, 3 runs (df=2)"},
		{Interval{}, false, "", "none"},
	} {
		if c.iv.Valid() != c.valid || c.iv.Name() != c.name || c.iv.Describe() != c.descr {
			t.Errorf("%+v: valid %v name %q describes %q", c.iv, c.iv.Valid(), c.iv.Name(), c.iv.Describe())
		}
	}
	var b bytes.Buffer
	if err := Markdown(&b, []string{"name", "n"}, [][]string{{"a|b", "3"}}, []bool{false, true}); err != nil ||
		!strings.Contains(b.String(), `a\|b`) || !strings.Contains(b.String(), "|:-----|--:|") {
		t.Errorf("Markdown: %v\n%s", err, b.String())
	}
}
