package view

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/catalog"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/tasks"
)

// Issue 43 part 5: what the item, compare and runs pages say of items whose
// verdict tells part of the story (io/cot k>1), of debate rounds, and of
// numbers scored by a forgeable rule.

// misreadDB makes io k=10 runs with seeds 1 and 2 and a debate run on
// Game of 24, where the simulated debaters mostly disagree.
func misreadDB(t *testing.T) (path string, io1, io2, debate int64) {
	t.Helper()
	ctx := context.Background()
	path = filepath.Join(t.TempDir(), "misread.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run := func(strategy string, seed int64, params map[string]any, rng string) int64 {
		cfg := bench.DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range, cfg.Params, cfg.Seed, cfg.Concurrency = "game24", strategy, rng, params, seed, 4
		sum, err := (&bench.Engine{Store: st}).Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return sum.RunID
	}
	io1 = run("io", 1, map[string]any{"k": 10}, "900:920")
	io2 = run("io", 2, map[string]any{"k": 10}, "900:920")
	debate = run("debate", 1, map[string]any{"agents": 3, "rounds": 2}, "900:903")
	return path, io1, io2, debate
}

var h1Re = regexp.MustCompile(`(?s)<h1>(.*?)</h1>`)

// TestItemPageSampleMeans: an io k=10 item's page says how many of its
// samples were right, in the heading and the verdict, and never calls an
// item scoring between 0 and 1 just right or wrong.
func TestItemPageSampleMeans(t *testing.T) {
	t.Parallel()
	path, io1, _, _ := misreadDB(t)
	st, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	items, err := st.Items(context.Background(), io1)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	srv := serveReadOnly(t, path)
	parts := 0
	for _, it := range items {
		code, body := get(t, fmt.Sprintf("%s/runs/%d/items/%d", srv.URL, io1, it.Index))
		if code != 200 {
			t.Fatalf("item %d: %d", it.Index, code)
		}
		right := int(math.Round(it.Score * 10))
		h1 := h1Re.FindStringSubmatch(body)
		if h1 == nil || !strings.Contains(h1[1], fmt.Sprintf("%d/10 right", right)) {
			t.Errorf("item %d (score %.1f): heading %q lacks %d/10 right", it.Index, it.Score, h1, right)
		}
		if it.Score > 0 && it.Score < 1 {
			parts++
			if strings.Contains(h1[1], ">wrong<") || strings.Contains(h1[1], ">correct<") {
				t.Errorf("item %d scores %.1f, its heading says right or wrong: %q", it.Index, it.Score, h1[1])
			}
		}
		first := "wrong"
		if it.Correct {
			first = "right"
		}
		want := fmt.Sprintf("%d of 10 samples right: score %.3f, the share the run's accuracy averages; the final output is the first sample, %s", right, it.Score, first)
		if !strings.Contains(body, want) {
			t.Errorf("item %d: the verdict lacks %q:\n%.2000s", it.Index, want, body)
		}
	}
	if parts == 0 {
		t.Fatal("no item scored between 0 and 1: the fixture tests nothing")
	}
}

// TestComparePairsByScore: the compare page's "where they disagree" lists
// every item the runs score differently, also when both verdicts (the
// first samples') agree, and its cells show such scores, not right/wrong.
func TestComparePairsByScore(t *testing.T) {
	t.Parallel()
	path, io1, io2, _ := misreadDB(t)
	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := st.Verdicts(ctx, io1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Verdicts(ctx, io2)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	srv := serveReadOnly(t, path)
	code, body := get(t, fmt.Sprintf("%s/compare?runs=%d,%d", srv.URL, io1, io2))
	if code != 200 {
		t.Fatalf("compare: %d", code)
	}
	table := body[strings.Index(body, `id="cmp"`):]
	sameVerdict, differ := 0, 0
	for idx, va := range a {
		vb := b[idx]
		listed := strings.Contains(table, fmt.Sprintf(`<td class="num">%d</td>`, idx))
		if va.Score != vb.Score {
			differ++
			if va.Correct == vb.Correct {
				sameVerdict++
			}
			if !listed {
				t.Errorf("item %d: scores %.1f and %.1f (verdicts %v, %v), not listed where the runs disagree", idx, va.Score, vb.Score, va.Correct, vb.Correct)
			}
		} else if listed {
			t.Errorf("item %d: both score %.1f, listed where the runs disagree", idx, va.Score)
		}
	}
	if sameVerdict == 0 {
		t.Fatalf("no item with agreeing verdicts and differing scores (%d differ): the fixture tests nothing", differ)
	}
	if !strings.Contains(table, `<span class="badge part"`) {
		t.Errorf("the compare cells of scores between 0 and 1 are not marked as such:\n%.3000s", table)
	}
}

// TestDebatePageCountsAndPlaces: each round says its counts and how it
// was decided (Game of 24's simulated debaters mostly all disagree: a tie
// the first agent's answer wins), and each agent's call, named r<r>/a<a>
// from 0 as it is stored, is shown with its place in the grid, numbered
// from 1 as the grid is.
func TestDebatePageCountsAndPlaces(t *testing.T) {
	t.Parallel()
	path, _, _, debate := misreadDB(t)
	srv := serveReadOnly(t, path)
	ties := 0
	for idx := 900; idx < 903; idx++ {
		code, body := get(t, fmt.Sprintf("%s/runs/%d/items/%d", srv.URL, debate, idx))
		if code != 200 {
			t.Fatalf("item %d: %d", idx, code)
		}
		grid := body[strings.Index(body, `<table class="debate">`):]
		grid = grid[:strings.Index(grid, "</table>")]
		if n := strings.Count(grid, " of 3 agents"); n != 2 {
			t.Errorf("item %d: %d rounds of 2 give their counts of the 3 agents:\n%s", idx, n, grid)
		}
		if strings.Contains(grid, "tie at 1 of 3 agents each") {
			ties++
			if !strings.Contains(grid, "agent 1&#39;s") || !strings.Contains(grid, "a tie goes to the answer given first") {
				t.Errorf("item %d: a tie without its rule:\n%s", idx, grid)
			}
		}
		for r := range 2 {
			for a := range 3 {
				call := fmt.Sprintf(`<code class="small">r%d/a%d</code> <span class="small muted">(round %d, agent %d)</span>`, r, a, r+1, a+1)
				if !strings.Contains(body, call) {
					t.Errorf("item %d: the model calls lack %q", idx, call)
				}
			}
		}
	}
	if ties == 0 {
		t.Fatal("no round where every agent disagrees: the fixture tests no tie")
	}
}

// TestForgeableRuleMarked: a run scored by the code tasks' reference rule
// is marked FORGEABLE on the runs, run and compare pages; one scored by
// the isolated rule is not.
func TestForgeableRuleMarked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "forge.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := catalog.LookupTask("humaneval")
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, rule := range []string{"reference", "isolated"} {
		task, err := ts.New().(tasks.RuleChooser).WithRule(rule)
		if err != nil {
			t.Fatal(err)
		}
		spec, _ := json.Marshal(map[string]any{"rule": tasks.Rule(task), "config": map[string]any{"task": "humaneval", "rule": rule}})
		id, err := st.CreateRun(ctx, store.Run{Task: "humaneval", Strategy: "io", Model: "sim", Simulated: true, Range: "0:1", Spec: spec,
			Params: json.RawMessage(`{"k":1}`), Status: store.StatusDone})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.PutItem(ctx, store.Item{RunID: id, Index: 0, Key: "HumanEval/0", Correct: true, Score: 1}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	st.Close()
	srv := serveReadOnly(t, path)
	for _, page := range []string{"/", fmt.Sprintf("/runs/%d", ids[0]), fmt.Sprintf("/compare?runs=%d,%d", ids[0], ids[1])} {
		code, body := get(t, srv.URL+page)
		if code != 200 || !strings.Contains(body, "humaneval/reference") {
			t.Fatalf("%s: %d, no reference rule:\n%.2000s", page, code, body)
		}
		if strings.Count(body, "FORGEABLE") == 0 {
			t.Errorf("%s: the reference rule is not marked FORGEABLE:\n%.3000s", page, body)
		}
		if strings.Contains(body, "humaneval/isolated (FORGEABLE)") || strings.Contains(body, `humaneval/isolated <span class="badge bad forgeable"`) {
			t.Errorf("%s: the isolated rule is marked forgeable", page)
		}
	}
	code, body := get(t, fmt.Sprintf("%s/runs/%d", srv.URL, ids[1]))
	if code != 200 || strings.Contains(body, "FORGEABLE") {
		t.Errorf("run %d (isolated): %d, marked FORGEABLE", ids[1], code)
	}
}
