package reading

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/reasonbench/reasonbench/llm/sim"
)

// ThoughtLines reads the reasoning so far of a ToT sample prompt: the
// lines between "Reasoning so far:" and "Next line:" ("(none)" for none).
func ThoughtLines(text string) []string {
	_, so, _ := strings.Cut(text, "Reasoning so far:\n")
	so, _, _ = strings.Cut(so, "\nNext line:")
	var lines []string
	for _, l := range strings.Split(so, "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "(none)" {
			lines = append(lines, l)
		}
	}
	return lines
}

// cited tells whether a reasoning line cites the sentence.
func cited(lines []string, s Sentence) bool {
	for _, l := range lines {
		if strings.Contains(l, s.Text) {
			return true
		}
	}
	return false
}

// SampleLine writes the next line of a ToT chain over passages (or closed
// book): it cites the next sentence of its evidence not cited yet (then of
// the others, by overlap with the question) with probability Skill, else
// another uncited sentence; once its evidence is cited, or on the last
// line, it answers, with half its skill if a sentence of its evidence was
// never cited.
func SampleLine(th Thinker, r Reading, lines []string, last bool, rng *rand.Rand, params sim.Params) string {
	b := th.Consider(r)
	uncited := 0
	for _, s := range b.Evidence {
		if !cited(lines, s) {
			uncited++
		}
	}
	if len(r.Passages) > 0 && !last && uncited > 0 {
		var fresh []Sentence
		for _, s := range b.Evidence {
			if !cited(lines, s) {
				fresh = append(fresh, s)
			}
		}
		for _, i := range Rank(r.Question, r.Passages) {
			if s := r.Passages[i]; !cited(lines, s) && !containsSentence(fresh, s) {
				fresh = append(fresh, s)
			}
		}
		pick := fresh[0]
		if rng.Float64() >= params.Skill && len(fresh) > 1 {
			pick = fresh[1+rng.IntN(len(fresh)-1)]
		}
		return Cite(pick)
	}
	if len(r.Passages) == 0 && !last && len(lines) == 0 && len(b.Lines) > 0 {
		if rng.Float64() < params.Skill {
			return b.Lines[0]
		}
		return "I am not sure yet."
	}
	skill := params.Skill
	if uncited > 0 {
		skill *= 0.5 // a line that matters was not read
	}
	ans, _ := Choose(b, rng, params, skill, r.Question, nil)
	return "Answer: " + ans
}

func containsSentence(list []Sentence, s Sentence) bool {
	for _, x := range list {
		if x.Text == s.Text && x.Title == s.Title {
			return true
		}
	}
	return false
}

// ChoiceBlocks splits a ToT vote prompt into its choices' texts ("Choice
// N:" then the lines).
func ChoiceBlocks(text string) []string {
	parts := strings.Split(text, "\nChoice ")
	var out []string
	for _, p := range parts[1:] {
		_, body, _ := strings.Cut(p, "\n")
		out = append(out, body)
	}
	return out
}

// Vote picks the choice that agrees most with the model's own reasoning:
// its lines, the sentences of its evidence, and its considered answer;
// with probability Misjudge a random choice. It returns the reply.
func Vote(th Thinker, r Reading, blocks []string, rng *rand.Rand, params sim.Params) string {
	b := th.Consider(r)
	top := b.Evidence
	if len(top) == 0 && len(r.Passages) > 0 {
		for _, i := range Rank(r.Question, r.Passages)[:min(2, len(r.Passages))] {
			top = append(top, r.Passages[i])
		}
	}
	best, bestScore := 0, -1
	for i, blk := range blocks {
		score := 0
		for _, l := range strings.Split(blk, "\n") {
			if l = strings.TrimSpace(l); l == "" {
				continue
			}
			for _, want := range b.Lines {
				if l == want {
					score++
				}
			}
			for _, s := range top {
				if strings.Contains(l, s.Text) {
					score++
				}
			}
			if a, ok := strings.CutPrefix(l, "Answer:"); ok && th.Same(a, b.Answers[0]) {
				score += 2
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if rng.Float64() < params.Misjudge {
		best = rng.IntN(len(blocks))
	}
	return fmt.Sprintf("Choice %d agrees best with how I would work it out.\nThe best choice is %d", best+1, best+1)
}

// Value rates a ReAct trajectory out of 10 (LATS): 2 + 7·s for the share
// s of the question's words its observations cover (Consider's support),
// less two for each failed search or invalid action; with probability
// Misjudge a uniform score. It never asks whether an answer is right.
func Value(t Turn, rng *rand.Rand, params sim.Params) string {
	g := 0.0
	if len(t.Reading.Passages) > 0 {
		g = Consider(t.Reading).Support
	}
	bad := 0
	for _, s := range t.Steps {
		if s.Failed() {
			bad++
		}
	}
	score := min(max(2+int(7*g+0.5)-2*bad, 1), 10)
	why := fmt.Sprintf("What the trajectory has read covers %.0f%% of what the question needs", 100*g)
	if rng.Float64() < params.Misjudge {
		score, why = 1+rng.IntN(10), "It is hard to say how far this trajectory has come"
	}
	return fmt.Sprintf("%s.\nScore: %d/10", why, score)
}
