package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

type budgetJSON struct {
	Level           string  `json:"level"`
	RunID           int64   `json:"run_id"`
	Strategy        string  `json:"strategy"`
	Select          string  `json:"select"`
	K               int     `json:"k"`
	KOf             int     `json:"k_of"`
	Items           int     `json:"items"`
	Accuracy        float64 `json:"accuracy"`
	GeneratedTokens float64 `json:"generated_tokens"`
	VerifierTokens  float64 `json:"verifier_tokens"`
	Estimated       bool    `json:"estimated"`
}

type exportedItem struct {
	Idx              int  `json:"idx"`
	Correct          bool `json:"correct"`
	CompletionTokens int  `json:"completion_tokens"`
	Samples          []struct {
		Correct bool `json:"correct"`
	} `json:"samples"`
}

func exportItems(t *testing.T, db, run string) []exportedItem {
	t.Helper()
	code, out, stderr := cli(t, "export", run, "--db", db)
	if code != 0 {
		t.Fatal(stderr)
	}
	var items []exportedItem
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		var it exportedItem
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			t.Fatal(err)
		}
		items = append(items, it)
	}
	return items
}

// TestReportByBudget runs CoT-SC (k=6) and CoT on the simulator in process
// and checks bench report --by budget and --by budget --by difficulty
// against what the exported items say, computed here afresh: the vote rows
// are --by k's, generated tokens N'/6 of each item's completion tokens
// (every call of these runs generates), the CoT row the run's own accuracy
// and mean completion tokens; difficulty levels are the quintiles of the
// CoT-SC run's per-item pass@1 (linear interpolation, level 5 below the
// first cut ... 1 at or above the fourth). Broken on purpose it fails
// with the levels numbered the other way round (1 for the hardest).
func TestReportByBudget(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "b.db")
	for _, args := range [][]string{
		{"--strategy", "cotsc", "--set", "k=6"},
		{"--strategy", "cot"},
	} {
		if code, _, stderr := cli(t, append([]string{"run", "--db", db, "--task", "game24", "--range", "900:915"}, args...)...); code != 0 {
			t.Fatal(stderr)
		}
	}
	cotsc, cot := exportItems(t, db, "1"), exportItems(t, db, "2")

	code, out, stderr := cli(t, "report", "--db", db, "--by", "budget", "--format", "json")
	var rows []budgetJSON
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil {
		t.Fatalf("--by budget: exit %d, %v: %s\n%s", code, err, stderr, out)
	}
	code, out, _ = cli(t, "report", "--db", db, "--by", "k", "--format", "json")
	var ks []struct {
		Step     int     `json:"step"`
		Accuracy float64 `json:"accuracy"`
	}
	if err := json.Unmarshal([]byte(out), &ks); code != 0 || err != nil {
		t.Fatalf("--by k: %d %v", code, err)
	}
	voteAt := map[int]float64{}
	for _, k := range ks {
		voteAt[k.Step] = k.Accuracy
	}
	var completion float64
	for _, it := range cotsc {
		completion += float64(it.CompletionTokens)
	}
	completion /= float64(len(cotsc))
	var steps []int
	for _, r := range rows {
		switch r.Strategy {
		case "cotsc":
			steps = append(steps, r.K)
			if r.Select != "vote" || r.KOf != 6 || r.Items != len(cotsc) || abs(r.Accuracy-voteAt[r.K]) > 1e-12 {
				t.Errorf("cotsc N'=%d: %+v; want the vote's %v (--by k) over %d items", r.K, r, voteAt[r.K], len(cotsc))
			}
			if abs(r.GeneratedTokens-completion*float64(r.K)/6) > 1e-9 || r.VerifierTokens != 0 || r.Estimated != (r.K < 6) {
				t.Errorf("cotsc N'=%d: %v generated tokens (estimated %v), want %v", r.K, r.GeneratedTokens, r.Estimated, completion*float64(r.K)/6)
			}
		case "cot":
			acc, gen := 0.0, 0.0
			for _, it := range cot {
				if it.Correct {
					acc++
				}
				gen += float64(it.CompletionTokens)
			}
			if r.K != 0 || r.Items != len(cot) || abs(r.Accuracy-acc/float64(len(cot))) > 1e-12 || abs(r.GeneratedTokens-gen/float64(len(cot))) > 1e-9 {
				t.Errorf("cot row %+v; want accuracy %v, generated %v", r, acc/float64(len(cot)), gen/float64(len(cot)))
			}
		default:
			t.Errorf("unexpected row %+v", r)
		}
	}
	if fmt.Sprint(steps) != "[1 2 4 6]" {
		t.Errorf("N' of the cotsc run: %v, want 1 2 4 6 (powers of two and N)", steps)
	}

	code, out, _ = cli(t, "report", "--db", db, "--by", "budget", "--every-n", "--format", "json")
	rows = nil
	steps = nil
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil {
		t.Fatalf("--every-n: exit %d, %v", code, err)
	}
	for _, r := range rows {
		if r.Strategy == "cotsc" {
			steps = append(steps, r.K)
			if abs(r.Accuracy-voteAt[r.K]) > 1e-12 {
				t.Errorf("--every-n N'=%d: %v, --by k %v", r.K, r.Accuracy, voteAt[r.K])
			}
		}
	}
	if fmt.Sprint(steps) != "[1 2 3 4 5 6]" {
		t.Errorf("--every-n: N' %v, want 1 to 6", steps)
	}

	// Difficulty from the CoT-SC run's own pass rate.
	pass := map[int]float64{}
	var xs []float64
	for _, it := range cotsc {
		c := 0.0
		for _, s := range it.Samples {
			if s.Correct {
				c++
			}
		}
		pass[it.Idx] = c / float64(len(it.Samples))
		xs = append(xs, pass[it.Idx])
	}
	sort.Float64s(xs)
	var cuts []float64
	for _, q := range []float64{0.2, 0.4, 0.6, 0.8} {
		pos := q * float64(len(xs)-1)
		lo := int(pos)
		v := xs[lo]
		if lo+1 < len(xs) {
			v += (pos - float64(lo)) * (xs[lo+1] - xs[lo])
		}
		cuts = append(cuts, v)
	}
	level := func(idx int) string {
		for i, c := range cuts {
			if pass[idx] < c {
				return "difficulty=" + strconv.Itoa(5-i)
			}
		}
		return "difficulty=1"
	}
	perLevel := map[string][]exportedItem{}
	for _, it := range cot {
		perLevel[level(it.Idx)] = append(perLevel[level(it.Idx)], it)
	}
	code, out, stderr = cli(t, "report", "--db", db, "--by", "budget,difficulty", "--format", "json")
	rows = nil
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil {
		t.Fatalf("--by budget,difficulty: exit %d, %v: %s", code, err, stderr)
	}
	seen := 0
	for _, r := range rows {
		if r.Strategy != "cot" {
			continue
		}
		seen++
		in := perLevel[r.Level]
		acc := 0.0
		for _, it := range in {
			if it.Correct {
				acc++
			}
		}
		if r.Items != len(in) || len(in) == 0 || abs(r.Accuracy-acc/float64(len(in))) > 1e-12 {
			t.Errorf("cot at %s: %d items, accuracy %v; want %d items, %v (cuts %v)", r.Level, r.Items, r.Accuracy, len(in), acc/float64(len(in)), cuts)
		}
	}
	if seen != len(perLevel) {
		t.Errorf("cot rows at %d levels, want %d (%v)", seen, len(perLevel), cuts)
	}
	// The Markdown table names the reference run and says what is estimated.
	code, out, _ = cli(t, "report", "--db", db, "--by", "budget", "--by", "difficulty")
	if code != 0 || !strings.Contains(out, "| level ") || !strings.Contains(out, "levels from run 1's pass@1") || !strings.Contains(out, "N'/N") {
		t.Errorf("--by budget --by difficulty (md), exit %d:\n%s", code, out)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--by", "level"}, "carry no labels"},
		{[]string{"--by", "budget", "--by", "trial"}, "cannot be combined"},
		{[]string{"--by", "level,difficulty"}, "split by one of them"},
		{[]string{"--by", "difficulty", "--difficulty-from", "99"}, "--difficulty-from 99"},
	} {
		code, _, stderr := cli(t, append([]string{"report", "--db", db}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("report %v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}

	// One frontier image per level.
	dir := t.TempDir()
	code, out, stderr = cli(t, "plot", "--db", db, "--frontier", "--by", "difficulty", "--out", filepath.Join(dir, "f.svg"))
	if code != 0 {
		t.Fatalf("plot --frontier --by difficulty: exit %d: %s", code, stderr)
	}
	for l := range perLevel {
		path := filepath.Join(dir, "f-"+strings.ReplaceAll(l, "=", "-")+".svg")
		b, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(b), "<svg") || !strings.Contains(out, "wrote "+path) {
			t.Errorf("%s: %v (%d bytes)\n%s", path, err, len(b), out)
		}
	}
	if code, _, stderr := cli(t, "plot", "--db", db, "--by", "budget", "--out", filepath.Join(dir, "g.svg")); code != 2 || !strings.Contains(stderr, "add --frontier") {
		t.Errorf("plot --by budget without --frontier: exit %d: %s", code, stderr)
	}
	if code, _, stderr := cli(t, "plot", "--db", db, "--frontier", "--by", "budget", "--x", "calls", "--out", filepath.Join(dir, "g.svg")); code != 2 || !strings.Contains(stderr, "tokens or generated") {
		t.Errorf("plot --frontier --by budget --x calls: exit %d: %s", code, stderr)
	}
}

// TestReportByBudgetBoN checks a best-of-N run's budget rows: its
// candidates are samples with verifier scores, so it gets a row per N' and
// per selection rule, and the row of its own rule at N' = N is the run's
// accuracy; its verifier tokens are counted apart from the generated ones.
// Broken on purpose (bon's candidates not read) it fails: the run gets a
// single row.
func TestReportByBudgetBoN(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "b.db")
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--range", "900:906",
		"--strategy", "bon", "--set", "n=4", "--set", "select=weighted"); code != 0 {
		t.Fatal(stderr)
	}
	items := exportItems(t, db, "1")
	acc := 0.0
	for _, it := range items {
		if it.Correct {
			acc++
		}
	}
	acc /= float64(len(items))
	code, out, stderr := cli(t, "report", "--db", db, "--by", "budget", "--format", "json")
	var rows []budgetJSON
	if err := json.Unmarshal([]byte(out), &rows); code != 0 || err != nil {
		t.Fatalf("--by budget: exit %d, %v: %s\n%s", code, err, stderr, out)
	}
	found := false
	selects := map[string]bool{}
	for _, r := range rows {
		selects[r.Select] = true
		if r.VerifierTokens <= 0 {
			t.Errorf("row %+v: no verifier tokens", r)
		}
		if r.Select == "weighted" && r.K == 4 {
			found = true
			if math.Abs(r.Accuracy-acc) > 1e-9 {
				t.Errorf("weighted at N'=4: accuracy %v, the run's is %v", r.Accuracy, acc)
			}
		}
	}
	if !found || len(selects) < 3 {
		t.Fatalf("want vote, best and weighted rows up to N'=4, got %+v", rows)
	}
}
