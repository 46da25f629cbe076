// Package verifier is the simulated verifier, a declared simulator like the
// rest of simulator/: it answers the verifier role's requests (package
// verify) from the request alone, never from gold answers. A reward
// request (prm, orm) gets a score per step; a generative verifier's
// prompt (prompts/verify/judge.txt) gets "Yes" or "No", with log
// probabilities when asked.
//
// What it knows is arithmetic: it re-checks every equation a step states
// ("12 × 21 = 252", GSM8K's "<<48/2=24>>"), and for a problem made of
// numbers only (Game of 24's "4 4 6 8") the "(left: …)" bookkeeping of each
// step and that a final "Answer:" uses the puzzle's numbers, each once, to
// make 24. It scores like a process reward model trained on whether a
// prefix can still lead to a right answer: a step's score is about
// ScoreRight while every re-checked step so far holds, about ScoreWrong
// from the first that does not, and about ScorePrior while there was
// nothing to re-check (any text of other tasks: a noisy prior). Its noise is
// declared in sim.Params: each re-checked step is misread with probability
// VerifyFlip (a right step judged wrong or a wrong one right), and each score
// is scattered uniformly within ±VerifySpread.
//
// A reward model scores; it does not sample: a step's score is a function
// of the problem and the steps up to it only (a step scored in a longer
// solution scores as it did when it was the last), the same at any seed,
// in process or over serve-sim's /pooling. A generative verifier samples
// its Yes or No from its P(Yes) with the request's seed.
package verifier

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// The simulated verifier's score levels, before the spread.
const (
	ScoreRight = 0.9 // every re-checked step so far holds
	ScoreWrong = 0.1 // a re-checked step so far does not
	ScorePrior = 0.6 // nothing re-checked yet
)

// The generative verifier's prompt as prompts/verify/judge.txt words it;
// the responder's tests check the template carries these markers.
const (
	JudgeMarker   = "Is the solution correct? Answer with one word, Yes or No."
	problemMarker = "Problem:\n"
	solMarker     = "\n\nSolution:\n"
)

// Responder answers verifier requests.
type Responder struct{}

// Respond implements sim.Responder.
func (Responder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	if p.Reward != nil {
		return rewardChoice(p, params), true
	}
	text := p.Last("user")
	if !strings.Contains(text, JudgeMarker) {
		return llm.Choice{}, false
	}
	problem, solution, ok := judgeParts(text)
	if !ok {
		return llm.Choice{Content: sim.Fallback}, true
	}
	return judgeChoice(problem, solution, p, rng, params), true
}

// rewardChoice scores a reward request: the problem is the last user turn,
// the steps the last assistant turn split at the request's separator.
func rewardChoice(p sim.Prompt, params sim.Params) llm.Choice {
	problem, solution := p.Last("user"), p.Last("assistant")
	steps := []string{solution}
	if sep := p.Reward.Sep; sep != "" && strings.Contains(solution, sep) {
		steps = strings.Split(solution, sep)
		if steps[len(steps)-1] == "" { // each step is followed by the tag
			steps = steps[:len(steps)-1]
		}
	}
	b, _ := json.Marshal(Scores(problem, steps, params))
	return llm.Choice{Content: string(b)}
}

// Scores are the simulated verifier's step scores.
func Scores(problem string, steps []string, params sim.Params) []float64 {
	c := newChecker(problem)
	h := fnv.New64a()
	h.Write([]byte(problem))
	bad := false
	out := make([]float64, len(steps))
	for i, st := range steps {
		h.Write([]byte{0})
		h.Write([]byte(st))
		rng := rand.New(rand.NewPCG(h.Sum64(), uint64(i))) // the prefix's own draws
		flip, scatter := rng.Float64(), rng.Float64()
		v := c.checkStep(st)
		if v != unchecked && flip < params.VerifyFlip {
			v = right + wrong - v
		}
		base := ScorePrior
		switch {
		case bad || v == wrong:
			bad, base = true, ScoreWrong
		case v == right:
			base = ScoreRight
		}
		s := base + (2*scatter-1)*params.VerifySpread
		out[i] = math.Round(min(max(s, 0.01), 0.99)*1e4) / 1e4
	}
	return out
}

// checkStep re-checks a step line by line: wrong if a line is, right if a
// line could be re-checked.
func (c *checker) checkStep(step string) verdict {
	v := unchecked
	for _, line := range strings.Split(step, "\n") {
		switch c.check(line) {
		case wrong:
			v = wrong
		case right:
			if v == unchecked {
				v = right
			}
		}
	}
	return v
}

// judgeParts reads the problem and the solution out of the judge prompt.
func judgeParts(text string) (problem, solution string, ok bool) {
	_, rest, ok1 := strings.Cut(text, problemMarker)
	problem, rest, ok2 := strings.Cut(rest, solMarker)
	solution, _, ok3 := strings.Cut(rest, "\n\n"+JudgeMarker)
	return problem, solution, ok1 && ok2 && ok3
}

// judgeChoice answers the judge prompt: P(Yes) is the last line's score of
// the solution read line by line; the answer is drawn from it (greedy at
// temperature 0), with the first token's log probabilities when asked.
func judgeChoice(problem, solution string, p sim.Prompt, rng *rand.Rand, params sim.Params) llm.Choice {
	s := Scores(problem, strings.Split(solution, "\n"), params)
	py := s[len(s)-1]
	yes := py >= 0.5
	if p.Temperature > 0 {
		yes = rng.Float64() < py
	}
	c := llm.Choice{Content: "No"}
	if yes {
		c.Content = "Yes"
	}
	if p.TopLogprobs > 0 {
		ly, ln := math.Log(py), math.Log(1-py)
		lp := ln
		if yes {
			lp = ly
		}
		c.Logprobs = []llm.TokenLogprob{{Token: c.Content, Logprob: lp,
			Top: []llm.TopLogprob{{Token: "Yes", Logprob: ly}, {Token: "No", Logprob: ln}}[:min(2, p.TopLogprobs)]}}
		if p.TopLogprobs == 1 && !yes { // the likeliest first
			c.Logprobs[0].Top = []llm.TopLogprob{{Token: "No", Logprob: ln}}
		}
	}
	return c
}
