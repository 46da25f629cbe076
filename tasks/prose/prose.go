// Package prose splits plain English text into sentences and tells the
// words too common to say what a text is about. Real tools use it (the qa
// task's docstore over a row's context) and so does the simulated model's
// reading (simulator/reading); it knows nothing of either.
package prose

// Sentences splits text after ". ", "? " and "! " (and newlines), each
// piece keeping its leading space, so the pieces joined give text back.
func Sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(text); i++ {
		c, next := text[i], text[i+1]
		if (c == '.' || c == '?' || c == '!' || c == '\n') && (next == ' ' || next == '\n') {
			out = append(out, text[start:i+1])
			start = i + 1
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// IsStopword tells a normalised word too common to say what a text is
// about.
func IsStopword(w string) bool { return stopwords[w] }

var stopwords = map[string]bool{
	"of": true, "in": true, "on": true, "at": true, "to": true, "for": true, "by": true, "with": true, "from": true,
	"and": true, "or": true, "is": true, "was": true, "are": true, "were": true, "be": true, "been": true,
	"what": true, "which": true, "who": true, "whom": true, "whose": true, "when": true, "where": true, "why": true,
	"how": true, "did": true, "does": true, "do": true, "that": true, "this": true, "it": true, "its": true,
	"as": true, "many": true, "much": true, "he": true, "she": true, "they": true, "his": true, "her": true,
	"their": true, "has": true, "have": true, "had": true, "not": true, "there": true, "than": true,
}
