package game24

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

// The simulator's answers to the Tree of Thoughts prompts. The same noise
// parameters apply: a proposed step is a good one (keeps 24 reachable) with
// probability Skill and its written result is wrong with probability Slip;
// a judgement (value or vote) is wrong with probability Misjudge.

const (
	markerPropose   = "Possible next steps:"
	markerValue     = "Evaluate if given numbers can reach 24"
	markerValueLast = "Given an input and an answer, give a judgement"
	markerVote      = "decide which choice is most promising"
	// proposalsPerCall is how many steps the simulated model lists.
	proposalsPerCall = 8
)

// parseNumbers reads "6 10 20", "8/3 9", "-6 5" or "1.5 10".
func parseNumbers(s string) ([]*big.Rat, bool) {
	var out []*big.Rat
	for _, f := range strings.Fields(s) {
		neg := strings.HasPrefix(f, "-")
		e, err := game24.ParseExpr(strings.TrimPrefix(f, "-"))
		if err != nil {
			return nil, false
		}
		v := e.Value()
		if neg {
			v = new(big.Rat).Neg(v)
		}
		out = append(out, v)
	}
	return out, len(out) > 0
}

// afterLast returns the text after the last occurrence of prefix at a line
// start, up to the end of that line.
func afterLast(text, prefix string) (string, bool) {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), prefix); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// propose lists up to eight next steps from the numbers of the last Input.
func (c *moveCache) propose(text string, rng *rand.Rand, p sim.Params) (string, bool) {
	in, ok := afterLast(text, "Input:")
	if !ok {
		return "", false
	}
	state, ok := parseNumbers(in)
	if !ok {
		return "", false
	}
	o := c.options(state)
	moves, good := o.all, o.good
	seen := map[string]bool{}
	var lines []string
	for range proposalsPerCall {
		if len(moves) == 0 {
			break
		}
		from := moves
		if len(good) > 0 && rng.Float64() < p.Skill {
			from = good
		}
		m := pickMove(from, rng, p.Focus)
		result := m.Result
		if rng.Float64() < p.Slip {
			result = slip(result, rng)
		}
		left := append(append([]*big.Rat{}, m.Left[:len(m.Left)-1]...), result)
		line := fmt.Sprintf("%s %c %s = %s (left: %s)", game24.FormatNumber(m.A), m.Op, game24.FormatNumber(m.B), game24.FormatNumber(result), game24.FormatState(left))
		if !seen[line] {
			seen[line] = true
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n"), true
}

// judgeNumbers answers the value prompt for the numbers on its last line.
func (c *moveCache) judgeNumbers(text string, rng *rand.Rand, p sim.Params) (string, bool) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	state, ok := parseNumbers(lines[len(lines)-1])
	if !ok {
		return "", false
	}
	reachable := game24.Solvable(state)
	if rng.Float64() < p.Misjudge {
		reachable = !reachable
	}
	nums := game24.FormatState(state)
	switch {
	case !reachable && game24.Solvable(state):
		return nums + " look hard to combine\nimpossible", true
	case !reachable:
		return "I cannot see a way to reach 24 with " + nums + "\nimpossible", true
	case len(state) <= 2 || rng.IntN(2) == 0:
		return "I can combine " + nums + " into 24\nsure", true
	default:
		return "I cannot obtain 24 now, but " + nums + " are within a reasonable range\nlikely", true
	}
}

// judgeAnswer answers the last-step value prompt.
func judgeAnswer(text string, rng *rand.Rand, p sim.Params) (string, bool) {
	in, ok1 := afterLast(text, "Input:")
	ans, ok2 := afterLast(text, "Answer:")
	nums, err := game24.ParsePuzzle(in)
	if !ok1 || !ok2 || err != nil {
		return "", false
	}
	right := game24.Check(nums, "Answer: "+ans).Correct
	if rng.Float64() < p.Misjudge {
		right = !right
	}
	if right {
		return "sure", true
	}
	return "impossible", true
}

var choiceHeader = regexp.MustCompile(`(?m)^Choice (\d+):\s*$`)

// voteChoice picks the most promising choice: with probability 1-Misjudge
// one whose numbers can still reach 24 (or whose answer is right).
func (c *moveCache) voteChoice(text string, rng *rand.Rand, p sim.Params) (string, bool) {
	in, ok := afterLast(text, "Input:")
	nums, err := game24.ParsePuzzle(in)
	if !ok || err != nil {
		return "", false
	}
	locs := choiceHeader.FindAllStringSubmatchIndex(text, -1)
	if len(locs) == 0 {
		return "", false
	}
	var promising []int
	for k, loc := range locs {
		end := len(text)
		if k+1 < len(locs) {
			end = locs[k+1][0]
		}
		if promisingState(nums, text[loc[1]:end]) {
			promising = append(promising, k+1)
		}
	}
	pick := 1 + rng.IntN(len(locs))
	if len(promising) > 0 && rng.Float64() >= p.Misjudge {
		pick = promising[rng.IntN(len(promising))]
	}
	return fmt.Sprintf("Comparing the remaining numbers of each choice.\nThe best choice is %d", pick), true
}

// promisingState tells whether a partial solution can still reach 24.
func promisingState(puzzle []int, steps string) bool {
	if _, ok := game24.LastAnswerLine(steps); ok {
		return game24.Check(puzzle, steps).Correct
	}
	left := game24.CurrentNumbers(tasks.Instance{Input: game24.FormatState(game24.Rats(puzzle))}, steps)
	state, ok := parseNumbers(left)
	return ok && game24.Solvable(state)
}

// continueSteps replays the steps written after "Steps:" and plays on from
// where they leave off: the simulated model continuing a chain of thought.
func (c *moveCache) continueSteps(puzzle []int, written string, rng *rand.Rand, p sim.Params) string {
	steps, expr := c.play(replay(puzzle, written), rng, p)
	var out strings.Builder
	for _, s := range steps {
		out.WriteString(s)
		out.WriteByte('\n')
	}
	fmt.Fprintf(&out, "Answer: %s = 24", expr)
	return out.String()
}

// replay is the board after the step lines written, read as written, up to
// the first line that is not a step of the numbers left.
func replay(puzzle []int, written string) board {
	b := newBoard(game24.Rats(puzzle))
	for _, line := range strings.Split(strings.TrimSpace(written), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		st, err := game24.ParseStep(line)
		if err != nil {
			break
		}
		i := indexOf(b.vals, st.A, -1)
		j := indexOf(b.vals, st.B, i)
		if i < 0 || j < 0 {
			break
		}
		b = b.combine(i, j, st.Op, st.Result)
	}
	return b
}

func indexOf(state []*big.Rat, x *big.Rat, skip int) int {
	if x == nil {
		return -1
	}
	for k, r := range state {
		if k != skip && r.Cmp(x) == 0 {
			return k
		}
	}
	return -1
}
