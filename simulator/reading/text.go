// Package reading is how the simulated model reads a question-answer prompt
// and what it then believes: the question, the passages or paragraphs the
// prompt shows, the observations of a ReAct trajectory, the answer
// candidates they offer, and the considered one. The HotpotQA and qa
// responders (simulator/hotpotqa, simulator/qa) share it.
//
// It reads only text a model is shown. It never sees a gold answer or an
// annotation of which passages matter: the responders that use it answer
// the same through `bench serve-sim`, which knows no data at all. So how
// often the considered answer is right depends only on how well this small
// reading procedure fits the data; the simulator's Skill scales accuracy up
// to that ceiling, never beyond it.
package reading

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/reasonbench/reasonbench/tasks/prose"
	"github.com/reasonbench/reasonbench/tasks/squad"
)

// SentenceList splits a text into trimmed, non-empty sentences.
func SentenceList(text string) []string {
	var out []string
	for _, s := range prose.Sentences(text) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// stem strips a plural or tense ending, so "founded" meets "found" and
// "bands" meets "band".
func stem(w string) string {
	for _, suffix := range []string{"ing", "ed", "s"} {
		if strings.HasSuffix(w, suffix) && len(w)-len(suffix) >= 3 {
			return w[:len(w)-len(suffix)]
		}
	}
	return w
}

// Words are the normalised, stemmed words of s that say what it is about
// (stopwords dropped), in order.
func Words(s string) []string {
	var out []string
	for _, w := range strings.Fields(squad.Normalize(s)) {
		if !prose.IsStopword(w) {
			out = append(out, stem(w))
		}
	}
	return out
}

// ContentWords is the set of Words(s).
func ContentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range Words(s) {
		out[w] = true
	}
	return out
}

// Overlap counts the words of want that s contains.
func Overlap(want map[string]bool, s string) int {
	seen := map[string]bool{}
	for _, w := range Words(s) {
		if want[w] {
			seen[w] = true
		}
	}
	return len(seen)
}

// SameText compares two answers normalised (squad.Normalize); empty
// answers are never the same.
func SameText(a, b string) bool {
	na, nb := squad.Normalize(a), squad.Normalize(b)
	return na != "" && na == nb
}

// ContainsText tells whether list holds s, normalised.
func ContainsText(list []string, s string) bool {
	for _, x := range list {
		if SameText(x, s) {
			return true
		}
	}
	return false
}

// mentions tells whether text says phrase (normalised, as whole words).
func mentions(text, phrase string) bool { return pad(text).has(phrase) }

// padded is a normalised text between spaces, for repeated whole-word
// searches.
type padded string

func pad(text string) padded { return padded(" " + squad.Normalize(text) + " ") }

// has tells whether the text says phrase as whole words.
func (t padded) has(phrase string) bool {
	p := squad.Normalize(phrase)
	return p != "" && strings.Contains(string(t), " "+p+" ")
}

// distinct keeps the first of the texts that normalise alike, and drops
// those that normalise to nothing.
func distinct(texts []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range texts {
		if n := squad.Normalize(t); n != "" && !seen[n] {
			seen[n] = true
			out = append(out, t)
		}
	}
	return out
}

// StripParens drops a trailing disambiguation: "Love and Theft (duo)".
func StripParens(title string) string {
	if i := strings.LastIndex(title, " ("); i > 0 && strings.HasSuffix(title, ")") {
		return title[:i]
	}
	return title
}

// YesNoQuestion tells a question answered by yes or no.
func YesNoQuestion(q string) bool {
	first, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(q)), " ")
	switch first {
	case "is", "are", "was", "were", "do", "does", "did", "can", "could", "has", "have", "had", "will", "would", "should":
		return true
	}
	return false
}

// starters are capitalised words that start sentences and questions
// without naming anything.
var starters = map[string]bool{
	"a": true, "an": true, "the": true, "he": true, "she": true, "it": true, "they": true, "we": true, "i": true,
	"his": true, "her": true, "its": true, "their": true, "this": true, "these": true, "those": true, "there": true,
	"in": true, "on": true, "at": true, "after": true, "before": true, "during": true, "since": true, "as": true,
	"what": true, "which": true, "who": true, "whom": true, "whose": true, "when": true, "where": true, "why": true,
	"how": true, "is": true, "are": true, "was": true, "were": true, "do": true, "does": true, "did": true,
	"can": true, "could": true, "has": true, "have": true, "had": true, "will": true, "would": true, "should": true,
	"both": true, "of": true, "for": true, "from": true, "by": true, "with": true, "but": true, "and": true, "or": true,
}

// connectors join capitalised words into one name: "University of
// Idaho", "Ludwig van Beethoven".
var connectors = map[string]bool{"of": true, "the": true, "de": true, "da": true, "di": true, "du": true,
	"la": true, "le": true, "van": true, "von": true, "der": true, "del": true}

// names are the runs of capitalised words and numbers in text: "Jørn
// Utzon", "2 March 1972". A sentence's first word counts unless it is a
// common starter ("The", "He", "Which").
func names(text string) []string {
	var out []string
	for _, n := range namesAt(text) {
		out = append(out, n.text)
	}
	return out
}

// name is a name and the index of its first word among the text's fields.
type name struct {
	text string
	at   int
}

func namesAt(text string) []name {
	var out []name
	var run []string
	var held []string // connectors waiting for the next capitalised word
	at := 0
	flush := func() {
		if len(run) > 0 {
			out = append(out, name{strings.Join(run, " "), at})
		}
		run, held = run[:0], held[:0]
	}
	start := true
	for k, w := range strings.Fields(text) {
		core := strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		r, _ := utf8.DecodeRuneInString(core)
		lower := strings.ToLower(core)
		if core != "" && strings.ContainsAny(w[:strings.Index(w, core)], "(\"“'") {
			flush() // an opening quote or bracket starts a new name
		}
		switch {
		case core == "":
			flush()
		case unicode.IsDigit(r) || unicode.IsUpper(r) && !(start && starters[lower]):
			if len(run) == 0 {
				at = k
			}
			run = append(append(run, held...), core)
			held = held[:0]
		case len(run) > 0 && connectors[lower] && core == w:
			held = append(held, core)
		default:
			flush()
		}
		start = strings.HasSuffix(w, ".") || strings.HasSuffix(w, "?") || strings.HasSuffix(w, "!")
		if tail := w[strings.Index(w, core)+len(core):]; core == "" || strings.ContainsAny(tail, ",;:()\".?!”'") {
			flush()
		}
	}
	flush()
	return out
}

// quoted are the phrases text puts in double quotes.
func quoted(text string) []string {
	var out []string
	for _, q := range []string{`"`, "“"} {
		closer := q
		if q == "“" {
			closer = "”"
		}
		rest := text
		for {
			i := strings.Index(rest, q)
			if i < 0 {
				break
			}
			rest = rest[i+len(q):]
			j := strings.Index(rest, closer)
			if j < 0 {
				break
			}
			if p := strings.Trim(strings.TrimSpace(rest[:j]), ",.?!"); p != "" && len(p) < 120 {
				out = append(out, p)
			}
			rest = rest[j+len(closer):]
		}
	}
	return out
}

// Spans are the answer-like phrases of a sentence that the question does
// not already say: its names and numbers, in order.
func Spans(sentence, question string) []string {
	return spansNear(sentence, pad(question), nil)
}

// spansNear are Spans ordered by how close each stands to a word of near
// in the sentence (the words it shares with the question: an answer sits
// next to what the question asks about), ties in order.
func spansNear(sentence string, q padded, near map[string]bool) []string {
	var anchors []int
	if len(near) > 0 {
		for k, w := range strings.Fields(sentence) {
			if near[wordKey(w)] {
				anchors = append(anchors, k)
			}
		}
	}
	type cand struct {
		text string
		dist int
	}
	var cs []cand
	for _, n := range namesAt(sentence) {
		if q.has(n.text) {
			continue
		}
		d := 0
		if len(anchors) > 0 {
			d = 1 << 30
			for _, a := range anchors {
				// Twice the distance, one more before the anchor: at equal
				// distance the phrase after the word the question shares
				// ("disbanded in 2004") is its complement.
				if n.at > a {
					d = min(d, 2*(n.at-a))
				} else {
					d = min(d, 2*(a-n.at)+1)
				}
			}
		}
		cs = append(cs, cand{n.text, d})
	}
	for a := 1; a < len(cs); a++ {
		for b := a; b > 0 && cs[b].dist < cs[b-1].dist; b-- {
			cs[b], cs[b-1] = cs[b-1], cs[b]
		}
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.text
	}
	return distinct(out)
}

// wordKey is one word as Words gives it (lower case, ASCII punctuation
// dropped, stemmed), or "" for a stopword.
func wordKey(w string) string {
	w = strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r) {
			return -1
		}
		return r
	}, strings.ToLower(w))
	if w == "" || prose.IsStopword(w) {
		return ""
	}
	return stem(w)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Names are the things a question names, quoted titles first, then its
// runs of capitalised words; these are what a reader searches for.
func Names(question string) []string {
	var out []string
	for _, s := range append(quoted(question), names(question)...) {
		if !hasDigitOnly(s) {
			out = append(out, s)
		}
	}
	return distinct(out)
}

func hasDigit(s string) bool { return strings.IndexFunc(s, unicode.IsDigit) >= 0 }

// hasDigitOnly tells a span with no letter: "1990".
func hasDigitOnly(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) < 0 }

// wantsNumber tells a question whose answer is a number or a date.
func wantsNumber(q string) bool {
	n := " " + squad.Normalize(q) + " "
	for _, cue := range []string{" when ", " year ", " how many ", " how much ", " date ", " birthday ", " how old ", " age "} {
		if strings.Contains(n, cue) {
			return true
		}
	}
	return false
}

// byType puts the candidates of the kind the question asks for first (a
// number for "when", "what year", "how many"; a name otherwise), keeping
// the order within each kind.
func byType(num bool, cands []string) []string {
	var first, rest []string
	for _, c := range cands {
		if hasDigit(c) == num {
			first = append(first, c)
		} else {
			rest = append(rest, c)
		}
	}
	return append(first, rest...)
}
