package tau

import (
	"slices"
	"strings"
	"unicode"
)

// request is one thing the user asked for, as the agent reads their
// words: its kind and the text about it (the segments of the user's
// sentences that begin at one of its verbs).
type request struct {
	kind string
	at   int // the user message that first asked it
	text string
}

// classifier names the kind of request a verb (its base form and the form
// written) and its segment make ("" for none).
type classifier func(verb, form, segment string) string

// readRequests finds the requests in the user's messages: each sentence is
// cut at the verbs, a segment running from a verb to the next (the first
// also takes the words before it), and each segment is classified. Kinds
// are kept in the order first asked, their texts joined.
func readRequests(texts []string, verbs []string, classify classifier) []request {
	var out []request
	for at, text := range texts {
		if len(text) > maxRead {
			text = text[:maxRead] // a model reads so much of a message
		}
		for _, sentence := range sentences(text) {
			starts := verbStarts(sentence, verbs)
			// A segment of no kind ("I want to", "checked bags") joins the
			// next one, or the last one at the sentence's end.
			pending, last := "", -1
			var pendingVerbs []verbAt
			for i, st := range starts {
				from, to := st.pos, len(sentence)
				if i == 0 {
					from = 0
				}
				if i+1 < len(starts) {
					to = starts[i+1].pos
				}
				seg := pending + sentence[from:to]
				kind := classify(st.verb, st.form, seg)
				if kind == "" {
					kind = classify(st.verb, st.form, sentence[from:to])
				}
				for _, pv := range pendingVerbs {
					if kind == "" {
						kind = classify(pv.verb, pv.form, seg)
					}
				}
				if kind == "" {
					pending = seg
					if len(pendingVerbs) < 2 {
						pendingVerbs = append(pendingVerbs, st)
					}
					continue
				}
				pending, pendingVerbs = "", nil
				j := slices.IndexFunc(out, func(r request) bool { return r.kind == kind })
				if j < 0 {
					out = append(out, request{kind: kind, at: at, text: seg})
					j = len(out) - 1
				} else {
					out[j].text += " " + seg
				}
				last = j
			}
			if pending != "" && last >= 0 {
				out[last].text += " " + pending
			}
		}
	}
	return out
}

// maxRead is how much of one message the agent reads for requests.
const maxRead = 4000

type verbAt struct {
	verb, form string
	pos        int
}

// verbSuffixes are the endings of a verb's forms after its stem (the verb
// without a final e or y).
var verbSuffixes = []string{"", "s", "es", "ed", "d", "ing", "ling", "led", "lation", "ied", "ies", "ication", "ation", "e", "y"}

// verbStarts are the positions of the verbs (whole lower-case words, or
// their -ing, -ed forms) in a sentence.
func verbStarts(sentence string, verbs []string) []verbAt {
	var out []verbAt
	lower := strings.ToLower(sentence)
	for i := 0; i < len(lower); {
		if !isWordRune(rune(lower[i])) {
			i++
			continue
		}
		j := i
		for j < len(lower) && isWordRune(rune(lower[j])) {
			j++
		}
		w := lower[i:j]
		for _, v := range verbs {
			stem := strings.TrimRight(v, "ey")
			if rest, ok := strings.CutPrefix(w, stem); ok && (w == v || slices.Contains(verbSuffixes, rest)) {
				out = append(out, verbAt{v, w, i})
				break
			}
		}
		i = j
	}
	return out
}

func isWordRune(r rune) bool { return r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)) }

// sentences splits text at ., !, ? and ; followed by a space or the end
// (not inside a number or an id).
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '.' && c != '!' && c != '?' && c != ';' && c != '\n' {
			continue
		}
		if i+1 < len(text) && text[i+1] != ' ' && text[i+1] != '\n' {
			continue
		}
		if s := strings.TrimSpace(text[start : i+1]); s != "" {
			out = append(out, s)
		}
		start = i + 1
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}
