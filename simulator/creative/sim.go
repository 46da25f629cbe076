// Package creative is the simulated model's side of Creative Writing: a
// writer, a voter and a declared simulated judge, each reading only the
// prompt (the bundled prompts/creative templates).
//
// Its notion of coherence is explicit and observable in the text: a
// paragraph is linked when the sentences before its closing sentence
// mention a content word of that closing sentence, and bridged when they
// also mention one of the previous paragraph's closing sentence.
//
//   - The writer links and bridges a paragraph with probability Skill; when
//     it writes from a plan it follows the plan's item for that paragraph
//     (a linking item, or a generic one), departing from it with
//     probability Slip. With probability Slip/4 a paragraph's closing
//     sentence is left out.
//   - The voter scores each choice (a plan: its linking items; a passage:
//     its links and bridges) and names the best; with probability Misjudge
//     any other.
//   - The simulated judge scores a passage 1 + 9*(links+bridges)/7,
//     rounded, minus 2 unless it has four paragraphs; with probability
//     Misjudge the score moves by 1 or 2 either way; clipped to 1-10.
package creative

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks/creative"
)

// Markers of the bundled templates.
const (
	markerTask   = "Compose a passage of four short paragraphs"
	markerSplit  = "and so on): "
	markerCoT    = "Sketch a plan first"
	markerLayout = "(the four paragraphs)\n"
	markerVote   = "The best choice is N"
	markerJudge  = "Thus the coherency score is S"
)

// Responder answers the creative writing prompts.
type Responder struct{}

// Respond implements sim.Responder.
func (Responder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	text := p.Last("user")
	var out string
	switch {
	case strings.Contains(text, markerJudge):
		out = judge(text, rng, params)
	case strings.Contains(text, markerVote):
		out = vote(text, rng, params)
	case strings.Contains(text, markerTask):
		out = write(text, rng, params)
	default:
		return llm.Choice{}, false
	}
	return llm.Choice{Content: out}, true
}

var sentenceEnd = regexp.MustCompile(`[.!?]["')\]]*\s+`)

// sentences splits text after each sentence end.
func sentences(text string) []string {
	var out []string
	last := 0
	for _, m := range sentenceEnd.FindAllStringIndex(text, -1) {
		out = append(out, strings.TrimSpace(text[last:m[1]]))
		last = m[1]
	}
	if rest := strings.TrimSpace(text[last:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields("that this with from have were when what there their they them then than into your just like been only about would could something else entirely write lead towards began thinking changed things happened unrelated day") {
		stop[w] = true
	}
}

var wordRe = regexp.MustCompile(`[a-z]+`)

func content(s string) []string {
	var out []string
	for _, w := range wordRe.FindAllString(strings.ToLower(s), -1) {
		if len(w) > 3 && !stop[w] {
			out = append(out, w)
		}
	}
	return out
}

func shares(text string, words []string) bool {
	set := map[string]bool{}
	for _, w := range content(text) {
		set[w] = true
	}
	for _, w := range words {
		if set[w] {
			return true
		}
	}
	return false
}

// write answers io and cot prompts, and continues a plan appended to a
// cot prompt.
func write(text string, rng *rand.Rand, p sim.Params) string {
	i := strings.Index(text, markerSplit)
	if i < 0 {
		return "I am not sure what to write."
	}
	line, _, _ := strings.Cut(text[i+len(markerSplit):], "\n")
	ss := sentences(line)
	if !strings.Contains(text, markerCoT) {
		return passage(ss, nil, rng, p)
	}
	if j := strings.Index(text, markerLayout); j >= 0 {
		if plan := text[j+len(markerLayout):]; strings.Contains(plan, "Plan:") {
			return "\nPassage:\n" + passage(ss, planLinks(plan, len(ss)), rng, p)
		}
	}
	items := make([]bool, len(ss))
	var b strings.Builder
	b.WriteString("Plan:\n")
	for k := range ss {
		items[k] = rng.Float64() < p.Skill
		if items[k] {
			fmt.Fprintf(&b, "%d. Lead from the %s towards the %s.\n", k+1, pickWord(ss, k-1, rng), pickWord(ss, k, rng))
		} else {
			fmt.Fprintf(&b, "%d. Write about something else entirely.\n", k+1)
		}
	}
	return b.String() + "\nPassage:\n" + passage(ss, items, rng, p)
}

var itemRe = regexp.MustCompile(`^\d+\. `)

// planLinks reads which items of a plan link (name two content words).
func planLinks(plan string, n int) []bool {
	out := make([]bool, n)
	k := 0
	for _, line := range strings.Split(plan, "\n") {
		if itemRe.MatchString(line) && k < n {
			out[k] = len(content(line)) >= 2
			k++
		}
	}
	return out
}

// pickWord is a content word of sentence k (the first sentence's for k<0).
func pickWord(ss []string, k int, rng *rand.Rand) string {
	k = max(k, 0)
	if k >= len(ss) {
		return "story"
	}
	ws := content(ss[k])
	if len(ws) == 0 {
		return "story"
	}
	return ws[rng.IntN(len(ws))]
}

// passage writes one paragraph per sentence; plan says which to link
// (nil: each with probability Skill).
func passage(ss []string, plan []bool, rng *rand.Rand, p sim.Params) string {
	paras := make([]string, len(ss))
	for k, s := range ss {
		linked := rng.Float64() < p.Skill
		if plan != nil {
			linked = plan[k] != (rng.Float64() < p.Slip)
		}
		body := "Something unrelated happened that day."
		if linked {
			body = fmt.Sprintf("It began with the %s. Thinking about the %s changed things.", pickWord(ss, k-1, rng), pickWord(ss, k, rng))
		}
		if rng.Float64() < p.Slip/4 {
			s = ""
		}
		paras[k] = strings.TrimSpace(body + " " + s)
	}
	return strings.Join(paras, "\n\n") + "\n"
}

// cohesion counts a passage's links and bridges.
func cohesion(text string) (score, paragraphs int) {
	ps := creative.Paragraphs(text)
	prevEnd := ""
	for i, para := range ps {
		ss := sentences(para)
		end := ss[len(ss)-1]
		body := strings.Join(ss[:len(ss)-1], " ")
		if shares(body, content(end)) {
			score++
		}
		if i > 0 && shares(body, content(prevEnd)) {
			score++
		}
		prevEnd = end
	}
	return score, len(ps)
}

// judge is the declared simulated judge.
func judge(text string, rng *rand.Rand, p sim.Params) string {
	i := strings.Index(text, markerJudge)
	rest := text[i+len(markerJudge):]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[j+1:]
	}
	c, n := cohesion(rest)
	s := 1 + int(math.Round(9*float64(min(c, 7))/7))
	if n != 4 {
		s -= 2
	}
	if rng.Float64() < p.Misjudge {
		s += (1 + rng.IntN(2)) * (2*rng.IntN(2) - 1)
	}
	s = min(10, max(1, s))
	return fmt.Sprintf("The passage has %d paragraphs; %d of its links and bridges hold.\nThus the coherency score is %d", n, c, s)
}

var choiceRe = regexp.MustCompile(`(?m)^Choice (\d+):\n`)

// vote scores each choice and names the best.
func vote(text string, rng *rand.Rand, p sim.Params) string {
	locs := choiceRe.FindAllStringIndex(text, -1)
	if len(locs) == 0 {
		return "There is nothing to choose from."
	}
	scores := make([]int, len(locs))
	best := []int{}
	for k, l := range locs {
		end := len(text)
		if k+1 < len(locs) {
			end = locs[k+1][0]
		}
		choice := text[l[1]:end]
		if _, pass, ok := strings.Cut(choice, "Passage:\n"); ok {
			scores[k], _ = cohesion(pass)
		} else {
			for _, linked := range planLinks(choice, 4) {
				if linked {
					scores[k]++
				}
			}
		}
		switch {
		case len(best) == 0 || scores[k] > scores[best[0]]:
			best = []int{k}
		case scores[k] == scores[best[0]]:
			best = append(best, k)
		}
	}
	labels := make([]string, len(best))
	for i, k := range best {
		labels[i] = fmt.Sprint(k)
	}
	pick := best[sim.Pick(rng, p.Focus, "vote", labels)]
	if rng.Float64() < p.Misjudge && len(locs) > 1 {
		pick = (pick + 1 + rng.IntN(len(locs)-1)) % len(locs)
	}
	return fmt.Sprintf("Weighing how each choice connects its parts.\nThe best choice is %d", pick+1)
}
