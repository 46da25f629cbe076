package game24

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

// Markers of the ReAct prompts (prompts/game24/react_*.txt). Tests check
// the templates contain them.
const (
	markerReAct     = "working with exact arithmetic tools"
	markerReActJSON = "exactly one JSON object"
	markerReActText = "Interleave Thought, Action and Observation"
	markerReActLast = "last step" // what the react strategy says on its last step
)

// respondReAct answers the ReAct prompts (text, JSON, XML and tools protocols)
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
// with the expression it built (finishing in its head as CoT does, slips
// included). Tool calls have ids "call_<turn>_<4 hex>";
// the thought goes in the reasoning content; with the tools withdrawn it
// answers "Answer: <expression> = 24".
func (c *moveCache) respondReAct(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
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
	case len(p.Tools) == 0 && strings.Contains(first, sim.MarkerReActXML):
		proto = "xml"
	case len(p.Tools) > 0 || !strings.Contains(first, markerReActText) && !strings.Contains(first, markerReActJSON):
		proto = "tools"
	case strings.Contains(first, markerReActJSON):
		proto = "json"
	}
	bd := newBoard(game24.Rats(nums))
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
			bd = replayStep(m.Content, bd)
		}
	}
	last := strings.Contains(strings.ToLower(p.Last("user")), markerReActLast)
	if last || len(bd.vals) <= 1 {
		_, expr := c.play(bd, rng, params)
		thought := fmt.Sprintf("One number is left, so my answer is %s = 24.", expr)
		if len(bd.vals) > 1 {
			thought = fmt.Sprintf("I have to answer now: %s = 24.", expr)
		}
		return renderReActTurn(proto, last, turn, thought, game24.ToolFinish, map[string]string{"expression": expr}, expr, rng), true
	}
	m := c.chooseMove(bd.vals, rng, params)
	a, b := game24.FormatNumber(m.A), game24.FormatNumber(m.B)
	if rng.Float64() < params.Slip {
		if rng.IntN(2) == 0 {
			a = game24.FormatNumber(slip(m.A, rng))
		} else {
			b = game24.FormatNumber(slip(m.B, rng))
		}
	}
	name := map[byte]string{'+': game24.ToolAdd, '-': game24.ToolSubtract, '*': game24.ToolMultiply, '/': game24.ToolDivide}[m.Op]
	thought := fmt.Sprintf("Let me try %s %c %s.", a, m.Op, b)
	return renderReActTurn(proto, false, turn, thought, name, map[string]string{"a": a, "b": b}, a+", "+b, rng), true
}

// replayStep applies an observation that is a step line to the board.
func replayStep(obs string, bd board) board {
	line, _, _ := strings.Cut(strings.TrimSpace(obs), "\n")
	line = strings.TrimSpace(strings.TrimPrefix(line, "Observation:"))
	st, err := game24.ParseStep(line)
	if err != nil || !st.HasLeft {
		return bd
	}
	i := indexOf(bd.vals, st.A, -1)
	j := indexOf(bd.vals, st.B, i)
	if i < 0 || j < 0 {
		return bd
	}
	res, err := game24.Arith(st.Op, bd.vals[i], bd.vals[j])
	if err != nil {
		return bd
	}
	return bd.combine(i, j, st.Op, res)
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
	case "xml":
		keys := []string{"a", "b"}
		if name == game24.ToolFinish {
			keys = []string{"expression"}
		}
		var kv [][2]string
		for _, k := range keys {
			kv = append(kv, [2]string{k, args[k]})
		}
		return llm.Choice{Content: sim.XMLCall(thought, name, kv)}
	case "json":
		var in any = args
		if name == game24.ToolFinish {
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
