package game24

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

// Markers by which the simulator recognises the bundled prompts, as a model
// recognises an instruction. Tests check the templates contain them.
const (
	markerTask = "obtain 24"
	markerCoT  = "Each step combines two of the remaining numbers"
)

// Responder answers Game of 24 prompts for the simulated model.
//
// Its model of solving is explicit: it plays three steps, each combining two
// numbers. With probability Skill a step is drawn from the moves that keep
// the numbers solvable (if any), otherwise from all moves. With probability
// Slip the written result of a step is off by one or two, and the model
// carries on with the wrong number. The answer is the expression the steps
// built, always claimed to equal 24, as real models do. IO and CoT prompts
// share this model; CoT also writes the steps out.
type Responder struct {
	moves *moveCache // nil: no memoisation
}

// NewResponder returns a responder that memoises its move analysis.
func NewResponder() Responder { return Responder{moves: newMoveCache()} }

// Respond implements sim.Responder.
func (r Responder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	// Each critique naming a failure raises Skill by Boost (llm/sim/learn.go);
	// Reflexion and Self-Refine prompts are answered in reflect.go.
	params = sim.Boosted(p, params)
	if c, ok := r.moves.respondLearning(p, rng, params); ok {
		return c, true
	}
	if c, ok := r.moves.respondReAct(p, rng, params); ok {
		return c, true
	}
	if c, ok := r.moves.respondSteps(p, rng, params); ok {
		return c, true
	}
	text := p.Last("user")
	var out string
	var ok bool
	switch {
	case strings.Contains(text, markerValueLast):
		out, ok = judgeAnswer(text, rng, params)
	case strings.Contains(text, markerValue):
		out, ok = r.moves.judgeNumbers(text, rng, params)
	case strings.Contains(text, markerVote):
		out, ok = r.moves.voteChoice(text, rng, params)
	case strings.Contains(text, markerPropose):
		out, ok = r.moves.propose(text, rng, params)
	case strings.Contains(text, markerPAL):
		out, ok = r.moves.writePAL(text, rng, params)
	case strings.Contains(text, markerTask):
		out, ok = r.moves.solve(text, rng, params)
	}
	if !ok {
		return llm.Choice{}, false
	}
	return llm.Choice{Content: out}, true
}

// solve answers the IO and CoT prompts, continuing any steps already
// written after the last Input (as tree search's sample mode asks).
func (c *moveCache) solve(text string, rng *rand.Rand, params sim.Params) (string, bool) {
	nums, ok := lastInput(text)
	if !ok {
		return "", false
	}
	if _, written, cont := strings.Cut(text[strings.LastIndex(text, "Input:"):], "Steps:"); cont { // with or without a newline after it (the ToT reference writes none)
		return c.continueSteps(nums, written, rng, params), true
	}
	steps, expr := c.play(newBoard(game24.Rats(nums)), rng, params)
	var b strings.Builder
	if strings.Contains(text, markerCoT) {
		b.WriteString("Steps:\n")
		for _, s := range steps {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(&b, "Answer: %s = 24", expr)
	return b.String(), true
}

// lastInput reads the numbers of the prompt's last "Input:" line.
func lastInput(text string) ([]int, bool) {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if rest, ok := strings.CutPrefix(l, "Input:"); ok {
			nums, err := game24.ParsePuzzle(rest)
			return nums, err == nil && len(nums) > 0
		}
	}
	return nil, false
}

// board is the simulated model's working state: the numbers left and the
// expression that built each of them.
type board struct {
	vals  []*big.Rat
	exprs []string
}

func newBoard(nums []*big.Rat) board {
	b := board{vals: nums, exprs: make([]string, len(nums))}
	for i, r := range nums {
		b.exprs[i] = game24.FormatNumber(r)
	}
	return b
}

// combine replaces entries i and j by result, built as (i op j).
func (b board) combine(i, j int, op byte, result *big.Rat) board {
	next := board{vals: make([]*big.Rat, 0, len(b.vals)-1), exprs: make([]string, 0, len(b.vals)-1)}
	for k := range b.vals {
		if k != i && k != j {
			next.vals = append(next.vals, b.vals[k])
			next.exprs = append(next.exprs, b.exprs[k])
		}
	}
	next.vals = append(next.vals, result)
	next.exprs = append(next.exprs, fmt.Sprintf("(%s %c %s)", b.exprs[i], op, b.exprs[j]))
	return next
}

// expression is the first entry's expression with minimal parentheses.
func (b board) expression() string {
	if e, err := game24.ParseExpr(b.exprs[0]); err == nil {
		return e.String()
	}
	return strings.TrimSuffix(strings.TrimPrefix(b.exprs[0], "("), ")")
}

// play runs the simulated solver from a board to a single number and
// returns the step lines and the final expression.
func (c *moveCache) play(b board, rng *rand.Rand, params sim.Params) ([]string, string) {
	var steps []string
	for len(b.vals) > 1 {
		m := c.chooseMove(b.vals, rng, params)
		result := m.Result
		if rng.Float64() < params.Slip {
			result = slip(result, rng)
		}
		b = b.combine(m.I, m.J, m.Op, result)
		steps = append(steps, fmt.Sprintf("%s %c %s = %s (left: %s)",
			game24.FormatNumber(m.A), m.Op, game24.FormatNumber(m.B), game24.FormatNumber(result), game24.FormatState(b.vals)))
	}
	return steps, b.expression()
}

// chooseMove picks a good move (one that keeps 24 reachable) with
// probability skill when there is one, else any move.
func (c *moveCache) chooseMove(state []*big.Rat, rng *rand.Rand, params sim.Params) game24.Move {
	o := c.options(state)
	from := o.all
	if rng.Float64() < params.Skill && len(o.good) > 0 {
		from = o.good
	}
	return pickMove(from, rng, params.Focus)
}

// pickMove draws one of moves, which are in the simulator's order of
// preference (options), with its stable preferences.
func pickMove(moves []game24.Move, rng *rand.Rand, focus float64) game24.Move {
	return moves[sim.PickRank(rng, focus, len(moves))]
}

// slip returns a plausible arithmetic mistake: the result off by one or two.
func slip(r *big.Rat, rng *rand.Rand) *big.Rat {
	d := int64(rng.IntN(2) + 1)
	if rng.IntN(2) == 0 {
		d = -d
	}
	return new(big.Rat).Add(r, big.NewRat(d, 1))
}
