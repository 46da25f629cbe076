package mathans

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// The Qwen2.5-Math sample (testdata/qwen25math_cot_sample.jsonl, MIT, from
// QwenLM/Qwen2.5-Math evaluation/data/eval_rm_maj_example): 15 MATH
// problems × 8 sampled solutions, with the answer Qwen's parser extracted
// (pred), its grader's verdict (score) and a reward model's score
// (pred_score, one per solution in a list).

type qwenRow struct {
	Idx      int         `json:"idx"`
	Answer   string      `json:"answer"` // MATH's gold answer
	GT       string      `json:"gt"`     // Qwen's normalised gold
	Response []string    `json:"response"`
	Pred     []string    `json:"pred"`
	Score    []bool      `json:"score"`
	RMLists  [][]float64 `json:"pred_score"`
	RM       []float64   `json:"-"`
}

func readQwenSample(t *testing.T) []qwenRow {
	t.Helper()
	f, err := os.Open("testdata/qwen25math_cot_sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []qwenRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r qwenRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		for _, l := range r.RMLists {
			r.RM = append(r.RM, l[0])
		}
		if len(r.Response) != 8 || len(r.Pred) != 8 || len(r.Score) != 8 || len(r.RM) != 8 {
			t.Fatalf("row %d: %d responses", r.Idx, len(r.Response))
		}
		rows = append(rows, r)
	}
	if len(rows) != 15 {
		t.Fatalf("%d rows", len(rows))
	}
	return rows
}

// qwenDisagreements are the lines where the math scorer's verdict is not
// Qwen's grader's, each with why ours is right: problem idx → reason.
var qwenDisagreements = map[int]string{
	// Gold \text{4:30 p.m.}; every sample answers \boxed{4:30 \text{ p.m.}}.
	// Qwen's strip_string turns the gold into "4:30p.." and the prediction
	// into "4:30" (it drops the trailing \text{ p.m.} as a unit), so its
	// grader says no to eight correct answers. The math rule reads both as
	// 4:30pm.
	3: "4:30 p.m. is 4:30 p.m.",
}

// TestQwenSampleVerdicts: the math scorer (our extraction and Equal
// against MATH's gold answer) agrees with Qwen's grader on every line but
// the listed ones, and on those disagrees on all eight.
func TestQwenSampleVerdicts(t *testing.T) {
	ctx := context.Background()
	agree, lines := 0, 0
	for _, r := range readQwenSample(t) {
		for i, resp := range r.Response {
			lines++
			ans, ok := Extract(resp)
			ours := ok && Equal(ctx, ans, r.Answer)
			_, listed := qwenDisagreements[r.Idx]
			switch {
			case ours == r.Score[i] && !listed:
				agree++
			case ours != r.Score[i] && listed:
				t.Logf("idx %d sample %d: ours %v, Qwen %v: %s", r.Idx, i, ours, r.Score[i], qwenDisagreements[r.Idx])
			case listed:
				t.Errorf("idx %d sample %d: listed as a disagreement, but both say %v", r.Idx, i, ours)
			default:
				t.Errorf("idx %d sample %d: extracted %q (Qwen %q), gold %q: ours %v, Qwen %v", r.Idx, i, ans, r.Pred[i], r.Answer, ours, r.Score[i])
			}
		}
	}
	if lines != 120 || agree != 112 {
		t.Errorf("%d of %d lines agree, want 112 of 120", agree, lines)
	}
}

// TestQwenSampleExtraction: our extraction reads the answer Qwen's parser
// read, as the same value, on every line.
func TestQwenSampleExtraction(t *testing.T) {
	ctx := context.Background()
	for _, r := range readQwenSample(t) {
		for i, resp := range r.Response {
			ans, ok := Extract(resp)
			if !ok {
				t.Errorf("idx %d sample %d: no answer", r.Idx, i)
				continue
			}
			if r.Idx == 3 { // Qwen dropped "p.m.": compare what is left
				if !strings.HasPrefix(Normalize(ans), r.Pred[i]) {
					t.Errorf("idx 3 sample %d: %q does not start with %q", i, ans, r.Pred[i])
				}
				continue
			}
			if !Equal(ctx, ans, r.Pred[i]) {
				t.Errorf("idx %d sample %d: we read %q, Qwen %q", r.Idx, i, ans, r.Pred[i])
			}
		}
	}
}

// qwenMajority is rm_maj_eval.py's maj@k choice: the answer most common
// among the preds (collections.Counter.most_common: ties go to the answer
// seen first), and the first sample giving it.
func qwenMajority(preds []string) int {
	count := map[string]int{}
	var order []string
	for _, p := range preds {
		if count[p] == 0 {
			order = append(order, p)
		}
		count[p]++
	}
	best := order[0]
	for _, p := range order {
		if count[p] > count[best] {
			best = p
		}
	}
	return slices.Index(preds, best)
}

// qwenBest is its rm@k choice: the first sample with the highest score.
func qwenBest(scores []float64) int {
	best := 0
	for i, s := range scores {
		if s > scores[best] {
			best = i
		}
	}
	return best
}

// TestQwenSampleVoteKeys: voting by our keys over our extractions picks
// the sample rm_maj_eval.py's majority picks on every problem.
func TestQwenSampleVoteKeys(t *testing.T) {
	ctx := context.Background()
	for _, r := range readQwenSample(t) {
		keys := make([]string, len(r.Response))
		for i, resp := range r.Response {
			ans, _ := Extract(resp)
			keys[i] = Key(ctx, ans)
		}
		if got, want := qwenMajority(keys), qwenMajority(r.Pred); got != want {
			t.Errorf("idx %d: our keys %q pick sample %d, Qwen's preds %q pick %d", r.Idx, keys, got, r.Pred, want)
		}
	}
}
