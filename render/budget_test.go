package render

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestCompareLevels(t *testing.T) {
	got := []string{"level=10", "difficulty=2", "level=2", "level=b", "level=a", "", "level=1.5"}
	slices.SortStableFunc(got, CompareLevels)
	want := []string{"", "difficulty=2", "level=1.5", "level=2", "level=10", "level=a", "level=b"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted %q, want %q", got, want)
	}
}

// TestBudgetFrontier checks which budget rows make the frontier on each
// axis and that a curve's points fold into one stretch.
func TestBudgetFrontier(t *testing.T) {
	rows := []BudgetRow{
		{RunID: 1, Strategy: "cotsc", Params: "k=4", Select: "vote", K: 1, KOf: 4, Items: 10, Accuracy: 0.3, GeneratedTokens: 50},
		{RunID: 1, Strategy: "cotsc", Params: "k=4", Select: "vote", K: 2, KOf: 4, Items: 10, Accuracy: 0.4, GeneratedTokens: 100},
		{RunID: 1, Strategy: "cotsc", Params: "k=4", Select: "vote", K: 4, KOf: 4, Items: 10, Accuracy: 0.5, GeneratedTokens: 200},
		{RunID: 2, Strategy: "bon", Params: "n=4", Select: "best", K: 4, KOf: 4, Items: 10, Accuracy: 0.6, GeneratedTokens: 120, VerifierTokens: 400},
		{RunID: 3, Strategy: "io", Items: 10, Accuracy: 0.35, GeneratedTokens: 50},
		{RunID: 4, Strategy: "tot", Items: 0, Accuracy: 1}, // no items at this level: not a point
	}
	names := func(front []FrontierPoint) []string {
		var out []string
		for _, f := range front {
			out = append(out, f.Label)
		}
		return out
	}
	// Verifier tokens count on the total axis: best-of-N costs 520 there.
	if got, want := names(BudgetFrontier(rows, BudgetTotal)), []string{"io #3", "cotsc k=4 #1 vote at k'=2", "cotsc k=4 #1 vote at k'=4", "bon n=4 #2 best at k'=4"}; !slices.Equal(got, want) {
		t.Errorf("total-token frontier %q, want %q", got, want)
	}
	// On generated tokens alone best-of-N (120) beats CoT-SC at N'=4 (200).
	front := BudgetFrontier(rows, BudgetGenerated)
	if got, want := names(front), []string{"io #3", "cotsc k=4 #1 vote at k'=2", "bon n=4 #2 best at k'=4"}; !slices.Equal(got, want) {
		t.Errorf("generated-token frontier %q, want %q", got, want)
	}
	st := Stretches(BudgetFrontier(rows, BudgetTotal))
	if len(st) != 3 || st[1].Label != "cotsc k=4 #1 vote, k'=2 to k'=4" {
		t.Errorf("stretches %+v", st)
	}
	if _, _, err := NewBudgetFrontierPlot(rows, "calls", "t", false); err == nil {
		t.Error("--x calls: want an error")
	}
	if _, _, err := NewBudgetFrontierPlot(rows[5:], BudgetTotal, "t", false); err == nil {
		t.Error("only empty rows: want an error")
	}
	p, _, err := NewBudgetFrontierPlot(rows, BudgetTotal, "t", true)
	if err != nil || !strings.Contains(p.Title.Text, "generated + verifier") {
		t.Errorf("plot: %v", err)
	}
}

func TestWriteBudget(t *testing.T) {
	rows := []BudgetRow{
		{Level: "level=1", RunID: 1, Task: "math500", Strategy: "cotsc", Params: "k=4", Model: "m", Status: "done", Select: "vote", K: 2, KOf: 4,
			Items: 3, Accuracy: 2.0 / 3, GeneratedTokens: 100.4, Estimated: true, Exact: true},
		{Level: "level=1", RunID: 2, Task: "math500", Strategy: "cot", Model: "m", Status: "done", Items: 3, Accuracy: 1.0 / 3, GeneratedTokens: 50, Exact: true},
		{Level: "level=2", RunID: 2, Task: "math500", Strategy: "bon", Model: "m", Status: "done", Select: "weighted", K: 64, KOf: 64, Items: 3,
			Accuracy: 0.5, GeneratedTokens: 50, VerifierTokens: 700, MCSE: 0.0123},
	}
	var b bytes.Buffer
	if err := WriteBudget(&b, "md", rows, []string{"a note"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"| level ", " 2/4 |", " 0.667 |", " 100* |", " 0.0123 |", " 700 |", "- a note"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Split(out, "\n"); !strings.Contains(lines[3], "cot ") || strings.Contains(lines[3], "exact") {
		t.Errorf("a run's own row has no N' and no mc_se: %q", lines[3])
	}
	b.Reset()
	if err := WriteBudget(&b, "json", rows, nil); err != nil {
		t.Fatal(err)
	}
	var back []BudgetRow
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || len(back) != 3 || back[2].VerifierTokens != 700 || !back[0].Estimated {
		t.Errorf("json round trip: %v %+v", err, back)
	}
	if err := WriteBudget(&b, "latex", rows, nil); err == nil {
		t.Error("latex: want an error")
	}
}
