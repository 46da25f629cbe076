package results

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/catalog"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func samplesDetail(correct ...bool) []byte {
	var s []map[string]any
	for _, c := range correct {
		s = append(s, map[string]any{"answer": "x", "correct": c})
	}
	b, _ := json.Marshal(map[string]any{"samples": s})
	return b
}

// TestTallyOf: an io or cot item of several samples is read as its count
// right of k; a vote's item, a single sample and garbage are not.
func TestTallyOf(t *testing.T) {
	for _, c := range []struct {
		strategy string
		detail   []byte
		want     SampleTally
		ok       bool
	}{
		{"io", samplesDetail(false, true, true, false, true), SampleTally{3, 5}, true},
		{"cot", samplesDetail(false, false), SampleTally{0, 2}, true},
		{"io", samplesDetail(true), SampleTally{}, false},
		{"cotsc", samplesDetail(false, true, true), SampleTally{}, false},
		{"tot", samplesDetail(false, true), SampleTally{}, false},
		{"io", []byte(`garbage`), SampleTally{}, false},
		{"io", nil, SampleTally{}, false},
	} {
		got, ok := TallyOf(c.strategy, c.detail)
		if got != c.want || ok != c.ok {
			t.Errorf("TallyOf(%s, %s) = %v, %v; want %v, %v", c.strategy, c.detail, got, ok, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		score float64
		want  bool
	}{{0, false}, {1, false}, {0.4, true}, {1e-9, true}, {-0.1, false}, {1.5, false}} {
		if PartScore(c.score) != c.want {
			t.Errorf("PartScore(%v) != %v", c.score, c.want)
		}
	}
}

// TestOutcomeOf: a round's counts and how its answer was decided, from its
// agents' keys: a majority, a plurality that is not one, a tie that the
// first answer given wins, every agent abstaining.
func TestOutcomeOf(t *testing.T) {
	round := func(winner int, keys ...string) reading.DebateRound {
		rd := reading.DebateRound{Vote: reading.VoteResult{Winner: winner}}
		for _, k := range keys {
			turn := reading.DebateTurn{}
			if k != "" {
				turn.Key = &k
			}
			rd.Turns = append(rd.Turns, turn)
		}
		if winner >= 0 {
			rd.Vote.Key = keys[winner]
		}
		return rd
	}
	for _, c := range []struct {
		name  string
		rd    reading.DebateRound
		kind  string
		key   string
		votes int
		agent int
		text  string
	}{
		{"majority", round(1, "7", "5", "5"), RoundMajority, "5", 2, 2, `majority "5", 2 of 3 agents ("7": 1, "5": 2)`},
		{"unanimous", round(0, "5", "5", "5"), RoundMajority, "5", 3, 1, `majority "5", 3 of 3 agents ("5": 3)`},
		{"all disagree", round(0, "5", "7", "9"), RoundTie, "5", 1, 1,
			`tie at 1 of 3 agents each ("5": 1, "7": 1, "9": 1): agent 1's "5", as a tie goes to the answer given first`},
		{"tie of two with an abstention", round(1, "", "7", "5", "5", "7"), RoundTie, "7", 2, 2,
			`tie at 2 of 5 agents each ("7": 2, "5": 2, abstained: 1): agent 2's "7"`},
		{"plurality", round(0, "5", "5", "7", "8", "9"), RoundPlurality, "5", 2, 1, `plurality "5", 2 of 5 agents, not a majority`},
		{"none", round(-1, "", ""), RoundNone, "", 0, 0, "no answer: every agent abstained"},
		// A recorded vote is kept; a key no agent gave is not.
		{"recorded winner kept", round(2, "5", "7", "9"), RoundTie, "9", 1, 3, `agent 3's "9"`},
	} {
		o := OutcomeOf(c.rd)
		if o.Kind != c.kind || o.Key != c.key || o.Votes != c.votes || o.Agent != c.agent || !strings.Contains(o.Text(), c.text) {
			t.Errorf("%s: %+v %q; want %s %q %d votes agent %d, text with %q", c.name, o, o.Text(), c.kind, c.key, c.votes, c.agent, c.text)
		}
	}
	bogus := round(0, "5", "7")
	bogus.Vote.Key = "nobody's"
	if o := OutcomeOf(bogus); o.Key != "5" || o.Votes != 1 {
		t.Errorf("a recorded key no agent gave: %+v", o)
	}
}

// TestWinsLossesAddUp: io-like item means against a 0/1 baseline: the
// run scores higher on 2 items and lower on 1, yet loses on the mean;
// wins and losses are the score it gained and lost, adding up to n × the
// difference, and for 0/1 scores the discordant counts.
func TestWinsLossesAddUp(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	put := func(strategy string, scores ...float64) store.Run {
		id, err := st.CreateRun(ctx, store.Run{Task: "game24", Strategy: strategy, Model: "sim", Status: store.StatusDone})
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range scores {
			if err := st.PutItem(ctx, store.Item{RunID: id, Index: i, Score: s, Correct: s == 1}); err != nil {
				t.Fatal(err)
			}
		}
		r, err := st.GetRun(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	runs := []store.Run{put("cotsc", 0, 0, 1, 1), put("io", 0.2, 0.3, 0.1, 1), put("tot", 1, 0, 0, 1)}
	groups, err := Groups(ctx, st, cat, runs, render.Level)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := Compare(ctx, st, groups, 0, render.Level)
	if err != nil || len(cs) != 2 {
		t.Fatal(cs, err)
	}
	io, tot := cs[0], cs[1]
	if io.Test != stats.NamePairedT || io.RunOnly != 2 || io.BaselineOnly != 1 {
		t.Fatalf("io: %+v", io)
	}
	if math.Abs(io.Wins-0.5) > 1e-12 || math.Abs(io.Losses-0.9) > 1e-12 || math.Abs(io.Wins-io.Losses-4*io.Difference) > 1e-12 {
		t.Errorf("io: wins %v losses %v (difference %v), want 0.5 and 0.9", io.Wins, io.Losses, io.Difference)
	}
	if tot.Test != stats.NameMcNemar || tot.Wins != 1 || tot.Losses != 1 || tot.RunOnly != 1 || tot.BaselineOnly != 1 {
		t.Errorf("tot: %+v", tot)
	}
}

// TestBudgetMajorityNamed: a best-of-N run with select=majority (no
// verifier: its candidates' scores are none) gets rows named majority, as
// its parameter says, and no best or weighted rows.
func TestBudgetMajorityNamed(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	a, b := "a", "b"
	id, err := st.CreateRun(ctx, store.Run{Task: "game24", Strategy: "bon", Model: "sim", Status: store.StatusDone})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		detail, _ := json.Marshal(reading.TTSDetail{Select: "majority", Candidates: []reading.Candidate{{Key: &a}, {Key: &b, Correct: true}, {Key: &b, Correct: true}, {Key: &a}}})
		if err := st.PutItem(ctx, store.Item{RunID: id, Index: i, Detail: detail, CompletionTokens: 40}); err != nil {
			t.Fatal(err)
		}
	}
	run, err := st.GetRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := Budget(ctx, st, cat, []store.Run{run}, BudgetOptions{Curves: true, Curve: stats.DefaultCurveOptions})
	if err != nil || len(rows) != 3 {
		t.Fatalf("rows %+v, %v; want N'=1, 2, 4", rows, err)
	}
	for _, r := range rows {
		if r.Select != SelectMajority {
			t.Errorf("N'=%d: select %q, want majority", r.K, r.Select)
		}
	}
	if rows[2].Accuracy != 0 { // a and b tie at N'=4, a seen first
		t.Errorf("N'=4: %v", rows[2].Accuracy)
	}
}

// TestForgeableRows: a run whose spec records the code tasks' reference
// rule reads as forgeable, whether the spec holds the rule's description
// or (older runs) only its name; the isolated rule does not. ForgeableRuns
// names such runs and nothing else.
func TestForgeableRows(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	ts, err := catalog.LookupTask("humaneval")
	if err != nil {
		t.Fatal(err)
	}
	rule := func(name string) string {
		task, err := ts.New().(tasks.RuleChooser).WithRule(name)
		if err != nil {
			t.Fatal(err)
		}
		return tasks.Rule(task)
	}
	var runs []store.Run
	for _, spec := range []map[string]any{
		{"rule": rule("reference"), "config": map[string]any{"task": "humaneval", "rule": "reference"}},
		{"config": map[string]any{"task": "humaneval", "rule": "reference"}},
		{"rule": rule("isolated"), "config": map[string]any{"task": "humaneval"}},
		{"config": map[string]any{"task": "humaneval"}},
	} {
		b, _ := json.Marshal(spec)
		id, err := st.CreateRun(ctx, store.Run{Task: "humaneval", Strategy: "io", Model: "sim", Status: store.StatusDone, Spec: b})
		if err != nil {
			t.Fatal(err)
		}
		r, _ := st.GetRun(ctx, id)
		runs = append(runs, r)
	}
	rows, err := Rows(ctx, st, cat, runs)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, true, false, false} {
		if rows[i].RuleForgeable != want {
			t.Errorf("run %d (rule %q): forgeable %v, want %v", rows[i].RunID, rows[i].Rule, rows[i].RuleForgeable, want)
		}
	}
	if got := ForgeableRuns(rows); !strings.HasPrefix(got, "runs scored by a forgeable rule: 1, 2 (humaneval/reference). ") {
		t.Errorf("ForgeableRuns: %q", got)
	}
	if got := ForgeableRuns(rows[2:]); got != "" {
		t.Errorf("ForgeableRuns of isolated runs: %q", got)
	}
	for i, want := range []bool{true, false} {
		_, notes, err := Budget(ctx, st, cat, runs[2*i:2*i+1], BudgetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(strings.Join(notes, "\n"), "FORGEABLE"); got != want {
			t.Errorf("budget notes of run %d: forgeable note %v, want %v: %q", runs[2*i].ID, got, want, notes)
		}
	}
}
