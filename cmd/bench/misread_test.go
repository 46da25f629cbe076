package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/store"
)

// Issue 43 part 5: output a researcher misreads. Each test here failed
// before its fix.

var tallyLine = regexp.MustCompile(`^item +(\d+) +right=(\d+)/(\d+) +score=([0-9.]+) +first=(right|wrong) `)

// TestMisreadShowTally: bench show lists an io k=10 item by how many of its
// samples were right, its score and its first sample's verdict (the
// output), never as correct=false beside a score of 0.400; --item says the
// same in words. Items of a vote keep correct=.
func TestMisreadShowTally(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "s.db")
	for _, s := range []string{"io", "cotsc"} {
		if code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", s, "--range", "900:910", "--set", "k=10"); code != 0 {
			t.Fatal(stderr)
		}
	}
	st, err := store.OpenReadOnly(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	items, err := st.Items(context.Background(), 1)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := cli(t, "show", "1", "--db", db)
	if code != 0 {
		t.Fatal(stderr)
	}
	if strings.Contains(out, "correct=") || !strings.Contains(out, "right=R/K: samples right of the item's K") {
		t.Errorf("io k=10 listed by correct=, or without the legend:\n%s", out)
	}
	seen, mixed := 0, 0
	for _, line := range strings.Split(out, "\n") {
		m := tallyLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		idx, _ := strconv.Atoi(m[1])
		right, _ := strconv.Atoi(m[2])
		score, _ := strconv.ParseFloat(m[4], 64)
		it := items[idx-900]
		if m[3] != "10" || math.Abs(float64(right)/10-it.Score) > 1e-9 || math.Abs(score-it.Score) > 5e-4 || (m[5] == "right") != it.Correct {
			t.Errorf("item %d: %q, stored score %v correct %v", idx, line, it.Score, it.Correct)
		}
		if (m[5] == "right") != (score >= 0.5) {
			mixed++ // a first sample that goes against the share: what correct= hid
		}
		seen++
	}
	if seen != len(items) || mixed == 0 {
		t.Errorf("%d tally lines of %d items, %d whose first sample goes against the share:\n%s", seen, len(items), mixed, out)
	}
	_, out, _ = cli(t, "show", "1", "--db", db, "--item", "901")
	it := items[1]
	want := fmt.Sprintf("right: %d of 10 samples  score: %.3f", int(math.Round(it.Score*10)), it.Score)
	if !strings.Contains(out, want) || strings.Contains(out, "correct: ") {
		t.Errorf("show --item lacks %q:\n%s", want, out)
	}
	_, out, _ = cli(t, "show", "2", "--db", db)
	if !strings.Contains(out, "item  900  correct=") || strings.Contains(out, "right=") {
		t.Errorf("cotsc's items are not listed by their vote's verdict:\n%s", out)
	}
}

// TestMisreadWinsLosses: against a 0/1 baseline, io k=10's items score in
// between; the wins and losses of its comparison are what it gained and
// lost (their difference is n × the difference, with its sign), not how
// many items it scored higher and lower, and the notes of both tables name
// only columns the table has.
func TestMisreadWinsLosses(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "w.db")
	for _, s := range []string{"cotsc", "io", "tot"} {
		args := []string{"run", "--db", db, "--task", "game24", "--strategy", s, "--range", "900:930"}
		if s != "tot" {
			args = append(args, "--set", "k=10")
		}
		if code, _, stderr := cli(t, args...); code != 0 {
			t.Fatal(stderr)
		}
	}
	code, out, stderr := cli(t, "compare", "--db", db, "1", "2", "3", "--format", "json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var doc struct {
		Comparisons []struct {
			Label        string
			N            int
			Difference   float64
			Test         string
			RunOnly      int `json:"run_only"`
			BaselineOnly int `json:"baseline_only"`
			Wins, Losses *float64
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Comparisons) != 2 {
		t.Fatalf("compare json: %v\n%s", err, out)
	}
	for _, c := range doc.Comparisons {
		if c.Wins == nil || c.Losses == nil {
			t.Fatalf("%s: no wins and losses in %s", c.Label, out)
		}
		if got := *c.Wins - *c.Losses; math.Abs(got-float64(c.N)*c.Difference) > 1e-6 {
			t.Errorf("%s: wins %v − losses %v = %v, want n × difference = %v", c.Label, *c.Wins, *c.Losses, got, float64(c.N)*c.Difference)
		}
		if c.Test == "McNemar" && (*c.Wins != float64(c.RunOnly) || *c.Losses != float64(c.BaselineOnly)) {
			t.Errorf("%s (0/1): wins/losses %v/%v, want the discordant items %d/%d", c.Label, *c.Wins, *c.Losses, c.RunOnly, c.BaselineOnly)
		}
	}
	io := doc.Comparisons[0]
	if io.Test == "McNemar" || io.Difference >= 0 || *io.Wins >= *io.Losses {
		t.Errorf("io k=10 against cotsc: %+v, want a paired t comparison it loses", io)
	}

	_, md, _ := cli(t, "compare", "--db", db, "1", "2", "3")
	expCode, exp, expErr := cli(t, "report", "--db", db, "--group", "--baseline", "1")
	if expCode != 0 {
		t.Fatal(expErr)
	}
	ioWins := fmt.Sprintf("%.1f/%.1f", *io.Wins, *io.Losses)
	if !strings.Contains(exp, "| "+ioWins+" |") && !strings.Contains(exp, " "+ioWins+" |") {
		t.Errorf("the experiment table lacks io's wins/losses %s:\n%s", ioWins, exp)
	}
	for name, table := range map[string]string{"compare": md, "experiment": exp} {
		header, notes, _ := strings.Cut(table, "\n")
		_, notes, _ = strings.Cut(notes, "\n\n")
		for _, col := range []string{"run only", "baseline only", "wins", "losses"} {
			if strings.Contains(notes, col) && !strings.Contains(header, col) {
				t.Errorf("%s: the notes name %q, the table has no such column:\n%s", name, col, table)
			}
		}
		if !strings.Contains(notes, "wins - losses = n * difference") {
			t.Errorf("%s: the notes do not say what wins and losses are for scores in between:\n%s", name, table)
		}
	}
}

// TestMisreadDebateShow: each round of a debate item says its counts and
// how its answer was taken (the simulated debaters of Game of 24 mostly
// all disagree: a tie, which the first agent's answer wins), and each
// agent's call by its stored identity.
func TestMisreadDebateShow(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "d.db")
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", "debate", "--range", "900:903"); code != 0 {
		t.Fatal(stderr)
	}
	ties := 0
	for idx := 900; idx < 903; idx++ {
		_, out, _ := cli(t, "show", "1", "--db", db, "--item", strconv.Itoa(idx))
		rounds := 0
		for _, line := range strings.Split(out, "\n") {
			if !strings.HasPrefix(line, "round ") {
				continue
			}
			rounds++
			if !strings.Contains(line, " of 3 agents") {
				t.Errorf("item %d: %q gives no counts", idx, line)
			}
			if strings.Contains(line, ": tie at ") {
				ties++
				if !strings.Contains(line, "agent 1's") || !strings.Contains(line, "a tie goes to the answer given first") {
					t.Errorf("item %d: a tie without its rule: %q", idx, line)
				}
			} else if strings.Contains(line, ": majority ") == strings.Contains(line, ": plurality ") {
				t.Errorf("item %d: %q says neither majority, plurality nor tie", idx, line)
			}
		}
		if rounds != 2 || !strings.Contains(out, "agent 3 (call r1/a2): key") {
			t.Errorf("item %d: %d rounds, or agents without their calls:\n%s", idx, rounds, out)
		}
	}
	if ties == 0 {
		t.Fatal("no tie in 3 items: the test tests no tie")
	}
}

// TestMisreadForgeableRule: a run scored by the code tasks' reference
// rule (the Reflexion preset with namespace=shared) is marked FORGEABLE,
// with the note, in the table bench run prints, bench report (Markdown,
// CSV, JSON, --by k, --by budget), bench show, bench compare and bench
// score; a run under the isolated rule is not.
func TestMisreadForgeableRule(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "f.db")
	code, out, stderr := cli(t, "run", "--db", db, "--preset", "reflexion-humaneval/reflexion", "--range", "0:2")
	if code != 0 {
		if strings.Contains(stderr, "sandbox") {
			t.Skip(stderr)
		}
		t.Fatal(stderr)
	}
	marked := func(what, s string) {
		t.Helper()
		if !strings.Contains(s, "humaneval/reference (FORGEABLE)") || !strings.Contains(s, "docs/code-verdicts.md#the-reference-rule-is-forgeable") {
			t.Errorf("%s: the reference rule unmarked, or without the note:\n%s", what, s)
		}
	}
	marked("bench run", out)
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "humaneval", "--strategy", "io", "--range", "0:2"); code != 0 {
		t.Fatal(stderr)
	}
	_, out, _ = cli(t, "report", "--db", db)
	marked("bench report", out)
	if strings.Contains(out, "humaneval/isolated (FORGEABLE)") || strings.Count(out, "FORGEABLE") != 2 {
		t.Errorf("bench report marks the isolated rule, or marks more than the one row and note:\n%s", out)
	}
	_, out, _ = cli(t, "report", "--db", db, "--format", "csv")
	if !strings.Contains(out, "humaneval/reference (FORGEABLE)") {
		t.Errorf("bench report csv: unmarked:\n%s", out)
	}
	_, out, _ = cli(t, "report", "--db", db, "--format", "json")
	var rows []struct {
		RunID         int64 `json:"run_id"`
		RuleForgeable bool  `json:"rule_forgeable"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 2 || !rows[0].RuleForgeable || rows[1].RuleForgeable {
		t.Errorf("bench report json: %v %+v", err, rows)
	}
	_, out, _ = cli(t, "show", "1", "--db", db)
	marked("bench show", out)
	_, out, _ = cli(t, "show", "2", "--db", db)
	if strings.Contains(out, "FORGEABLE") || strings.Contains(out, "rule: ") {
		t.Errorf("bench show of the isolated run:\n%s", out)
	}
	_, out, stderr = cli(t, "compare", "--db", db, "2", "1", "--allow-mixed-rules")
	if !strings.Contains(out, "runs scored by a forgeable rule: 1 (humaneval/reference)") || !strings.Contains(stderr, "FORGEABLE") {
		t.Errorf("bench compare: no mark of run 1's rule:\n%s\n%s", out, stderr)
	}
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "humaneval", "--strategy", "cotsc", "--set", "k=2", "--rule", "reference", "--range", "0:2"); code != 0 {
		t.Fatal(stderr)
	}
	for _, by := range []string{"k", "budget"} {
		_, out, stderr = cli(t, "report", "--db", db, "--runs", "3", "--by", by)
		if !strings.Contains(out, "runs scored by a forgeable rule: 3 (humaneval/reference)") {
			t.Errorf("bench report --by %s: no mark of run 3's rule:\n%s%s", by, out, stderr)
		}
	}
	_, out, _ = cli(t, "report", "--db", db, "--runs", "2", "--by", "budget")
	if strings.Contains(out, "FORGEABLE") {
		t.Errorf("bench report --by budget of an isolated run: marked\n%s", out)
	}
	_, _, stderr = cli(t, "score", "--task", "humaneval", "--rule", "reference", "--in", "../../tasks/code/testdata/gpt4_reflexion_humaneval_sample.jsonl")
	if !strings.Contains(stderr, "humaneval/reference (FORGEABLE)") {
		t.Errorf("bench score --rule reference: no mark on stderr: %s", stderr)
	}
}

// TestMisreadListSimulated: bench list --db marks the simulator's runs as
// report does.
func TestMisreadListSimulated(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "l.db")
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", "io", "--range", "900:901"); code != 0 {
		t.Fatal(stderr)
	}
	_, out, _ := cli(t, "list", "--db", db)
	_, runs, _ := strings.Cut(out, "runs in ")
	if !strings.Contains(runs, " sim (simulated) ") {
		t.Errorf("bench list --db: the simulator's run unmarked:\n%s", runs)
	}
}

// TestMisreadSimFlagsWithBaseURL: --sim-* flags with a base URL, where no
// simulator in this process would read them, are refused in one line
// (exit 2) before anything is stored or sent; without one they are taken.
// The endpoint is a live serve-sim, so a build that ignored the flags
// would run (and the proxy serve) instead: the commands get a deadline.
func TestMisreadSimFlagsWithBaseURL(t *testing.T) {
	t.Parallel()
	url := startServeSim(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")
	for _, args := range [][]string{
		{"run", "--db", db, "--task", "game24", "--strategy", "io", "--range", "900:901", "--base-url", url, "--sim-skill", "0.3"},
		{"run", "--db", db, "--task", "game24", "--strategy", "io", "--range", "900:901", "--model", "sim", "--sim-conformity", "0.1", "--base-url", url},
		{"proxy", "--db", db, "--name", "p", "--base-url", url, "--sim-slip", "0.1"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		var out, errb bytes.Buffer
		code := run(ctx, args, &out, &errb)
		cancel()
		stderr := errb.String()
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "--sim-") || !strings.Contains(stderr, "--base-url") {
			t.Errorf("%q: exit %d, %q; want exit 2 and one line naming the flags", args, code, stderr)
		}
	}
	if m, _ := filepath.Glob(db + "*"); len(m) != 0 {
		t.Errorf("a refused command left %v", m)
	}
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", "io", "--range", "900:901", "--sim-skill", "0.3"); code != 0 {
		t.Errorf("--sim-skill in process: exit %d %s", code, stderr)
	}
}

// TestMisreadBudgetSelect: bench report --by budget names best-of-N's
// select=majority rows majority, as the parameter does, and draws no best
// or weighted rows from a run no verifier scored.
func TestMisreadBudgetSelect(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "b.db")
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "gsm8k", "--strategy", "bon", "--range", "0:4", "--set", "select=majority", "--set", "n=4"); code != 0 {
		t.Fatal(stderr)
	}
	code, out, stderr := cli(t, "report", "--db", db, "--by", "budget", "--format", "csv")
	if code != 0 {
		t.Fatal(stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	col := strings.Index(lines[0], "select")
	if col < 0 || len(lines) < 2 {
		t.Fatalf("no select column:\n%s", out)
	}
	sel := len(strings.Split(lines[0][:col], ",")) - 1
	for _, l := range lines[1:] {
		if got := strings.Split(l, ",")[sel]; got != "majority" {
			t.Errorf("select %q in %q, want majority only", got, l)
		}
	}
}
