package qa

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"unicode"

	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

// The simulator's arithmetic: how the simulated model "solves" a word
// problem it reads. It is a deliberately small, honest procedure that sees
// only the problem text — never a gold answer or a worked solution:
//
//  1. Quantities are the numbers in the text (digits, number words such as
//     "three" or "a dozen", multipliers such as "twice", "half" or "a
//     third", percentages), in reading order.
//  2. Reading left to right, each quantity after the first is combined
//     with the running result by one operation (+, −, ×, ÷) or skipped as
//     irrelevant. Every option gets a plausibility from cue words around
//     the quantity ("each", "per" and "times" suggest ×, "left", "spent"
//     and "gave" suggest −, "shared" and "split" ÷, "more" and "total" +;
//     a multiplier suggests ×, a percentage after "off" or "discount"
//     suggests taking that share away), plus small defaults.
//  3. A step chosen well takes the most plausible option; the chain of
//     best options is the model's considered answer. Whether that answer is
//     right depends only on how far the problem's structure follows the
//     cues, so many problems are beyond the procedure whatever the skill:
//     the simulator's ceiling on arithmetic word problems is the accuracy
//     of this chain (measured in math_test.go), not a parameter.
//
// Noise (see sampleChain): each step is chosen well with probability
// Skill; otherwise an option is drawn among the others with sim.Pick
// (weights 1/rank^Focus over a fixed ranking). With probability Slip one
// step's arithmetic is off by one. A chain is written out as CoT steps.

// op is one way to combine the running result with a quantity.
type op byte

const (
	opAdd  op = '+'
	opSub  op = '-'
	opMul  op = '*'
	opDiv  op = '/'
	opSkip op = 's'
	// opOff takes a share away: r × (1 − q); opOn adds one: r × (1 + q).
	opOff op = 'o'
	opOn  op = 'u'
)

var allOps = []op{opAdd, opSub, opMul, opDiv, opSkip, opOff, opOn}

// quantity is one number the problem mentions.
type quantity struct {
	val     *big.Rat
	text    string // as written
	start   int    // byte offset in the problem
	end     int
	mult    bool // a multiplier ("twice", "half", "3 times", "a dozen")
	percent bool // "20%", "20 percent": val is already the fraction
}

// numberWords are the number words the procedure reads.
var numberWords = map[string]int64{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
	"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
}

// multiplierWords multiply what they qualify.
var multiplierWords = map[string]*big.Rat{
	"twice": big.NewRat(2, 1), "double": big.NewRat(2, 1), "triple": big.NewRat(3, 1), "thrice": big.NewRat(3, 1),
	"half": big.NewRat(1, 2), "third": big.NewRat(1, 3), "quarter": big.NewRat(1, 4), "dozen": big.NewRat(12, 1),
	"fifth": big.NewRat(1, 5),
}

// word is a lower-cased word of the problem with its offsets.
type word struct {
	text       string
	start, end int
}

func words(s string) []word {
	var out []word
	start := -1
	for i, r := range s {
		letter := unicode.IsLetter(r) || r == '\''
		if letter && start < 0 {
			start = i
		}
		if !letter && start >= 0 {
			out = append(out, word{strings.ToLower(s[start:i]), start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, word{strings.ToLower(s[start:]), start, len(s)})
	}
	return out
}

// maxQuantities bounds the chain (the search is linear in it).
const maxQuantities = 12

// quantities reads the problem's quantities in order.
func quantities(problem string) []quantity {
	var qs []quantity
	for _, n := range qa.Numbers(problem) {
		q := quantity{val: n.Value, text: problem[n.Start:n.End], start: n.Start, end: n.End}
		rest := strings.ToLower(strings.TrimLeft(problem[n.End:], " "))
		switch {
		case strings.HasPrefix(rest, "%"), strings.HasPrefix(rest, "percent"):
			q.percent = true
			q.val = new(big.Rat).Quo(q.val, big.NewRat(100, 1))
		case strings.HasPrefix(rest, "times"):
			q.mult = true
		}
		qs = append(qs, q)
	}
	ws := words(problem)
	for k, w := range ws {
		prev := ""
		if k > 0 {
			prev = ws[k-1].text
		}
		var q quantity
		if v, ok := numberWords[w.text]; ok {
			q = quantity{val: big.NewRat(v, 1)}
		} else if m, ok := multiplierWords[w.text]; ok {
			// "third", "quarter" and "fifth" are fractions after "a" or
			// "one" ("a third"), ordinals otherwise ("the third month");
			// "dozen" after a number is a unit, merged below.
			switch w.text {
			case "third", "quarter", "fifth":
				if prev != "a" && prev != "one" {
					continue
				}
			case "dozen":
				if prev != "a" {
					continue
				}
				m = big.NewRat(12, 1)
			}
			q = quantity{val: m, mult: w.text != "dozen"}
		} else {
			continue
		}
		q.text, q.start, q.end = problem[w.start:w.end], w.start, w.end
		rest := strings.ToLower(strings.TrimLeft(problem[w.end:], " "))
		if strings.HasPrefix(rest, "times") {
			q.mult = true
		}
		qs = append(qs, q)
	}
	// In reading order.
	for i := 1; i < len(qs); i++ {
		for j := i; j > 0 && qs[j].start < qs[j-1].start; j-- {
			qs[j], qs[j-1] = qs[j-1], qs[j]
		}
	}
	for i := range qs {
		rest := strings.ToLower(strings.TrimLeft(problem[qs[i].end:], " "))
		if !qs[i].mult && !qs[i].percent && strings.HasPrefix(rest, "dozen") {
			qs[i].val = new(big.Rat).Mul(qs[i].val, big.NewRat(12, 1))
		}
	}
	if len(qs) > maxQuantities {
		qs = qs[:maxQuantities]
	}
	return qs
}

// cue words and the operations they suggest.
var cues = map[string]op{
	"each": opMul, "every": opMul, "per": opMul, "times": opMul, "twice": opMul, "double": opMul, "triple": opMul,
	"dozen": opMul, "dozens": opMul, "rate": opMul, "costs": opMul, "cost": opMul, "price": opMul, "week": opMul,
	"day": opMul, "hour": opMul, "month": opMul, "year": opMul, "minute": opMul,
	"left": opSub, "remaining": opSub, "remain": opSub, "spent": opSub, "spends": opSub, "spend": opSub, "gave": opSub,
	"gives": opSub, "give": opSub, "lost": opSub, "loses": opSub, "lose": opSub, "ate": opSub, "eats": opSub, "eat": opSub,
	"used": opSub, "uses": opSub, "use": opSub, "fewer": opSub, "less": opSub, "minus": opSub, "away": opSub,
	"younger": opSub, "shorter": opSub, "cheaper": opSub, "sold": opSub, "broke": opSub, "broken": opSub,
	"split": opDiv, "share": opDiv, "shared": opDiv, "shares": opDiv, "divide": opDiv, "divided": opDiv,
	"equally": opDiv, "among": opDiv, "average": opDiv, "evenly": opDiv,
	"more": opAdd, "another": opAdd, "additional": opAdd, "plus": opAdd, "total": opAdd, "altogether": opAdd,
	"together": opAdd, "combined": opAdd, "sum": opAdd, "buys": opAdd, "bought": opAdd, "gets": opAdd,
	"got": opAdd, "receives": opAdd, "received": opAdd, "earns": opAdd, "earned": opAdd, "found": opAdd,
	"finds": opAdd, "added": opAdd, "adds": opAdd, "older": opAdd, "taller": opAdd, "extra": opAdd,
	"off": opOff, "discount": opOff, "decrease": opOff, "decreased": opOff, "reduced": opOff, "drops": opOff,
	"increase": opOn, "increased": opOn, "raise": opOn, "rises": opOn, "markup": opOn, "interest": opOn,
}

// cueWindow is how many words around a quantity are read for cues.
const cueWindow = 4

// plausibility scores every option for combining the running result with
// qs[i]: cue words in the window around it, then defaults.
func plausibility(ws []word, qs []quantity, i int) map[op]float64 {
	q := qs[i]
	score := map[op]float64{opAdd: 0.3, opMul: 0.2, opSub: 0.1, opDiv: 0.05, opSkip: 0.02}
	lo := 0
	if i > 0 {
		lo = qs[i-1].end
	}
	// The words between the previous quantity and this one, and a few after.
	var near []word
	after := 0
	for _, w := range ws {
		switch {
		case w.end <= q.start && w.start >= lo:
			near = append(near, w)
		case w.start >= q.end && after < cueWindow:
			near = append(near, w)
			after++
		}
	}
	if len(near) > 2*cueWindow+after {
		near = near[len(near)-2*cueWindow-after:]
	}
	for _, w := range near {
		if o, ok := cues[w.text]; ok {
			score[o] += 1
		}
	}
	switch {
	case q.percent:
		score[opMul] += 0.6
		score[opOff] *= 2
		score[opOn] *= 2
		score[opAdd], score[opSub] = 0, 0
	case q.mult:
		score[opMul] += 2
		score[opAdd] /= 4
		score[opSub] /= 4
	}
	return score
}

// chainStep is one step of a solution: result so far, op, quantity.
type chainStep struct {
	before *big.Rat
	op     op
	q      quantity
	after  *big.Rat
}

// apply combines r with q by o; ok is false for a division by zero.
func apply(r *big.Rat, o op, q *big.Rat) (*big.Rat, bool) {
	out := new(big.Rat)
	switch o {
	case opAdd:
		out.Add(r, q)
	case opSub:
		out.Sub(r, q)
	case opMul:
		out.Mul(r, q)
	case opDiv:
		if q.Sign() == 0 {
			return nil, false
		}
		out.Quo(r, q)
	case opOff:
		out.Mul(r, new(big.Rat).Sub(big.NewRat(1, 1), q))
	case opOn:
		out.Mul(r, new(big.Rat).Add(big.NewRat(1, 1), q))
	default:
		out.Set(r)
	}
	return out, true
}

// ranked lists the options for a step, most plausible first (ties in
// allOps order).
func ranked(score map[op]float64) []op {
	out := append([]op(nil), allOps...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && score[out[j]] > score[out[j-1]]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// mathProblem is a word problem as the procedure has read it.
type mathProblem struct {
	qs      []quantity
	options [][]op // per quantity after the first: the ranked options
}

// readProblem reads a word problem; ok is false when it has fewer than
// one quantity.
func readProblem(problem string) (mathProblem, bool) {
	qs := quantities(problem)
	if len(qs) == 0 {
		return mathProblem{}, false
	}
	// A multiplier cannot start the chain: start at the first plain
	// quantity and apply the ones read before it after it.
	for k := range qs {
		if !qs[k].mult && !qs[k].percent {
			qs = append(append([]quantity{qs[k]}, qs[:k]...), qs[k+1:]...)
			break
		}
	}
	ws := words(problem)
	m := mathProblem{qs: qs}
	for i := 1; i < len(qs); i++ {
		m.options = append(m.options, ranked(plausibility(ws, qs, i)))
	}
	return m, true
}

// chain computes the solution choosing option pick(i) at step i.
func (m mathProblem) chain(pick func(i int) op) ([]chainStep, *big.Rat) {
	r := new(big.Rat).Set(m.qs[0].val)
	var steps []chainStep
	for i := 1; i < len(m.qs); i++ {
		o := pick(i - 1)
		if o == opSkip {
			continue
		}
		next, ok := apply(r, o, m.qs[i].val)
		if !ok {
			continue
		}
		steps = append(steps, chainStep{before: r, op: o, q: m.qs[i], after: next})
		r = next
	}
	return steps, r
}

// best is the chain of most plausible options: the considered answer.
func (m mathProblem) best() ([]chainStep, *big.Rat) {
	return m.chain(func(i int) op { return m.options[i][0] })
}

// beamWidth bounds the partial chains considerChains keeps.
const beamWidth = 64

// considered is the chain a careful solver settles on: the options'
// plausibility summed over the steps, plus the check a person makes of
// each intermediate result — counts and amounts in a word problem are
// whole and not negative — found by beam search.
func (m mathProblem) considered() ([]op, *big.Rat) {
	type partial struct {
		ops   []op
		r     *big.Rat
		score float64
	}
	beam := []partial{{r: m.qs[0].val}}
	for i := range m.options {
		var next []partial
		for _, p := range beam {
			for rank, o := range m.options[i] {
				r := p.r
				if o != opSkip {
					var ok bool
					if r, ok = apply(p.r, o, m.qs[i+1].val); !ok {
						continue
					}
				}
				sc := p.score - float64(rank)
				if !r.IsInt() {
					sc -= 1.5
				}
				if r.Sign() < 0 {
					sc -= 3
				}
				next = append(next, partial{ops: append(append([]op(nil), p.ops...), o), r: r, score: sc})
			}
		}
		for a := 1; a < len(next); a++ { // stable: earlier (more plausible) first on ties
			for b := a; b > 0 && next[b].score > next[b-1].score; b-- {
				next[b], next[b-1] = next[b-1], next[b]
			}
		}
		beam = next[:min(len(next), beamWidth)]
	}
	return beam[0].ops, beam[0].r
}

// pick chooses step i's option: the most plausible with probability
// skill, else another by sim.Pick (a fixed ranking per problem and step).
func (m mathProblem) pick(i int, rng *rand.Rand, skill, focus float64, taste string) op {
	opts := m.options[i]
	if rng.Float64() < skill {
		return opts[0]
	}
	labels := make([]string, len(opts)-1)
	for k, o := range opts[1:] {
		labels[k] = string(o)
	}
	return opts[1+sim.Pick(rng, focus, fmt.Sprintf("%s#%d", taste, i), labels)]
}

// sampleChain draws a chain: each step well chosen with probability
// skill, else another option by sim.Pick; with probability slip one step
// is off by one.
func (m mathProblem) sampleChain(rng *rand.Rand, skill, slip, focus float64, taste string) ([]chainStep, *big.Rat) {
	steps, r := m.chain(func(i int) op { return m.pick(i, rng, skill, focus, taste) })
	if len(steps) > 0 && rng.Float64() < slip {
		k := rng.IntN(len(steps))
		delta := big.NewRat(int64(1-2*rng.IntN(2)), 1)
		for j := k; j < len(steps); j++ {
			steps[j].after = new(big.Rat).Add(steps[j].after, delta)
			if j+1 < len(steps) {
				steps[j+1].before = steps[j].after
			}
		}
		r = steps[len(steps)-1].after
	}
	return steps, r
}

// formatRat writes a number as a person would: an integer, or a decimal
// with up to 4 places, or p/q.
func formatRat(v *big.Rat) string {
	if v.IsInt() {
		return v.Num().String()
	}
	f := v.FloatString(4)
	f = strings.TrimRight(strings.TrimRight(f, "0"), ".")
	if back, ok := new(big.Rat).SetString(f); ok && back.Cmp(v) == 0 {
		return f
	}
	return v.RatString()
}

// writeSteps writes a chain as CoT lines, "16 - 3 = 13".
func writeSteps(steps []chainStep) []string {
	var out []string
	for _, s := range steps {
		var line string
		switch s.op {
		case opOff:
			line = formatRat(s.before) + " × (1 - " + formatRat(s.q.val) + ") = " + formatRat(s.after)
		case opOn:
			line = formatRat(s.before) + " × (1 + " + formatRat(s.q.val) + ") = " + formatRat(s.after)
		default:
			sym := map[op]string{opAdd: "+", opSub: "-", opMul: "×", opDiv: "÷"}[s.op]
			line = formatRat(s.before) + " " + sym + " " + formatRat(s.q.val) + " = " + formatRat(s.after)
		}
		out = append(out, line)
	}
	return out
}

// ConsideredAnswer is the answer the simulated model settles on for a
// word problem when every step is chosen well and nothing slips: the
// ceiling of its arithmetic (measured on GSM8K in math_test.go).
func ConsideredAnswer(problem string) (string, bool) {
	m, ok := readProblem(problem)
	if !ok {
		return "", false
	}
	_, v := m.considered()
	return formatRat(v), true
}
