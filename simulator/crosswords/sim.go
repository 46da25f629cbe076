// Package crosswords is the simulated model's side of Mini Crosswords: it
// answers the bundled crosswords prompts (io, cot, propose, value) from
// what the prompt shows, with the noise parameters of llm/sim.
//
// Its knowledge of words is declared: the clue/answer pairs of the 136
// puzzles of the ToT repository's mini0505.json that are NOT test puzzles
// (the test set is puzzles 0, 5, ..., 95), the way a model knows a
// crossword dictionary it was trained on. Clues recur across puzzles of
// that source, so 116 of the 200 test answers occur among them; it never
// reads a test puzzle's solution. A clue recalls the words whose training
// clues share the most content words with it.
package crosswords

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// lexiconJSON is the declared vocabulary: [clue, answer] pairs of the
// non-test puzzles of mini0505.json (every puzzle but 0, 5, ..., 95),
// written once from that file; no test puzzle's grid is here.
//
//go:embed data/lexicon.json
var lexiconJSON []byte

// Markers of the bundled templates (prompts/crosswords), as a model
// recognises an instruction.
const (
	markerIO      = "Reply with the finished grid only"
	markerCoT     = "First think about which five-letter word"
	markerPropose = "Suggest answers for the clues that are unfilled or changed"
	markerValue   = "write your verdict alone on the last line"
)

// lexicon maps each known answer to the content words of its clues.
type lexicon struct {
	words []string
	clue  map[string]map[string]bool
}

var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields("the and for with from that which who one any not its are was has have into out off per") {
		stop[w] = true
	}
}

var wordRe = regexp.MustCompile(`[a-z]+`)

// tokens are a clue's content words.
func tokens(clue string) []string {
	var out []string
	for _, w := range wordRe.FindAllString(strings.ToLower(clue), -1) {
		if len(w) > 2 && !stop[w] {
			out = append(out, w)
		}
	}
	return out
}

var loadLexicon = sync.OnceValue(func() *lexicon {
	var pairs [][2]string
	lx := &lexicon{clue: map[string]map[string]bool{}}
	if err := json.Unmarshal(lexiconJSON, &pairs); err != nil {
		return lx
	}
	for _, p := range pairs {
		word := strings.ToUpper(p[1])
		if lx.clue[word] == nil {
			lx.clue[word] = map[string]bool{}
			lx.words = append(lx.words, word)
		}
		for _, t := range tokens(p[0]) {
			lx.clue[word][t] = true
		}
	}
	slices.Sort(lx.words)
	return lx
})

// candidate is a known word fitting a pattern, with how well it matches
// the clue (shared content words).
type candidate struct {
	word  string
	match int
}

// fits lists the known words fitting pattern (5 runes, '_' unknown), best
// matching the clue first, then alphabetically.
func (lx *lexicon) fits(clue, pattern string) []candidate {
	pat := []rune(strings.ToUpper(pattern))
	if len(pat) != 5 {
		return nil
	}
	toks := tokens(clue)
	var out []candidate
	for _, w := range lx.words {
		ok := true
		for k, r := range w {
			if k >= 5 || (pat[k] != '_' && pat[k] != r) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		m := 0
		for _, t := range toks {
			if lx.clue[w][t] {
				m++
			}
		}
		out = append(out, candidate{w, m})
	}
	slices.SortStableFunc(out, func(a, b candidate) int { return b.match - a.match })
	return out
}

// recall picks a word for a clue and pattern: with probability Skill the
// best match (ties drawn by Focus), otherwise any fitting word drawn by
// Focus. ok is false when no known word fits.
func (lx *lexicon) recall(clue, pattern string, rng *rand.Rand, p sim.Params) (candidate, bool) {
	return lx.recaller(clue, pattern)(rng, p)
}

// recaller is recall for one clue and pattern, the fitting words listed
// and ranked once for its draws: propose draws up to three words for a
// clue. Each draw is recall's, the same random numbers for the same words.
func (lx *lexicon) recaller(clue, pattern string) func(*rand.Rand, sim.Params) (candidate, bool) {
	cs := lx.fits(clue, pattern)
	var rank []int // sim.Pick's order of cs, made when first drawn from
	return func(rng *rand.Rand, p sim.Params) (candidate, bool) {
		if len(cs) == 0 {
			return candidate{}, false
		}
		if rng.Float64() < p.Skill && cs[0].match > 0 {
			top := 0
			for top < len(cs) && cs[top].match == cs[0].match {
				top++
			}
			return cs[sim.PickRank(rng, p.Focus, top)], true
		}
		if rank == nil {
			labels := make([]string, len(cs))
			for i, c := range cs {
				labels[i] = c.word
			}
			rank = sim.Rank(clue+"|"+pattern, labels)
		}
		return cs[rank[sim.PickRank(rng, p.Focus, len(cs))]], true
	}
}

// Responder answers the crosswords prompts.
type Responder struct{}

// Respond implements sim.Responder.
func (Responder) Respond(p sim.Prompt, rng *rand.Rand, params sim.Params) (llm.Choice, bool) {
	text := p.Last("user")
	lx := loadLexicon()
	var out string
	switch {
	case strings.Contains(text, markerValue):
		out = lx.judge(text, rng, params)
	case strings.Contains(text, markerPropose):
		out = lx.propose(text, rng, params)
	case strings.Contains(text, markerCoT):
		out = lx.solve(text, rng, params, true)
	case strings.Contains(text, markerIO):
		out = lx.solve(text, rng, params, false)
	default:
		return llm.Choice{}, false
	}
	return llm.Choice{Content: out}, true
}

var clueLine = regexp.MustCompile(`^([hv][1-5])\. (.+)$`)

// lastClues reads the clue list after the prompt's last "Input:" line.
func lastClues(text string) []string {
	i := strings.LastIndex(text, "Input:\n")
	if i < 0 {
		return nil
	}
	clues := make([]string, 10)
	for _, line := range strings.Split(text[i+len("Input:\n"):], "\n") {
		m := clueLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		k := int(m[1][1] - '1')
		if m[1][0] == 'v' {
			k += 5
		}
		clues[k] = m[2]
	}
	return clues
}

// solve fills the grid for io and cot: each clue recalls a word on an
// empty pattern; rows are the across words, and with cot (which reasons
// about crossings) a down word recalled with a better match overrides the
// row letters it crosses. With probability Slip a row is miswritten.
func (lx *lexicon) solve(text string, rng *rand.Rand, p sim.Params, cot bool) string {
	clues := lastClues(text)
	var words [10]candidate
	var b strings.Builder
	if cot {
		b.WriteString("Thoughts:\n")
	}
	for i, c := range clues {
		words[i] = candidate{"?????", -1}
		if c == "" {
			continue
		}
		if w, ok := lx.recall(c, "_____", rng, p); ok {
			words[i] = w
		}
		if cot {
			name := fmt.Sprintf("h%d", i+1)
			if i >= 5 {
				name = fmt.Sprintf("v%d", i-4)
			}
			fmt.Fprintf(&b, "%s. %s: %s\n", name, c, words[i].word)
		}
	}
	grid := make([][]rune, 5)
	for r := range 5 {
		grid[r] = []rune(words[r].word)
		if rng.Float64() < p.Slip && len(lx.words) > 0 {
			grid[r] = []rune(lx.words[rng.IntN(len(lx.words))])
		}
	}
	if cot {
		for c := 5; c < 10; c++ {
			for r := range 5 {
				if words[c].match > words[r].match && len(grid[r]) == 5 {
					grid[r][c-5] = []rune(words[c].word)[r]
				}
			}
		}
		b.WriteString("\nOutput:\n")
	}
	for _, row := range grid {
		letters := make([]string, len(row))
		for k, r := range row {
			letters[k] = string(r)
		}
		b.WriteString(strings.Join(letters, " ") + "\n")
	}
	return b.String()
}

// skipClue is the declared chance that a proposal answer leaves an open
// clue out, as models list only some.
const skipClue = 0.3

var statusLine = regexp.MustCompile(`^([hv][1-5])\. (.+): ([A-Z_]{5})$`)

// propose reads the clues listed as unfilled or changed with their letters
// and suggests up to 3 known fitting words for each of a few of them, the
// confidence following how well the word matches the clue.
func (lx *lexicon) propose(text string, rng *rand.Rand, p sim.Params) string {
	section := ""
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		switch strings.TrimSpace(line) {
		case "Unfilled:", "Filled:", "Changed:":
			section = strings.TrimSpace(line)
			continue
		}
		m := statusLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil || section == "Filled:" || rng.Float64() < skipClue {
			continue
		}
		seen := map[string]bool{}
		recall := lx.recaller(m[2], m[3])
		for range 3 {
			w, ok := recall(rng, p)
			if !ok || seen[w.word] {
				continue
			}
			seen[w.word] = true
			conf := "low"
			switch {
			case w.match >= 2:
				conf = "certain"
			case w.match == 1:
				conf = "high"
			case strings.Count(m[3], "_") <= 2:
				conf = "medium"
			}
			fmt.Fprintf(&b, "%s. %s (%s)\n", m[1], strings.ToLower(w.word), conf)
		}
	}
	return b.String()
}

// judge reads "clue: a _ b _ c" (the prompt's last line) and says sure when
// a known word fits and matches the clue, maybe when one fits or few
// letters are known, impossible otherwise; wrong with probability
// Misjudge.
func (lx *lexicon) judge(text string, rng *rand.Rand, p sim.Params) string {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	last := lines[len(lines)-1]
	i := strings.LastIndex(last, ": ")
	if i < 0 {
		return "maybe"
	}
	clue, pattern := last[:i], strings.ReplaceAll(last[i+2:], " ", "")
	verdict := "impossible"
	cs := lx.fits(clue, pattern)
	switch {
	case len(cs) > 0 && cs[0].match > 0:
		verdict = "sure"
	case len(cs) > 0 || strings.Count(pattern, "_") >= 3:
		verdict = "maybe"
	}
	if rng.Float64() < p.Misjudge {
		others := slices.DeleteFunc([]string{"sure", "maybe", "impossible"}, func(s string) bool { return s == verdict })
		verdict = others[rng.IntN(len(others))]
	}
	return fmt.Sprintf("Letters known: %s.\n%s", pattern, verdict)
}
