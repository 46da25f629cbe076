package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

// The Qwen2.5-Math sample (tasks/mathans/testdata, MIT): 15 MATH problems ×
// 8 solutions with Qwen's extracted answers (pred), its grader's verdicts
// (score) and a reward model's scores (pred_score).
type qwenSample struct {
	Idx      int         `json:"idx"`
	Answer   string      `json:"answer"`
	Response []string    `json:"response"`
	Pred     []string    `json:"pred"`
	Score    []bool      `json:"score"`
	RM       [][]float64 `json:"pred_score"`
}

func readQwen(t *testing.T) []qwenSample {
	t.Helper()
	f, err := os.Open("../tasks/mathans/testdata/qwen25math_cot_sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []qwenSample
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s qwenSample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if len(out) != 15 {
		t.Fatalf("%d problems", len(out))
	}
	return out
}

// rm_maj_eval.py's decisions, written from its rules: maj@k takes the most
// common pred (Counter.most_common: ties to the first seen) and its first
// sample; rm@k the first sample of the highest score. Each is right when
// Qwen's grader says that sample is.
func qwenMaj(preds []string) int {
	count := map[string]int{}
	best := ""
	for _, p := range preds {
		count[p]++
	}
	for _, p := range preds {
		if best == "" || count[p] > count[best] {
			best = p
		}
	}
	for i, p := range preds {
		if p == best {
			return i
		}
	}
	return -1
}

func qwenRM(scores [][]float64) int {
	best := 0
	for i, s := range scores {
		if s[0] > scores[best][0] {
			best = i
		}
	}
	return best
}

func mathFileTask(t *testing.T) tasks.Task {
	t.Helper()
	task, err := qa.New(qa.Options{Name: "qwen", Kind: "file", Rows: []qa.Row{{Question: "q", Answers: []string{"1"}}},
		Scorer: qa.ScorerMath, Rules: []string{qa.ScorerMath}})
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// TestScoreVotesReproduceQwen: bench score --vote answer and --vote best on
// the sample pick the samples rm_maj_eval.py's maj@8 and rm@8 pick on every
// problem, and the decisions are right where Qwen's are, but on problem 3
// (4:30 p.m., where Qwen's grader wrongly refuses every sample; see
// tasks/mathans qwenDisagreements).
func TestScoreVotesReproduceQwen(t *testing.T) {
	t.Parallel()
	sample := readQwen(t)
	var in bytes.Buffer
	for _, s := range sample {
		for i, r := range s.Response {
			line, _ := json.Marshal(map[string]any{"idx": s.Idx, "output": r, "verifier_score": s.RM[i][0], "answer": s.Answer})
			in.Write(append(line, '\n'))
		}
	}
	task := mathFileTask(t)
	for _, c := range []struct {
		vote    string
		pick    func(qwenSample) int
		qwenAcc int // rm_maj_eval.py's count of right decisions on the 15
	}{
		{"answer", func(s qwenSample) int { return qwenMaj(s.Pred) }, 14},
		{VoteBest, func(s qwenSample) int { return qwenRM(s.RM) }, 14},
	} {
		var out bytes.Buffer
		sum, err := ScoreLines(task, bytes.NewReader(in.Bytes()), &out, ScoreOptions{GroupBy: "idx", Vote: c.vote})
		if err != nil {
			t.Fatal(err)
		}
		groups := groupLines(t, out.String())
		qwenRight := 0
		for i, s := range sample {
			want := c.pick(s)
			g := groups[i]
			if int(g["pick"].(float64)) != want {
				t.Errorf("--vote %s: problem %d: picked sample %v, rm_maj_eval picks %d", c.vote, s.Idx, g["pick"], want)
			}
			if s.Score[want] {
				qwenRight++
			}
			if right := g["correct"].(bool); right != s.Score[want] && s.Idx != 3 {
				t.Errorf("--vote %s: problem %d: ours %v, Qwen %v", c.vote, s.Idx, right, s.Score[want])
			}
		}
		if qwenRight != c.qwenAcc || sum.VotedCorrect != c.qwenAcc+1 || sum.Groups != 15 {
			t.Errorf("--vote %s: Qwen right on %d (want %d), ours on %d of %d (want %d: problem 3 too)", c.vote, qwenRight, c.qwenAcc, sum.VotedCorrect, sum.Groups, c.qwenAcc+1)
		}
	}
}

func groupLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var gs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["group"] != nil {
			gs = append(gs, m["group"])
		}
	}
	return gs
}

// TestWeightedVote: scores summed per answer by the math key (\frac12 and
// 0.5 are one answer), ties to the answer seen first, abstainers skipped;
// best takes the single highest score.
func TestWeightedVote(t *testing.T) {
	t.Parallel()
	task := mathFileTask(t)
	lines := []struct {
		out   string
		score float64
	}{
		{"\\boxed{3}", 0.9},             // 3: 0.9
		{"\\boxed{\\frac12}", 0.5},      // 1/2: 0.5
		{"\\boxed{0.5}", 0.3},           // 1/2: 0.8
		{"no answer", 5},                // abstains under weighted; best picks it
		{"\\boxed{\\dfrac{1}{2}}", 0.2}, // 1/2: 1.0 > 0.9
	}
	var in bytes.Buffer
	for _, l := range lines {
		b, _ := json.Marshal(map[string]any{"idx": 7, "output": l.out, "verifier_score": l.score, "answer": "1/2"})
		in.Write(append(b, '\n'))
	}
	run := func(vote string) map[string]any {
		var out bytes.Buffer
		if _, err := ScoreLines(task, bytes.NewReader(in.Bytes()), &out, ScoreOptions{GroupBy: "idx", Vote: vote}); err != nil {
			t.Fatal(err)
		}
		return groupLines(t, out.String())[0]
	}
	if g := run(VoteWeighted); g["pick"].(float64) != 1 || g["correct"] != true || g["weight"].(float64) < 0.999 || g["weight"].(float64) > 1.001 {
		t.Errorf("weighted: %v", g)
	}
	if g := run(VoteBest); g["pick"].(float64) != 3 || g["correct"] != false {
		t.Errorf("best: %v", g)
	}
	if g := run("answer"); g["pick"].(float64) != 1 || g["correct"] != true || g["votes"].(float64) != 3 {
		t.Errorf("majority: %v", g)
	}
	// Ties: equal sums go to the answer seen first.
	if k, w, _ := WeightedVote(task, tasks.Instance{}, []string{"\\boxed{2}", "\\boxed{1}", "\\boxed{1}"}, []float64{1, 0.5, 0.5}); k != "2" || w != 0 {
		t.Errorf("tie: %q %d", k, w)
	}
	if BestOf([]float64{1, 3, 3}) != 1 || BestOf(nil) != -1 {
		t.Error("BestOf ties or empty")
	}
	// A line without a score is the user's to fix.
	_, err := ScoreLines(task, strings.NewReader(`{"idx": 1, "output": "\\boxed{1}", "answer": "1"}`), &bytes.Buffer{}, ScoreOptions{GroupBy: "idx", Vote: VoteBest})
	if ie := (InputError{}); !errors.As(err, &ie) || !strings.Contains(err.Error(), "verifier_score") {
		t.Errorf("missing score: %v", err)
	}
}
