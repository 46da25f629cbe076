// Package verify is the verifier role: a model that scores a solution
// rather than writing one. A process reward model (prm) scores each step, an
// outcome reward model (orm) the whole answer, a generative verifier (llm)
// the probability that the solution is correct. Strategies that spend a
// budget by a verifier's judgement (best-of-N, beam search, DVTS) ask it
// through Env.Verifier; the engine builds one per item whose calls are
// recorded, identified, cached and costed like any model call.
package verify

import (
	"context"
	"fmt"
	"math"
)

// Kinds of verifier.
const (
	PRM = "prm" // a score per step
	ORM = "orm" // one score for the solution
	LLM = "llm" // a generative judge: P("Yes") or the vote of n samples
)

// Kinds lists the verifier kinds, the default first.
var Kinds = []string{PRM, ORM, LLM}

// Request is one solution to score.
type Request struct {
	// Call is the call's identity within the item (llm.Request.Call), where
	// it sits in the strategy's program: "s2/b1/verify".
	Call    string
	Problem string   // the problem as the generator saw it (the item's input)
	Steps   []string // the solution so far, split into steps (one for a whole answer)
}

// Scores are a verifier's judgement of one solution, each in [0,1]: one per
// step for a prm, one for the others.
type Scores []float64

// Verifier scores solutions.
type Verifier interface {
	Verify(ctx context.Context, req Request) (Scores, error)
	// Kind is one of Kinds.
	Kind() string
}

// Aggregations of step scores into one, as search-and-learn names them.
var Aggregations = []string{"last", "min", "prod", "mean"}

// Aggregate folds step scores into one score by the named rule.
func Aggregate(rule string, s Scores) (float64, error) {
	if len(s) == 0 {
		return 0, fmt.Errorf("aggregate %s: no scores", rule)
	}
	switch rule {
	case "last":
		return s[len(s)-1], nil
	case "min":
		m := math.Inf(1)
		for _, v := range s {
			m = math.Min(m, v)
		}
		return m, nil
	case "prod":
		p := 1.0
		for _, v := range s {
			p *= v
		}
		return p, nil
	case "mean":
		t := 0.0
		for _, v := range s {
			t += v
		}
		return t / float64(len(s)), nil
	}
	return 0, fmt.Errorf("unknown step aggregation %q: want one of last, min, prod, mean", rule)
}
