package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

func expRows() []Row {
	base := func(id int64, strategy, params, pjson string, seed int64, acc float64) Row {
		return Row{RunID: id, Experiment: "exp1", Task: "game24", Strategy: strategy, Params: params, ParamsJSON: pjson,
			Model: "sim", Simulated: true, Status: "done", N: 10, Accuracy: acc, Seed: seed, Range: "900:910",
			SimParams: `{"skill":0.5,"slip":0.1}`, Metrics: map[string]float64{"best_of_k": acc + 0.1},
			Tokens: 1000, Calls: 10, WallSeconds: 2}
	}
	rows := []Row{
		base(1, "cot", "k=4", `{"k":4,"temperature":0.7}`, 1, 0.6),
		base(2, "tot", "b=5", `{"b":5}`, 1, 0.5),
		base(3, "cot", "k=4", `{"temperature": 0.7, "k": 4}`, 2, 0.7), // same configuration, other seed, other key order
		base(4, "cot", "k=8", `{"k":8,"temperature":0.7}`, 1, 0.8),
		base(5, "cot", "k=4", `{"k":4,"temperature":0.7}`, 3, 0.8),
	}
	rows[1].Metrics = map[string]float64{"any_at_b": 0.9, "top1": 0.5}
	rows[1].Tokens, rows[1].Calls = 30000, 200
	rows[2].CacheHits, rows[2].SavedTokens, rows[2].SavedCost = 4, 400, 0.002
	rows[3].Status = "interrupted"
	rows[3].N = 7
	return rows
}

func TestPivot(t *testing.T) {
	groups := Pivot(expRows(), 0.95)
	type want struct {
		strategy, params string
		runs             []int64
		seeds            []int64
		acc              float64
		method           string
		low, high        float64
		tokensPerItem    float64
		status           string
	}
	wants := []want{
		{"cot", "k=4", []int64{1, 3, 5}, []int64{1, 2, 3}, 0.7, MethodStudentT, 0.4516, 0.9484, 100, "done"},
		{"tot", "b=5", []int64{2}, []int64{1}, 0.5, MethodWilson, 0.2366, 0.7634, 3000, "done"},
		{"cot", "k=8", []int64{4}, []int64{1}, 0.8, MethodWilson, 0.4329, 0.9545, 1000.0 / 7, "interrupted"},
	}
	if len(groups) != len(wants) {
		t.Fatalf("%d groups, want %d: %+v", len(groups), len(wants), groups)
	}
	for i, w := range wants {
		g := groups[i]
		if g.Strategy != w.strategy || g.Params != w.params || !slices.Equal(g.RunIDs, w.runs) || !slices.Equal(g.Seeds, w.seeds) {
			t.Errorf("group %d: %s %s runs %v seeds %v, want %s %s %v %v", i, g.Strategy, g.Params, g.RunIDs, g.Seeds, w.strategy, w.params, w.runs, w.seeds)
		}
		if math.Abs(g.Accuracy-w.acc) > 1e-9 || g.CI.Method != w.method || math.Abs(g.CI.Low-w.low) > 5e-4 || math.Abs(g.CI.High-w.high) > 5e-4 {
			t.Errorf("group %d: accuracy %.4f CI %+v, want %.4f %s [%.4f, %.4f]", i, g.Accuracy, g.CI, w.acc, w.method, w.low, w.high)
		}
		if math.Abs(g.TokensPerItem-w.tokensPerItem) > 1e-9 || g.Status != w.status {
			t.Errorf("group %d: tokens/item %v status %s, want %v %s", i, g.TokensPerItem, g.Status, w.tokensPerItem, w.status)
		}
	}
	g := groups[0]
	if g.Items != 30 || g.ItemsLabel() != "10" || math.Abs(g.Metrics["best_of_k"]-0.8) > 1e-9 || g.CallsPerItem != 1 || g.WallSeconds != 2 {
		t.Errorf("pooled group: %+v", g)
	}
	if g.CacheHits != 4 || g.SavedTokens != 400 || g.SavedCost != 0.002 || g.ParamsJSON != `{"k":4,"temperature":0.7}` {
		t.Errorf("savings/params: %+v", g)
	}
	// Different models, ranges or simulator parameters are different configurations.
	rows := expRows()[:1]
	for _, mod := range []func(*Row){
		func(r *Row) { r.Model, r.Simulated, r.SimParams = "gpt-4o", false, "" },
		func(r *Row) { r.Range = "0:10" },
		func(r *Row) { r.SimParams = `{"skill":0.7,"slip":0.1}` },
	} {
		r := expRows()[0]
		r.RunID = int64(len(rows) + 10)
		mod(&r)
		rows = append(rows, r)
	}
	if groups := Pivot(rows, 0.95); len(groups) != 4 {
		t.Errorf("model/range/sim variants: %d groups, want 4", len(groups))
	} else if got := Labels(groups); !slices.Equal(got, []string{"cot k=4 sim [900:910] skill=0.5", "cot k=4 gpt-4o [900:910]", "cot k=4 sim [0:10] skill=0.5", "cot k=4 sim [900:910] skill=0.7"}) {
		t.Errorf("labels %q", got)
	}
}

func TestSeries(t *testing.T) {
	cases := []struct {
		metrics map[string]float64
		kind    string
		xs      []int
	}{
		{map[string]float64{"after_trial_2": 0.5, "after_trial_10": 0.9, "after_trial_1": 0.3, "em": 0.9}, SeriesTrial, []int{1, 2, 10}},
		{map[string]float64{"after_iteration_0": 0.2, "after_iteration_1": 0.4}, SeriesIteration, []int{0, 1}},
		{map[string]float64{"best_of_k": 0.2, "after_trial_x": 1}, "", nil},
	}
	for _, c := range cases {
		kind, pts := Group{Metrics: c.metrics}.Series()
		var xs []int
		for _, p := range pts {
			xs = append(xs, p.X)
		}
		if kind != c.kind || !slices.Equal(xs, c.xs) {
			t.Errorf("%v: %q %v, want %q %v", c.metrics, kind, xs, c.kind, c.xs)
		}
	}
}

func TestLatexEscape(t *testing.T) {
	cases := []struct{ in, want string }{
		{"vote_key=line", `vote\_key=line`},
		{"50% & more #1", `50\% \& more \#1`},
		{`$x^2 \ {y}~`, `\$x\textasciicircum{}2 \textbackslash{} \{y\}\textasciitilde{}`},
		{"plain k=4", "plain k=4"},
	}
	for _, c := range cases {
		if got := LatexEscape(c.in); got != c.want {
			t.Errorf("LatexEscape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWriteExperimentLatex(t *testing.T) {
	rows := expRows()
	rows[0].Params = "k=4 vote_key=line"
	rows[2].Params, rows[4].Params = rows[0].Params, rows[0].Params
	var b bytes.Buffer
	if err := WriteExperiment(&b, "latex", "experiment exp_1", Pivot(rows, 0.95)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[3], `\caption{experiment exp\_1`) || !strings.Contains(lines[3], "simulated") ||
		lines[1] != `\begin{table}[t]` || !strings.HasPrefix(lines[4], `\label{tab:experiment-exp-1`) || lines[len(lines)-1] != `\end{table}` {
		t.Errorf("table float, caption and label: %q", lines[:5])
	}
	// No column is empty in every row: a paper table carries no blank columns.
	hdr := strings.Split(strings.TrimSuffix(lines[7], ` \\`), " & ")
	for c := range hdr {
		empty := true
		for _, l := range lines[9:12] {
			cells := strings.Split(strings.TrimSuffix(l, ` \\`), " & ")
			if c < len(cells) && strings.TrimSpace(cells[c]) != "" {
				empty = false
			}
		}
		if empty {
			t.Errorf("column %q is empty in every row:\n%s", hdr[c], out)
		}
	}
	for _, want := range []string{`\begin{tabular}{`, `\toprule`, `\midrule`, `\bottomrule`, `\end{tabular}`,
		`95\% CI`, `best-of-k`, `any@b`, `k=4 vote\_key=line`, `[0.452, 0.948]\textsuperscript{t}`, `[0.237, 0.763]\textsuperscript{W}`,
		`cot [interrupted]`, `Wilson, n items`, `Student-t`, `saving 400 tokens and \$0.0020`, `sim (simulated)`, `\$0.0020, 400 tok`} {
		if !strings.Contains(out, want) {
			t.Errorf("latex lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "vote_key") {
		t.Errorf("unescaped underscore:\n%s", out)
	}
	// Every body row has as many cells as the header.
	cols := strings.Count(lines[7], "&")
	for _, l := range lines[9:12] {
		if strings.Count(l, "&") != cols || !strings.HasSuffix(l, `\\`) {
			t.Errorf("row %q: %d cells, header %d", l, strings.Count(l, "&")+1, cols+1)
		}
	}
}

func TestWriteExperimentMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := WriteExperiment(&b, "md", "experiment exp1", Pivot(expRows()[:3], 0.95)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "| task ") || !strings.Contains(lines[0], "| 95% CI ") || !strings.Contains(lines[0], "| any@b ") {
		t.Errorf("header: %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "|:--") || !strings.Contains(lines[1], "--:|") {
		t.Errorf("alignment row: %q", lines[1])
	}
	for _, want := range []string{"| cot ", "| k=4 ", "sim (simulated)", "[0.015, 1.000] t", "[0.237, 0.763] W",
		"- W: 95% Wilson score interval for a single run (Wilson, n items", "- t: 95% Student-t", "- (simulated):", "saved (cache)"} {
		if !strings.Contains(out, want) {
			t.Errorf("md lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteExperimentCSVAndJSON(t *testing.T) {
	groups := Pivot(expRows(), 0.95)
	var b bytes.Buffer
	if err := WriteExperiment(&b, "csv", "exp1", groups); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != 4 {
		t.Fatalf("csv: %v %d records", err, len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	if r := recs[1]; r[col["ci_method"]] != "Student-t, 3 runs (df=2)" || r[col["run_ids"]] != "1 3 5" || r[col["runs"]] != "3" || r[col["saved_tokens"]] != "400" {
		t.Errorf("csv row 1: %v", r)
	}
	if r := recs[2]; r[col["ci_method"]] != "Wilson, 10 items" || r[col["any_at_b"]] != "0.9" || r[col["best_of_k"]] != "" {
		t.Errorf("csv row 2: %v", r)
	}
	b.Reset()
	if err := WriteExperiment(&b, "json", "exp1", groups); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Experiment     string
		Simulated      bool
		Configurations []struct {
			Label    string
			CIMethod string `json:"ci_method"`
			CI       Interval
			RunIDs   []int64 `json:"run_ids"`
			Metrics  map[string]float64
		}
		Cache struct{ Hits, SavedTokens int } `json:"cache"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if doc.Experiment != "exp1" || !doc.Simulated || len(doc.Configurations) != 3 || doc.Cache.Hits != 4 {
		t.Errorf("json: %+v", doc)
	}
	if c := doc.Configurations[1]; c.Label != "tot b=5" || c.CIMethod != "Wilson, 10 items" || c.CI.Method != MethodWilson || c.Metrics["top1"] != 0.5 {
		t.Errorf("json configuration: %+v", c)
	}
	if err := WriteExperiment(&b, "xml", "exp1", groups); err == nil || !strings.Contains(err.Error(), "md, csv, latex, json") {
		t.Errorf("unknown format: %v", err)
	}
}

func TestWritePerRunHasWilsonColumn(t *testing.T) {
	rows := expRows()[:1]
	rows[0].Accuracy, rows[0].N = 0.8, 10
	var b bytes.Buffer
	if err := Write(&b, "md", rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "95% CI (Wilson)") || !strings.Contains(b.String(), "[0.490, 0.943]") {
		t.Errorf("md:\n%s", b.String())
	}
	b.Reset()
	if err := Write(&b, "csv", rows); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "run,task,strategy,params,model,rule,prompts,n,accuracy,ci_low,ci_high,") || !strings.Contains(b.String(), ",0.4902,0.9433,") {
		t.Errorf("csv:\n%s", b.String())
	}
	b.Reset()
	if err := Write(&b, "latex", rows); err != nil || !strings.Contains(b.String(), `\toprule`) || !strings.Contains(b.String(), `\caption{`) {
		t.Errorf("latex: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := Write(&b, "json", rows); err != nil || !strings.Contains(b.String(), `"method": "wilson"`) || !strings.Contains(b.String(), `"seed": 1`) {
		t.Errorf("json: %v\n%s", err, b.String())
	}
}
