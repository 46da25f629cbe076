package reading

import (
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/tasks/squad"
)

// Belief is what the model thinks about a question: answer candidates,
// the considered one first, and the reasoning behind it.
type Belief struct {
	Answers  []string
	Lines    []string   // the reasoning, a line each ("From <title>: <sentence>")
	Evidence []Sentence // the sentences the considered answer rests on
	// Support is the share of the question's words the evidence covers:
	// how sure the model can be that it has read what the question needs.
	Support float64
}

// A Thinker forms beliefs and compares answers. Plain reads passages
// alone; the qa responder adds calculation and lettered choices.
type Thinker interface {
	Consider(r Reading) Belief
	Same(a, b string) bool
}

// Plain is the Thinker of Consider and SameText.
type Plain struct{}

// Consider implements Thinker.
func (Plain) Consider(r Reading) Belief { return Consider(r) }

// Same implements Thinker.
func (Plain) Same(a, b string) bool { return SameText(a, b) }

// Cite writes a sentence as a line of reasoning.
func Cite(s Sentence) string {
	if s.Title != "" {
		return "From " + s.Title + ": " + s.Text
	}
	return "From the passages: " + s.Text
}

// recall is the reasoning of a closed-book answer.
const recall = "I recall what I know about this."

// Consider forms the model's belief about the question from the passages
// it read (closed book when there are none); lettered choices are left to
// the caller. The procedure, which is all the model knows:
//
//   - a question offering two alternatives ("..., A or B?") is answered
//     with one of them: for "first", "older" (or "later", "younger") the
//     one whose sentences give the earlier (later) year, else the one
//     whose sentences share more of the question's other words;
//   - a yes/no question: yes when, for each entity it names that the
//     passages are about (at least two), a sentence about it covers half
//     the question's other words without a negation; with fewer such
//     entities, when the sentence sharing most words with the question
//     covers half of them without a negation;
//   - otherwise a bridge: the sentence sharing most words with the question
//     (its title or paragraph counting), then, if words of the question
//     remain, the sentence about a name the first one gives that shares
//     most of the remaining words; the candidates are the names and numbers
//     these sentences give that the question does not say (and their pages'
//     titles), the last hop's first, of the kind the question asks for (a
//     number or date for "when", "what year", "how many") first, then those
//     of the other sentences in order of overlap;
//   - closed book: a guess among the question's own names (or its
//     alternatives, or yes and no), in a fixed arbitrary order.
func Consider(r Reading) Belief {
	q := r.Question
	alts := Alternatives(q)
	both := strings.Contains(" "+squad.Normalize(q)+" ", " both ")
	switch {
	case len(r.Passages) == 0:
		return closedBook(q, alts, both)
	case len(alts) == 2 && !both:
		return considerAlternatives(q, r.Passages, alts)
	case YesNoQuestion(q):
		return considerYesNo(q, r.Passages)
	}
	return considerBridge(q, r.Passages)
}

func closedBook(q string, alts []string, both bool) Belief {
	var opts []string
	switch {
	case len(alts) == 2 && !both:
		opts = alts
	case YesNoQuestion(q):
		opts = []string{"yes", "no"}
	default:
		opts = Names(q)
	}
	if len(opts) == 0 {
		opts = []string{"unknown"}
	}
	return Belief{Answers: TasteOrder(q, opts), Lines: []string{recall}}
}

// TasteOrder is a fixed, meaningless preference among options: the
// model's prior when it has nothing to go on.
func TasteOrder(taste string, opts []string) []string {
	out := make([]string, len(opts))
	for i, k := range sim.Rank("guess:"+taste, opts) {
		out[i] = opts[k]
	}
	return out
}

// Rank orders sentence indexes by how many of the question's words each
// shares (with its title or paragraph), most first, ties in order.
func Rank(question string, sents []Sentence) []int {
	return rankBy(ContentWords(question), sents)
}

func rankBy(want map[string]bool, sents []Sentence) []int {
	n := make([]int, len(sents))
	order := make([]int, len(sents))
	for i, s := range sents {
		n[i] = Overlap(want, s.Text+" "+s.about())
		order[i] = i
	}
	for a := 1; a < len(order); a++ {
		for b := a; b > 0 && n[order[b]] > n[order[b-1]]; b-- {
			order[b], order[b-1] = order[b-1], order[b]
		}
	}
	return order
}

// SupportOf is the share of the question's words the sentences (with
// their titles or paragraphs) cover.
func SupportOf(question string, sents ...Sentence) float64 {
	return support(ContentWords(question), sents...)
}

// support is the share of want the sentences' words cover.
func support(want map[string]bool, sents ...Sentence) float64 {
	if len(want) == 0 {
		return 0
	}
	var text []string
	for _, s := range sents {
		text = append(text, s.Text, s.about())
	}
	return float64(Overlap(want, strings.Join(text, " "))) / float64(len(want))
}

// candidates are the names and numbers a sentence gives that the question
// does not say, nearest the words of near first; a name that is part of
// the sentence's title gives way to the title.
func candidates(q question, s Sentence, near map[string]bool) []string {
	title := StripParens(s.Title)
	useTitle := title != "" && !q.padded.has(title)
	t := pad(title)
	var out []string
	for _, c := range spansNear(s.Text, q.padded, near) {
		if useTitle && t.has(c) {
			c = title
		}
		out = append(out, c)
	}
	if useTitle {
		out = append(out, title)
	}
	return byType(q.number, distinct(out))
}

// question is a question read once for repeated use.
type question struct {
	padded padded
	number bool // it asks for a number or a date
}

func readQ(q string) question { return question{pad(q), wantsNumber(q)} }

// read is a sentence with its texts normalised once, for repeated
// searches.
type read struct {
	Sentence
	title, text, lead padded
}

func prepare(sents []Sentence) []read {
	out := make([]read, len(sents))
	for i, s := range sents {
		out[i] = read{Sentence: s, title: pad(StripParens(s.Title)), text: pad(s.Text)}
		if s.Title == "" {
			out[i].lead = pad(s.Lead)
		}
	}
	return out
}

// relates tells whether a sentence is about name: its page is titled so,
// or it (or, untitled, its paragraph's first sentence) says the name.
func (r read) relates(name string) bool {
	n := squad.Normalize(name)
	return n != "" && (string(r.title) == " "+n+" " || r.text.has(name) || r.Title == "" && r.lead.has(name))
}

func considerBridge(q string, sents []Sentence) Belief {
	want := ContentWords(q)
	order := rankBy(want, sents)
	hop1 := sents[order[0]]
	qq := readQ(q)
	first := candidates(qq, hop1, want)
	chain := []Sentence{hop1}
	rem := map[string]bool{}
	covered := ContentWords(hop1.Text + " " + hop1.about())
	for w := range want {
		if !covered[w] {
			rem[w] = true
		}
	}
	var last []string
	if len(rem) > 0 {
		rs := prepare(sents)
		best, bestN, via := -1, 0, ""
		for _, i := range order[1:] {
			for _, b := range first {
				if hasDigitOnly(b) || !rs[i].relates(b) {
					continue
				}
				if n := Overlap(rem, sents[i].Text+" "+sents[i].about()); n > bestN {
					best, bestN, via = i, n, b
				}
				break
			}
		}
		if best >= 0 {
			hop2 := sents[best]
			chain = append(chain, hop2)
			v := pad(via)
			for _, c := range candidates(qq, hop2, rem) {
				if !v.has(c) {
					last = append(last, c)
				}
			}
		}
	}
	answers := append(last, first...)
	for _, i := range order[1:] {
		answers = append(answers, candidates(qq, sents[i], want)...)
	}
	b := Belief{Answers: distinct(answers), Evidence: chain, Support: support(want, chain...)}
	if len(b.Answers) == 0 {
		b.Answers = []string{"unknown"}
	}
	for _, s := range chain {
		b.Lines = append(b.Lines, Cite(s))
	}
	return b
}

// negations flip a yes/no reading.
var negations = map[string]bool{"not": true, "never": true, "no": true, "neither": true, "nor": true}

func negated(s string) bool {
	for _, w := range strings.Fields(squad.Normalize(s)) {
		if negations[w] {
			return true
		}
	}
	return false
}

// without is want less the words of the phrases.
func without(want map[string]bool, phrases []string) map[string]bool {
	drop := ContentWords(strings.Join(phrases, " "))
	out := map[string]bool{}
	for w := range want {
		if !drop[w] {
			out[w] = true
		}
	}
	return out
}

func considerYesNo(q string, sents []Sentence) Belief {
	want := ContentWords(q)
	entities := Names(q)
	prop := without(want, entities)
	var b Belief
	rs := prepare(sents)
	yes, about := true, 0
	if len(prop) > 0 {
		for _, e := range entities {
			best, bestN := -1, -1
			for i, s := range rs {
				if !s.relates(e) {
					continue
				}
				n := Overlap(prop, s.Text)
				if negated(s.Text) {
					n = 0
				}
				if n > bestN {
					best, bestN = i, n
				}
			}
			if best < 0 {
				continue
			}
			about++
			b.Evidence = append(b.Evidence, sents[best])
			yes = yes && 2*bestN >= len(prop)
		}
	}
	if about < 2 {
		best := sents[rankBy(want, sents)[0]]
		b.Evidence = []Sentence{best}
		yes = 2*Overlap(want, best.Text+" "+best.about()) >= len(want) && !negated(best.Text)
	}
	b.Support = support(want, b.Evidence...)
	for _, s := range b.Evidence {
		b.Lines = append(b.Lines, Cite(s))
	}
	b.Answers = []string{"no", "yes"}
	if yes {
		b.Answers = []string{"yes", "no"}
	}
	return b
}

// Alternatives returns the two options a question offers ("..., A or
// B?"), or nil.
func Alternatives(q string) []string {
	i := strings.Index(q, " or ")
	if i < 0 {
		return nil
	}
	left := strings.TrimRight(strings.TrimSpace(q[:i]), ",")
	right := strings.TrimSpace(q[i+len(" or "):])
	var a, b string
	if qs := quoted(left); len(qs) > 0 && strings.HasSuffix(strings.TrimRight(left, `"”`), qs[len(qs)-1]) {
		a = qs[len(qs)-1]
	} else if ns := names(left); len(ns) > 0 && strings.HasSuffix(left, ns[len(ns)-1]) {
		a = ns[len(ns)-1]
	}
	if qs := quoted(right); len(qs) > 0 && strings.HasPrefix(strings.TrimLeft(right, `"“`), qs[0]) {
		b = qs[0]
	} else if ns := names(right); len(ns) > 0 && strings.HasPrefix(right, ns[0]) {
		b = ns[0]
	}
	if a == "" || b == "" || SameText(a, b) {
		return nil
	}
	return []string{a, b}
}

var yearPattern = regexp.MustCompile(`\b(1[0-9]{3}|20[0-9]{2})\b`)

// compareCue is -1 for a question after the earlier of two, +1 for the
// later, 0 for neither.
func compareCue(q string) int {
	for _, w := range strings.Fields(squad.Normalize(q)) {
		switch w {
		case "first", "earlier", "earliest", "older", "oldest", "before":
			return -1
		case "later", "latest", "younger", "youngest", "newer", "newest", "recent", "recently":
			return 1
		}
	}
	return 0
}

func considerAlternatives(q string, sents []Sentence, alts []string) Belief {
	want := ContentWords(q)
	prop := without(want, alts)
	cue := compareCue(q)
	type option struct {
		best  int    // the sentence about it sharing most of prop, or -1
		score int    // that overlap
		year  string // the first year its sentences give
	}
	opts := make([]option, len(alts))
	rs := prepare(sents)
	for k, a := range alts {
		o := option{best: -1, score: -1}
		for i, s := range rs {
			if !s.relates(a) {
				continue
			}
			if n := Overlap(prop, s.Text); n > o.score {
				o.best, o.score = i, n
			}
			if y := yearPattern.FindString(s.Text); y != "" && o.year == "" {
				o.year = y
			}
		}
		opts[k] = o
	}
	order := TasteOrder(q, alts) // ties: a fixed prior
	pick := order[0]
	switch a, b := opts[0], opts[1]; {
	case cue != 0 && a.year != "" && b.year != "" && a.year != b.year:
		if (a.year < b.year) == (cue < 0) {
			pick = alts[0]
		} else {
			pick = alts[1]
		}
	case a.score != b.score:
		if a.score > b.score {
			pick = alts[0]
		} else {
			pick = alts[1]
		}
	}
	bel := Belief{Answers: []string{pick}}
	for k, a := range alts {
		if a != pick {
			bel.Answers = append(bel.Answers, a)
		}
		if opts[k].best >= 0 {
			bel.Evidence = append(bel.Evidence, sents[opts[k].best])
			bel.Lines = append(bel.Lines, Cite(sents[opts[k].best]))
		}
	}
	if len(bel.Lines) == 0 {
		bel.Lines = []string{recall}
	}
	bel.Support = support(want, bel.Evidence...)
	return bel
}

// Choose draws an answer from a belief: the considered one with
// probability skill, else another candidate by sim.Pick; then, with
// probability Slip, another candidate anyway (a misread). Answers avoid
// says to avoid are dropped while others remain. considered reports
// whether the answer is the considered one.
func Choose(b Belief, rng *rand.Rand, params sim.Params, skill float64, taste string, avoid func(string) bool) (ans string, considered bool) {
	cands := b.Answers
	if avoid != nil {
		var keep []string
		for _, c := range cands {
			if !avoid(c) {
				keep = append(keep, c)
			}
		}
		if len(keep) > 0 {
			cands = keep
		}
	}
	switch len(cands) {
	case 0:
		return "unknown", false
	case 1:
		return cands[0], (avoid == nil || !avoid(cands[0])) && b.Answers[0] == cands[0]
	}
	pick := func() string { return cands[1+sim.Pick(rng, params.Focus, taste, cands[1:])] }
	if rng.Float64() < skill {
		if rng.Float64() < params.Slip {
			return pick(), false
		}
		return cands[0], cands[0] == b.Answers[0]
	}
	return pick(), false
}
