package qa

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

// Markers of the program-aided templates (gsm8k/pal, gsm8k/pal_feedback).
const (
	markerPAL         = "Write a Python program: a function solution()"
	markerPALFeedback = "Check the program below"
)

// The simulated PAL writer and critic.
//
// Writer: the same plan as a CoT answer (math.go): the quantities in
// reading order, and for each after the first an operation chosen well
// with probability Skill, else another by sim.Pick — written as a program,
// one variable a quantity and one line a step. The interpreter does the
// arithmetic, so a program cannot slip there; instead, with probability
// Slip, one plain quantity is copied off by one (a typo in a constant).
//
// Critic (Self-Refine's PAL feedback): it reads a program of that shape
// (the last ```python block of the prompt) against its own considered
// plan for the question (math.go's considered chain): the constants
// against the quantities it reads, each step's operation against the one
// it would choose. It finds the first difference and judges the program
// right when there is none; the judgement is wrong with probability
// Misjudge. Judged right, it says "it is correct" and writes the program
// again unchanged. Judged wrong, it names the step and rewrites it: with
// probability Skill as its considered plan says, else by another draw of
// the step; a program judged wrong that is right gets one step redrawn
// among the other options. A program not of that shape is passed as
// correct (it cannot read it). It never runs a program: it reads.

// palProblem reads the word problem of a PAL prompt.
func palProblem(text string) (mathProblem, string, bool) {
	r, ok := readPrompt(text)
	if !ok || !arithmetic(r) || len(r.Choices) > 0 {
		return mathProblem{}, "", false
	}
	m, ok := readProblem(r.Question)
	return m, r.Question, ok
}

// palPlan is a program as the writer writes it: per quantity the constant,
// per later quantity the operation.
type palPlan struct {
	consts []*big.Rat
	ops    []op
}

// writePAL answers a gsm8k/pal prompt.
func writePAL(text string, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	m, q, ok := palProblem(text)
	if !ok {
		return llm.Choice{}, false
	}
	plan := palPlan{ops: make([]op, len(m.options))}
	for i := range m.options {
		plan.ops[i] = m.pick(i, rng, params.Skill, params.Focus, q)
	}
	for _, x := range m.qs {
		plan.consts = append(plan.consts, x.val)
	}
	if rng.Float64() < params.Slip {
		var plain []int
		for i, x := range m.qs {
			if !x.mult && !x.percent {
				plain = append(plain, i)
			}
		}
		if len(plain) > 0 {
			k := plain[rng.IntN(len(plain))]
			plan.consts[k] = new(big.Rat).Add(plan.consts[k], big.NewRat(int64(1-2*rng.IntN(2)), 1))
		}
	}
	return llm.Choice{Content: "```python\n" + m.program(plan) + "\n```"}, true
}

// program writes a plan as Python.
func (m mathProblem) program(p palPlan) string {
	var b strings.Builder
	b.WriteString("def solution():\n")
	for i, x := range m.qs {
		fmt.Fprintf(&b, "    q%d = %s  # %s\n", i+1, pyNumber(p.consts[i]), strings.ReplaceAll(x.text, "\n", " "))
	}
	b.WriteString("    result = q1\n")
	for i, o := range p.ops {
		n := i + 2
		switch o {
		case opAdd, opSub, opMul, opDiv:
			fmt.Fprintf(&b, "    result = result %c q%d\n", o, n)
		case opOff:
			fmt.Fprintf(&b, "    result = result * (1 - q%d)\n", n)
		case opOn:
			fmt.Fprintf(&b, "    result = result * (1 + q%d)\n", n)
		default:
			fmt.Fprintf(&b, "    # q%d does not matter here\n", n)
		}
	}
	b.WriteString("    return result")
	return b.String()
}

// pyNumber writes a number as a Python literal: an integer, a decimal, or
// a quotient.
func pyNumber(v *big.Rat) string {
	s := formatRat(v)
	if strings.Contains(s, "/") {
		return "(" + strings.Replace(s, "/", " / ", 1) + ")"
	}
	return s
}

var (
	palConst = regexp.MustCompile(`^q(\d+) = (\(?-?[\d.]+(?: / \d+)?\)?)`)
	palStep  = regexp.MustCompile(`^result = result (?:([-+*/]) q(\d+)|\* \(1 ([-+]) q(\d+)\))$`)
	palSkip  = regexp.MustCompile(`^# q(\d+) does not matter`)
)

// readPAL reads a program of the writer's shape for a problem of n
// quantities; ok is false for any other program.
func readPAL(program string, n int) (palPlan, bool) {
	p := palPlan{consts: make([]*big.Rat, n), ops: make([]op, n-1)}
	seen := make([]bool, n-1)
	for _, line := range strings.Split(program, "\n") {
		l := strings.TrimSpace(line)
		if mm := palConst.FindStringSubmatch(l); mm != nil {
			i, _ := strconv.Atoi(mm[1])
			v, ok := new(big.Rat).SetString(strings.NewReplacer("(", "", ")", "", " ", "").Replace(mm[2]))
			if !ok || i < 1 || i > n {
				return palPlan{}, false
			}
			p.consts[i-1] = v
			continue
		}
		var o op
		var k string
		if mm := palStep.FindStringSubmatch(l); mm != nil {
			switch {
			case mm[1] != "":
				o, k = op(mm[1][0]), mm[2]
			case mm[3] == "-":
				o, k = opOff, mm[4]
			default:
				o, k = opOn, mm[4]
			}
		} else if mm := palSkip.FindStringSubmatch(l); mm != nil {
			o, k = opSkip, mm[1]
		} else {
			continue
		}
		i, _ := strconv.Atoi(k)
		if i < 2 || i > n || seen[i-2] {
			return palPlan{}, false
		}
		p.ops[i-2], seen[i-2] = o, true
	}
	for _, c := range p.consts {
		if c == nil {
			return palPlan{}, false
		}
	}
	for _, s := range seen {
		if !s {
			return palPlan{}, false
		}
	}
	return p, true
}

// critiquePAL answers a gsm8k/pal_feedback prompt.
func critiquePAL(text string, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	m, q, ok := palProblem(text)
	if !ok {
		return llm.Choice{}, false
	}
	program := lastPythonBlock(text)
	plan, readable := readPAL(program, len(m.qs))
	if !readable {
		return llm.Choice{Content: "I follow every block: it is correct.\n```python\n" + program + "\n```"}, true
	}
	want, _ := m.considered()
	// The first difference: a constant (index < 0: -(i+1)) or a step.
	diff, found := 0, false
	for i, x := range m.qs {
		if plan.consts[i].Cmp(x.val) != 0 {
			diff, found = -(i + 1), true
			break
		}
	}
	if !found {
		for i := range plan.ops {
			if plan.ops[i] != want[i] {
				diff, found = i, true
				break
			}
		}
	}
	judgedWrong := found
	if rng.Float64() < params.Misjudge {
		judgedWrong = !judgedWrong
	}
	if !judgedWrong {
		return llm.Choice{Content: "Every block follows the question: it is correct.\n```python\n" + program + "\n```"}, true
	}
	var fb string
	switch {
	case !found: // a right program judged wrong: one step redrawn among the others
		i := rng.IntN(len(plan.ops))
		old := plan.ops[i]
		for range 8 {
			if plan.ops[i] = m.pick(i, rng, 0, params.Focus, q); plan.ops[i] != old {
				break
			}
		}
		fb = fmt.Sprintf("The step with q%d looks wrong: %s.", i+2, stepAdvice(plan.ops[i], i+2))
	case diff < 0:
		i := -diff - 1
		fb = fmt.Sprintf("q%d is not the number the question gives (%s).", i+1, m.qs[i].text)
		plan.consts[i] = m.qs[i].val
	default:
		fb = fmt.Sprintf("The step with q%d looks wrong: %s.", diff+2, stepAdvice(want[diff], diff+2))
		if rng.Float64() < params.Skill {
			plan.ops[diff] = want[diff]
		} else {
			plan.ops[diff] = m.pick(diff, rng, params.Skill, params.Focus, q)
		}
	}
	return llm.Choice{Content: fb + " Fixed:\n```python\n" + m.program(plan) + "\n```"}, true
}

// stepAdvice says what a step should do with quantity qn.
func stepAdvice(o op, n int) string {
	switch o {
	case opAdd:
		return fmt.Sprintf("q%d should be added", n)
	case opSub:
		return fmt.Sprintf("q%d should be subtracted", n)
	case opMul:
		return fmt.Sprintf("the result should be multiplied by q%d", n)
	case opDiv:
		return fmt.Sprintf("the result should be divided by q%d", n)
	case opOff:
		return fmt.Sprintf("q%d is a share to take away", n)
	case opOn:
		return fmt.Sprintf("q%d is a share to add", n)
	}
	return fmt.Sprintf("q%d does not matter", n)
}

// lastPythonBlock is the body of the prompt's last fenced block.
func lastPythonBlock(text string) string {
	end := strings.LastIndex(text, "```")
	if end < 0 {
		return ""
	}
	start := strings.LastIndex(text[:end], "```")
	if start < 0 {
		return ""
	}
	body := text[start+3 : end]
	if nl := strings.IndexByte(body, '\n'); nl >= 0 {
		body = body[nl+1:]
	}
	return strings.TrimSpace(body)
}

// respondPAL answers the program-aided prompts; ok is false for others.
func respondPAL(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	text := p.Last("user")
	switch {
	case strings.Contains(text, markerPALFeedback):
		return critiquePAL(text, rng, params)
	case strings.Contains(text, markerPAL):
		return writePAL(text, rng, params)
	}
	return llm.Choice{}, false
}

// markerReActPython marks the ReAct template with a Python interpreter
// (qa/react_python, which GSM8K uses).
const markerReActPython = "with a Python interpreter to calculate with"

// respondReActPython plays ReAct with the python tool: its first turn runs
// the program the PAL writer would write (printing solution()), its next
// reads the number the observation shows and finishes with it (with
// nothing readable, or on the last step before any run, it finishes with
// its unchecked answer: the plan's result as CoT would write it).
func respondReActPython(p sim.Prompt, first string, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	proto := sim.ReActProtocol(p, first, "Call the python tool", markerReActJSON)
	turn := 1
	for _, m := range p.Messages {
		if m.Role == "assistant" {
			turn++
		}
	}
	last := strings.Contains(p.Messages[len(p.Messages)-1].Content, "last step")
	m, q, ok := palProblem(first)
	if !ok {
		return llm.Choice{}, false
	}
	if turn == 1 && !last {
		c, _ := writePAL(first, rng, params)
		code := strings.TrimSuffix(strings.TrimPrefix(c.Content, "```python\n"), "\n```") + "\n\nprint(solution())"
		if proto == protocolText {
			code = "\n" + code + "\n" // the text protocol's argument starts on the line after "Python["
		}
		return sim.ReActTurn(proto, false, turn, "I will compute the answer with a program.", "python", "code", code, rng), true
	}
	obs := p.Messages[len(p.Messages)-1].Content
	if v, ok := lastNumberOf(obs); ok && turn > 1 {
		return sim.ReActTurn(proto, last, turn, "The program printed the answer.", "finish", "answer", v, rng), true
	}
	_, v := m.sampleChain(rng, params.Skill, params.Slip, params.Focus, q)
	return sim.ReActTurn(proto, last, turn, "I will answer without the program.", "finish", "answer", formatRat(v), rng), true
}

// protocolText is sim.ReActProtocol's name for the text protocol.
const protocolText = "text"

// lastNumberOf reads the last number an observation shows, unless it
// reports an error.
func lastNumberOf(obs string) (string, bool) {
	if strings.Contains(obs, "Error (") {
		return "", false
	}
	v, ok := qa.LastNumber(obs)
	if !ok {
		return "", false
	}
	return formatRat(v), true
}
