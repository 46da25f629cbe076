package game24

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// Markers of the ReAct prompts (prompts/game24/react_*.txt). Tests check
// the templates contain them.
const (
	markerReAct     = "working with exact arithmetic tools"
	markerReActJSON = "exactly one JSON object"
	markerReActText = "Interleave Thought, Action and Observation"
	markerReActLast = "last step" // what the react strategy says on its last step
)

// respondReAct answers the ReAct prompts (text, JSON and tools protocols)
// for the simulated model.
//
// Policy: the model replays the board from its trajectory (the puzzle's
// numbers, each combined as the step-line observations "a op b = r (left:
// ...)" say, keeping the expression of each number). While more than one
// number is left and it is not told this is the last step, it picks a move
// as the IO/CoT model does (with probability Skill one that keeps 24
// reachable, if any) and calls the matching tool; with probability Slip it
// misreads an operand (off by one or two), which the tool refuses, costing
// a step. The tools do the arithmetic, so unlike in CoT no result is ever
// wrong. With one number left, or on the last step (then finishing the
// remaining numbers in its head with the same move policy), it finishes
// with the expression it built. Tool calls have ids "call_<turn>_<4 hex>";
// the thought goes in the reasoning content; with the tools withdrawn it
// answers "Answer: <expression> = 24".
func respondReAct(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	var first string
	for _, m := range p.Messages {
		if m.Role == "user" {
			first = m.Content
			break
		}
	}
	if !strings.Contains(first, markerReAct) {
		return llm.Choice{}, false
	}
	nums, ok := lastInput(first)
	if !ok {
		return llm.Choice{}, false
	}
	proto := "text"
	switch {
	case len(p.Tools) > 0 || !strings.Contains(first, markerReActText) && !strings.Contains(first, markerReActJSON):
		proto = "tools"
	case strings.Contains(first, markerReActJSON):
		proto = "json"
	}
	vals := Rats(nums)
	exprs := make([]string, len(vals))
	for i, v := range vals {
		exprs[i] = FormatNumber(v)
	}
	turn := 0
	seenFirst := false
	for _, m := range p.Messages {
		switch m.Role {
		case "assistant":
			turn++
		case "user", "tool":
			if m.Role == "user" && !seenFirst {
				seenFirst = true
				continue
			}
			vals, exprs = replayStep(m.Content, vals, exprs)
		}
	}
	last := strings.Contains(strings.ToLower(p.Last("user")), markerReActLast)
	if last || len(vals) <= 1 {
		expr := finishExpr(vals, exprs, rng, params)
		thought := fmt.Sprintf("One number is left, so my answer is %s = 24.", expr)
		if len(vals) > 1 {
			thought = fmt.Sprintf("I have to answer now: %s = 24.", expr)
		}
		return renderReActTurn(proto, last, turn, thought, ToolFinish, map[string]string{"expression": expr}, expr, rng), true
	}
	m := chooseReActMove(vals, rng, params.Skill)
	a, b := FormatNumber(m.A), FormatNumber(m.B)
	if rng.Float64() < params.Slip {
		if rng.IntN(2) == 0 {
			a = FormatNumber(slip(m.A, rng))
		} else {
			b = FormatNumber(slip(m.B, rng))
		}
	}
	name := map[byte]string{'+': ToolAdd, '-': ToolSubtract, '*': ToolMultiply, '/': ToolDivide}[m.Op]
	thought := fmt.Sprintf("Let me try %s %c %s.", a, m.Op, b)
	return renderReActTurn(proto, false, turn, thought, name, map[string]string{"a": a, "b": b}, a+", "+b, rng), true
}

// replayStep applies an observation that is a step line to the board.
func replayStep(obs string, vals []*big.Rat, exprs []string) ([]*big.Rat, []string) {
	line, _, _ := strings.Cut(strings.TrimSpace(obs), "\n")
	line = strings.TrimSpace(strings.TrimPrefix(line, "Observation:"))
	st, err := ParseStep(line)
	if err != nil || !st.HasLeft {
		return vals, exprs
	}
	i := indexOfRat(vals, st.A, -1)
	j := indexOfRat(vals, st.B, i)
	if i < 0 || j < 0 {
		return vals, exprs
	}
	res, err := arith(st.Op, vals[i], vals[j])
	if err != nil {
		return vals, exprs
	}
	nv := make([]*big.Rat, 0, len(vals)-1)
	ne := make([]string, 0, len(vals)-1)
	for k := range vals {
		if k != i && k != j {
			nv = append(nv, vals[k])
			ne = append(ne, exprs[k])
		}
	}
	return append(nv, res), append(ne, fmt.Sprintf("(%s %c %s)", exprs[i], st.Op, exprs[j]))
}

func indexOfRat(vals []*big.Rat, x *big.Rat, skip int) int {
	if x == nil {
		return -1
	}
	for k, v := range vals {
		if k != skip && v.Cmp(x) == 0 {
			return k
		}
	}
	return -1
}

// chooseReActMove picks a move that keeps 24 reachable with probability
// skill (when there is one), else any move.
func chooseReActMove(state []*big.Rat, rng *rand.Rand, skill float64) Move {
	moves := Moves(state)
	if rng.Float64() < skill {
		var good []Move
		for _, m := range moves {
			if Solvable(m.Left) {
				good = append(good, m)
			}
		}
		if len(good) > 0 {
			return good[rng.IntN(len(good))]
		}
	}
	return moves[rng.IntN(len(moves))]
}

// finishExpr combines what is left into one expression, choosing moves as
// chooseReActMove does.
func finishExpr(vals []*big.Rat, exprs []string, rng *rand.Rand, params sim.Params) string {
	for len(vals) > 1 {
		m := chooseReActMove(vals, rng, params.Skill)
		nv := make([]*big.Rat, 0, len(vals)-1)
		ne := make([]string, 0, len(vals)-1)
		for k := range vals {
			if k != m.I && k != m.J {
				nv = append(nv, vals[k])
				ne = append(ne, exprs[k])
			}
		}
		vals = append(nv, m.Result)
		exprs = append(ne, fmt.Sprintf("(%s %c %s)", exprs[m.I], m.Op, exprs[m.J]))
	}
	if e, err := ParseExpr(exprs[0]); err == nil {
		return e.String()
	}
	return exprs[0]
}

// renderReActTurn writes one action in the protocol.
func renderReActTurn(proto string, last bool, turn int, thought, name string, args map[string]string, input string, rng *rand.Rand) llm.Choice {
	switch proto {
	case "tools":
		if last {
			return llm.Choice{Reasoning: thought, Content: fmt.Sprintf("Answer: %s = 24", input)}
		}
		b, _ := json.Marshal(args)
		id := fmt.Sprintf("call_%d_%04x", turn, rng.IntN(1<<16))
		return llm.Choice{Reasoning: thought, ToolCalls: []llm.ToolCall{{ID: id, Name: name, Arguments: string(b)}}}
	case "json":
		var in any = args
		if name == ToolFinish {
			in = input
		}
		b, _ := json.Marshal(struct {
			Thought string `json:"thought"`
			Action  string `json:"action"`
			Input   any    `json:"input"`
		}{thought, name, in})
		return llm.Choice{Content: string(b)}
	}
	return llm.Choice{Content: fmt.Sprintf("Thought: %s\nAction: %s[%s]", thought, strings.ToUpper(name[:1])+name[1:], input)}
}
