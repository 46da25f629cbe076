package crosswords

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// logLine is a line of the published samples in testdata (io, cot: r_game;
// DFS states: count, no r_game).
type logLine struct {
	Idx     int      `json:"idx"`
	Output  string   `json:"output"`
	Actions []string `json:"actions"`
	RLetter float64  `json:"r_letter"`
	RWord   float64  `json:"r_word"`
	RGame   *bool    `json:"r_game"`
}

func readLog(t *testing.T, name string) []logLine {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []logLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l logLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no lines", name)
	}
	return out
}

// TestScoreReproducesPublishedMetrics: the paper rule gives every logged
// r_letter, r_word and r_game of GPT-4's io and cot answers and of every
// state of both DFS runs (solved ⇔ r_letter = 1 there), bit for bit.
func TestScoreReproducesPublishedMetrics(t *testing.T) {
	task := NewTask()
	for _, name := range []string{"gpt4_io_sample.jsonl", "gpt4_cot_sample.jsonl", "gpt4_tot_dfs_prune_sample.jsonl", "gpt4_tot_dfs_no_prune_sample.jsonl"} {
		lines := readLog(t, name)
		for i, l := range lines {
			sc, err := task.ScoreRecord(map[string]any{"idx": float64(l.Idx), "output": l.Output})
			if err != nil {
				t.Fatalf("%s line %d: %v", name, i+1, err)
			}
			game := l.RLetter == 1
			if l.RGame != nil {
				game = *l.RGame
			}
			if sc.Metrics["letter"] != l.RLetter || sc.Metrics["word"] != l.RWord || sc.Correct != game || (sc.Metrics["game"] == 1) != game {
				t.Errorf("%s line %d: got %v correct=%v, logged letter %v word %v game %v", name, i+1, sc.Metrics, sc.Correct, l.RLetter, l.RWord, game)
			}
			if l.Actions != nil && l.Output != strings.Join(l.Actions, "\n") {
				t.Errorf("%s line %d: output is not the actions joined", name, i+1)
			}
		}
	}
}

func TestGridActions(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want []string
	}{
		{"T A S K\nM O T O R", []string{"h1. TASK_", "h2. MOTOR"}},
		{"Thoughts:\nblah\n\nOutput:\nA C T I O N\nACTION\n", []string{"h1. ACTIO", "h2. ACTION"}},
		{"", []string{"h1. _____"}},
		{"a\nb\nc\nd\ne\nf g", []string{"h1. b____", "h2. c____", "h3. d____", "h4. e____", "h5. fg___"}},
	} {
		got := GridActions(tc.out)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("GridActions(%q) = %q, want %q", tc.out, got, tc.want)
		}
	}
}

// TestBoardApply: later words overwrite crossing letters and mark the
// crossing clue changed; invalid actions only count as steps.
func TestBoardApply(t *testing.T) {
	b := NewBoard()
	for _, a := range []string{"h1. heart", "v1. hxxxx"} {
		if err := b.Apply(a); err != nil {
			t.Fatal(err)
		}
	}
	if b.AnyChanged() || b.Word(0) != "HEART" || b.Word(5) != "HXXXX" {
		t.Fatalf("agreeing crossing: %v %q %q", b.Status, b.Word(0), b.Word(5))
	}
	if err := b.Apply("v2. zzzzz"); err != nil {
		t.Fatal(err)
	}
	if b.Status[0] != Changed || b.Status[6] != Filled || b.Word(0) != "HZART" {
		t.Errorf("overwrite: status %v h1 %q", b.Status, b.Word(0))
	}
	for _, bad := range []string{"h1 heart", "h6. heart", "x1. heart", "h1. hearts", "h1. a. b", "", "v0. apple", "h-1. apple"} {
		c := b
		if err := c.Apply(bad); err == nil {
			t.Errorf("Apply(%q): no error", bad)
		}
		if c.Steps != b.Steps+1 || c.Cells != b.Cells {
			t.Errorf("Apply(%q): steps %d cells changed %v", bad, c.Steps, c.Cells != b.Cells)
		}
	}
}

func TestScoreRecordErrors(t *testing.T) {
	task := NewTask()
	for _, rec := range []map[string]any{{}, {"idx": 20.0, "output": ""}, {"idx": -1.0, "output": ""}, {"idx": 1.5, "output": ""}, {"idx": "3", "output": ""}, {"idx": 3.0}} {
		if _, err := task.ScoreRecord(rec); err == nil {
			t.Errorf("%v: no error", rec)
		}
	}
}

func FuzzScore(f *testing.F) {
	f.Add("T A S K\nM O T O R")
	f.Add("h2. motor\nh1. tasks")
	f.Add("Output:\n\x00\xff ß ǅ\n")
	task := NewTask()
	insts, err := task.Instances()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, out string) {
		sc := task.Score(insts[3], out)
		l, w := sc.Metrics["letter"], sc.Metrics["word"]
		if l < 0 || l > 1 || w < 0 || w > 1 || sc.Correct != (l == 1) {
			t.Fatalf("metrics %v correct %v", sc.Metrics, sc.Correct)
		}
		if sc.Correct && w != 1 {
			t.Fatalf("solved board with word %v", w)
		}
	})
}

// FuzzParsers: the readings of model output in the DFS. A proposal is
// always a valid action with a known confidence weight; a verdict is one
// of the three or none, and a last line naming one is read as it; an
// invalid action only counts a step; a grid gives at most 5 row actions.
func FuzzParsers(f *testing.F) {
	f.Add("h1. apple (certain)\nv3. Fudge (low) because\nh6. apple (high)\nh2. app (medium)")
	f.Add("blah\n  sure  ")
	f.Add("h1. ß. x")
	f.Add("Output:\nA B C D E F G\n\n")
	task := NewTask()
	weights := map[float64]bool{1: true, 0.5: true, 0.2: true, 0.1: true}
	f.Fuzz(func(t *testing.T, out string) {
		ps := task.Proposals(out)
		if len(ps) > strings.Count(out, "\n")+1 {
			t.Fatalf("%d proposals from %d lines", len(ps), strings.Count(out, "\n")+1)
		}
		for _, p := range ps {
			clue, word, err := ParseAction(p.Action)
			if err != nil || clue < 0 || clue >= 2*Size || word != strings.ToLower(word) || !weights[p.Weight] {
				t.Fatalf("proposal %q weight %v: %v", p.Action, p.Weight, err)
			}
		}
		v := task.Verdict(out)
		if v != "" && v != "sure" && v != "maybe" && v != "impossible" {
			t.Fatalf("verdict %q", v)
		}
		if got := task.Verdict(out + "\n impossible\t"); got != "impossible" {
			t.Fatalf("last line impossible read as %q", got)
		}
		b := NewBoard()
		_ = b.Apply("h3. crane")
		c := b
		if err := c.Apply(out); err != nil {
			if c.Cells != b.Cells || c.Status != b.Status || c.Steps != b.Steps+1 {
				t.Fatalf("invalid action %q changed the board", out)
			}
		} else if clue, word, _ := ParseAction(out); c.Status[clue] != Filled || utf8.RuneCountInString(c.Word(clue)) != Size || utf8.RuneCountInString(word) != Size {
			t.Fatalf("action %q: clue %d is %q, status %v", out, clue, c.Word(clue), c.Status[clue])
		}
		acts := GridActions(out)
		if len(acts) == 0 || len(acts) > Size {
			t.Fatalf("%d grid actions", len(acts))
		}
		for i, a := range acts {
			if !strings.HasPrefix(a, ClueName(i)+". ") {
				t.Fatalf("grid action %d is %q", i, a)
			}
		}
	})
}
