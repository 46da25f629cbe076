package qa

import (
	"github.com/reasonbench/reasonbench/simulator/reading"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

// How the simulated model thinks about a qa prompt: what simulator/reading
// gives for passages and closed-book questions, plus calculation
// (math.go) and lettered choices. It sees only the prompt; file tasks
// and GSM8K run through `bench serve-sim`, which knows no data at all.

// thinker is the qa responder's reading.Thinker.
type thinker struct{}

// arithmetic tells a question the model works out by calculation: no
// passages, and at least two quantities.
func arithmetic(r reading.Reading) bool {
	return len(r.Passages) == 0 && len(quantities(r.Question)) >= 2
}

// Consider forms the model's belief about a reading: lettered choices, a
// calculation, else reading.Consider.
func (thinker) Consider(r reading.Reading) reading.Belief {
	switch {
	case len(r.Choices) > 0:
		return considerChoices(r)
	case arithmetic(r):
		m, _ := readProblem(r.Question)
		ops, v := m.considered()
		k := 0
		steps, _ := m.chain(func(int) op { o := ops[k]; k++; return o })
		return reading.Belief{Answers: []string{formatRat(v)}, Lines: writeSteps(steps)}
	}
	return reading.Consider(r)
}

// Same compares two answers as the model would: numbers by value, texts
// normalised.
func (thinker) Same(a, b string) bool { return sameAnswer(a, b) }

func considerChoices(r reading.Reading) reading.Belief {
	support := make([]int, len(r.Choices))
	best := make([]int, len(r.Choices)) // the passage sentence supporting each choice, or -1
	var lines []string
	switch {
	case len(r.Passages) > 0:
		// A choice is supported by the passage sentence that best joins the
		// question's words with its own.
		want := reading.ContentWords(r.Question)
		for i, c := range r.Choices {
			cw := reading.ContentWords(c)
			best[i] = -1
			for k, s := range r.Passages {
				if n := reading.Overlap(cw, s.Text); n > 0 {
					if sc := reading.Overlap(want, s.Text) + 2*n; sc > support[i] {
						support[i], best[i] = sc, k
					}
				}
			}
		}
	case len(quantities(r.Question)) >= 2:
		m, _ := readProblem(r.Question)
		_, v := m.considered()
		for i, c := range r.Choices {
			best[i] = -1
			if cv, ok := qa.LastNumber(c); ok && cv.Cmp(v) == 0 {
				support[i] = 1
			}
		}
		lines = append(lines, "Working it out gives "+formatRat(v)+".")
	default:
		for i := range best {
			best[i] = -1
		}
	}
	letters := make([]string, len(r.Choices))
	for i := range r.Choices {
		letters[i] = qa.Letter(i)
	}
	order := reading.TasteOrder(r.Question, letters) // ties: a fixed prior
	for a := 1; a < len(order); a++ {
		for b := a; b > 0 && support[order[b][0]-'A'] > support[order[b-1][0]-'A']; b-- {
			order[b], order[b-1] = order[b-1], order[b]
		}
	}
	top := int(order[0][0] - 'A')
	lines = append(lines, "Choice "+order[0]+" fits best: "+r.Choices[top]+".")
	b := reading.Belief{Answers: order, Lines: lines}
	if k := best[top]; k >= 0 {
		b.Evidence = []reading.Sentence{r.Passages[k]}
		b.Support = reading.SupportOf(r.Question, b.Evidence...)
	}
	return b
}

// sameAnswer compares two answers as the model would: numbers by value,
// texts normalised.
func sameAnswer(a, b string) bool {
	if av, ok := qa.LastNumber(a); ok {
		if bv, ok := qa.LastNumber(b); ok {
			return av.Cmp(bv) == 0
		}
	}
	return reading.SameText(a, b)
}
