package verifier

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

func TestEquations(t *testing.T) {
	for _, tc := range []struct {
		text string
		want verdict
	}{
		{"She makes 24 + 18 = 42 rolls.", right},
		{"She makes 24 + 18 = 43 rolls.", wrong},
		{"He reads 12 × 21 = 252 pages.", right},
		{"Natalia sold 48/2 = <<48/2=24>>24 clips", right},
		{"Natalia sold 48/2 = <<48/2=25>>25 clips", wrong},
		{"75 ÷ 6 = 12.5, so 12 boxes are not enough.", right},
		{"10 / 3 = 3.33 per person", right},
		{"10 / 3 = 3.4 per person", wrong},
		{"After selling 35, 42 - 35 = 7 rolls are left.", right},
		{"It costs $1,200 + $300 = $1,500.", right},
		{"(6 - 4) * (4 + 8) = 24", right},
		{"5 / 0 = 5", wrong},
		{"2 / 8 = 1/4 (left: 1/4 5 11)", right},
		{"6 / 1/4 = 24", right},
		{"2 / 12 = -11/6", wrong},
		{"5/11 - 1/4 = 9/44", right},
		{"12/3 * 2 = 8", right},
		{"Let x = 5 be the number of apples.", unchecked},
		{"We add them up.", unchecked},
		{"", unchecked},
	} {
		if got := newChecker("A word problem.").checkStep(tc.text); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestGame24Bookkeeping(t *testing.T) {
	c := newChecker("4 4 6 8")
	for _, tc := range []struct {
		step string
		want verdict
	}{
		{"4 + 8 = 12 (left: 4 6 12)", right},
		{"6 - 4 = 2 (left: 2 12)", right},
		{"2 * 12 = 24 (left: 24)", right},
		{"Answer: (6 - 4) * (4 + 8) = 24", right},
	} {
		if got := c.checkStep(tc.step); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.step, got, tc.want)
		}
	}
	// Negative numbers on the table.
	c = newChecker("4 5 6 10")
	for _, step := range []string{"6 - 10 = -4 (left: -4 4 5)", "4 * 5 = 20 (left: -4 20)", "20 - -4 = 24 (left: 24)", "Answer: 4 * 5 - (6 - 10) = 24"} {
		if got := c.checkStep(step); got != right {
			t.Errorf("%q: %v, want right", step, got)
		}
	}
	// Fractions on the table.
	c = newChecker("2 5 8 11")
	for _, step := range []string{"2 / 8 = 1/4 (left: 1/4 5 11)", "11 - 5 = 6 (left: 1/4 6)", "6 / 1/4 = 24 (left: 24)", "Answer: (11 - 5) / (2 / 8) = 24"} {
		if got := c.checkStep(step); got != right {
			t.Errorf("%q: %v, want right", step, got)
		}
	}
	for _, tc := range []struct{ step string }{
		{"4 + 8 = 12 (left: 4 8 12)"},      // arithmetic right, bookkeeping wrong
		{"5 + 8 = 13 (left: 4 4 6 13)"},    // 5 is not on the table
		{"Answer: (6 - 4) * (4 + 8) = 25"}, // not 24
		{"Answer: (8 - 4) * (4 + 2) = 24"}, // 2 is not the puzzle's
		{"Answer: 4 * 6 = 24"},             // numbers left out
	} {
		if got := newChecker("4 4 6 8").checkStep(tc.step); got != wrong {
			t.Errorf("%q: %v, want wrong", tc.step, got)
		}
	}
}

// steps writes a random GSM8K-like solution of n steps, step bad (if ≥ 0)
// with a wrong result.
func steps(rng *rand.Rand, n, bad int) []string {
	out := make([]string, n)
	for i := range out {
		a, b := rng.IntN(90)+10, rng.IntN(90)+10
		c := a + b
		if i == bad {
			c += rng.IntN(9) + 1
		}
		out[i] = fmt.Sprintf("Then there are %d + %d = %d apples.", a, b, c)
	}
	return out
}

// At the default noise the simulated verifier scores a wrong step below
// one half far more often than not, and a right step above it.
func TestCatchesWrongSteps(t *testing.T) {
	p := sim.DefaultParams()
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 2000
	caught, passed := 0, 0
	for i := range trials {
		s := steps(rng, 4, 2)
		sc := Scores(fmt.Sprintf("Problem %d", i), s, p)
		if sc[2] < 0.5 {
			caught++
		}
		good := steps(rng, 4, -1)
		if sc := Scores(fmt.Sprintf("Problem %d", i), good, p); sc[3] > 0.5 {
			passed++
		}
	}
	t.Logf("wrong step caught %d/%d, right solution passed %d/%d", caught, trials, passed, trials)
	if caught <= trials/2 || passed <= trials/2 {
		t.Fatalf("caught %d, passed %d of %d: want more than half each", caught, passed, trials)
	}
	// A right step misread poisons the rest, as a wrong one: four steps
	// pass with probability 0.9^4.
	if pass := float64(passed) / trials; pass < 0.6 || pass > 0.71 {
		t.Errorf("passed %.3f of right four-step solutions, want about %.3f", pass, math.Pow(1-p.VerifyFlip, 4))
	}
	// The flip rate is what it is declared to be: about 10% missed.
	if miss := float64(trials-caught) / trials; miss < 0.06 || miss > 0.14 {
		t.Errorf("missed %.3f of wrong steps at verify_flip %.2f", miss, p.VerifyFlip)
	}
	// With no flips and no spread the verdicts are exact.
	exact := p
	exact.VerifyFlip, exact.VerifySpread = 0, 0
	sc := Scores("p", steps(rng, 4, 1), exact)
	if fmt.Sprint(sc) != fmt.Sprint([]float64{ScoreRight, ScoreWrong, ScoreWrong, ScoreWrong}) {
		t.Errorf("exact scores %v", sc)
	}
	if sc := Scores("p", []string{"We think.", "No numbers here."}, exact); sc[0] != ScorePrior || sc[1] != ScorePrior {
		t.Errorf("prior scores %v", sc)
	}
}

// A step's score depends on the problem and the steps up to it only.
func TestScoresAreCausal(t *testing.T) {
	p := sim.DefaultParams()
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		s := steps(rng, 5, rng.IntN(6)-1)
		full := Scores("q", s, p)
		for k := 1; k <= len(s); k++ {
			if pre := Scores("q", s[:k], p); fmt.Sprint(pre) != fmt.Sprint(full[:k]) {
				t.Fatalf("prefix %d scored %v, in the full solution %v", k, pre, full[:k])
			}
		}
	}
}

// Through the simulated model: a reward request is answered from its text
// alone (any seed), completion tokens none; the judge answers Yes/No with
// log probabilities only when asked.
func TestThroughSimModel(t *testing.T) {
	m, err := sim.New(sim.DefaultParams(), Responder{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := llm.Request{Messages: []llm.Message{{Role: "user", Content: "Tom has 3 bags."},
		{Role: "assistant", Content: "3 + 4 = 7<extra_0>7 * 2 = 15<extra_0>"}}, Reward: &llm.Reward{Kind: "prm", Sep: "<extra_0>"}}
	var first string
	for seed := range int64(5) {
		req.Seed = seed
		resp, err := m.Sample(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		var s []float64
		if err := json.Unmarshal([]byte(resp.Choices[0].Content), &s); err != nil || len(s) != 2 {
			t.Fatalf("content %q: %v", resp.Choices[0].Content, err)
		}
		if resp.Usage.CompletionTokens != 0 || resp.Usage.PromptTokens == 0 {
			t.Errorf("usage %+v", resp.Usage)
		}
		if first == "" {
			first = resp.Choices[0].Content
		} else if resp.Choices[0].Content != first {
			t.Errorf("seed %d: %s, seed 0: %s", seed, resp.Choices[0].Content, first)
		}
	}
	tmpl, err := os.ReadFile("../../prompts/verify/judge.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, mk := range []string{JudgeMarker, problemMarker, solMarker} {
		if !strings.Contains(string(tmpl), mk) {
			t.Fatalf("prompts/verify/judge.txt lacks the marker %q", mk)
		}
	}
	judge := strings.NewReplacer("{{.Problem}}", "Tom has 3 bags.", "{{.Solution}}", "3 + 4 = 7\n7 * 2 = 14").Replace(string(tmpl))
	jr := llm.Request{Messages: []llm.Message{{Role: "user", Content: judge}}, N: 20, Temperature: llm.Temp(1)}
	resp, err := m.Sample(ctx, jr)
	if err != nil {
		t.Fatal(err)
	}
	yes := 0
	for _, c := range resp.Choices {
		if c.Logprobs != nil {
			t.Fatal("log probabilities without asking")
		}
		if c.Content == "Yes" {
			yes++
		} else if c.Content != "No" {
			t.Fatalf("judge said %q", c.Content)
		}
	}
	// P(Yes) is the simulated verifier's score of the last line.
	sc := Scores("Tom has 3 bags.", []string{"3 + 4 = 7", "7 * 2 = 14"}, sim.DefaultParams())
	if py := sc[1]; float64(yes)/20 < py-0.3 || float64(yes)/20 > py+0.3 {
		t.Errorf("judged Yes %d/20 times at P(Yes) %v", yes, py)
	}
	jr.TopLogprobs = 5
	resp, err = m.Sample(ctx, jr)
	if err != nil {
		t.Fatal(err)
	}
	if lp := resp.Choices[0].Logprobs; len(lp) != 1 || len(lp[0].Top) != 2 || math.Abs(math.Exp(lp[0].Top[0].Logprob)-sc[1]) > 1e-9 {
		t.Fatalf("logprobs %+v, want P(Yes) %v", lp, sc[1])
	}
}
