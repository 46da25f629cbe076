package hotpotqa

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Docstore is the tool a ReAct agent acts on: Search[entity] and Lookup[keyword]
// return observation text. Problems caused by the model's input (empty or
// unknown entity, nothing to look up) are reported in the observation, not as
// errors; errors are reserved for failures such as a cancelled context.
type Docstore interface {
	Search(ctx context.Context, entity string) (string, error)
	Lookup(ctx context.Context, keyword string) (string, error)
}

// Observation texts returned by LocalDocstore for degenerate inputs.
const (
	ObsNoMoreResults = "No more results.\n"
	ObsNoPage        = "No page searched yet. Use Search[entity] first."
	ObsEmptyEntity   = "Search needs an entity: Search[entity] with a non-empty entity."
	ObsEmptyKeyword  = "Lookup needs a keyword: Lookup[keyword] with a non-empty keyword."
)

// maxEcho bounds how much of the model's entity is echoed back in a
// "Could not find" observation.
const maxEcho = 200

// maxSimilar is the number of titles suggested when a search fails, as in
// ReAct's wikienv.py (result_titles[:5]).
const maxSimilar = 5

// LocalDocstore is a Docstore over a fixed set of paragraphs (normally a
// question's own context), mimicking ReAct's Wikipedia environment (wikienv.py)
// without network access. It is stateful (current page, lookup cursor), so use
// one per trajectory; it is safe for concurrent use, though concurrent calls on
// one trajectory make little sense.
type LocalDocstore struct {
	paras []Paragraph

	mu        sync.Mutex
	page      int // index into paras of the current page, -1 if none
	keyword   string
	hasLookup bool     // keyword/results/cursor are valid
	results   []string // sentences of the current page containing keyword
	cursor    int      // number of results already returned
}

var _ Docstore = (*LocalDocstore)(nil)

// NewLocalDocstore returns a docstore over paras (copied; titles are expected
// to be unique, and if not the first match wins).
func NewLocalDocstore(paras []Paragraph) *LocalDocstore {
	cp := make([]Paragraph, len(paras))
	for i, p := range paras {
		cp[i] = Paragraph{Title: p.Title, Sentences: append([]string(nil), p.Sentences...)}
	}
	return &LocalDocstore{paras: cp, page: -1}
}

// Search looks entity up among the paragraph titles.
//
// Matching is case-insensitive after trimming and collapsing whitespace; if no
// title matches that way, leading/trailing quotes (' " ‘ ’ “ ”) and periods are
// also ignored on both sides (so "VIVA Media." finds "VIVA Media" and
// "Vivendi S.A" finds "Vivendi S.A."). On a match the paragraph text (sentences
// joined, trimmed) is returned, the paragraph becomes the current page and the
// lookup state is reset.
//
// Otherwise the current page is unchanged and the observation is
// "Could not find <entity>. Similar: ['T1', 'T2', ...]." (ReAct's wording, with
// the list in Python repr) naming up to 5 titles, ranked by the number of
// distinct normalised tokens (see Normalize) shared with the entity, ties broken
// by context order; titles sharing no token fill the list only after all that
// do. The echoed entity is trimmed and cut to 200 runes.
func (d *LocalDocstore) Search(ctx context.Context, entity string) (string, error) {
	if err := ctxErr(ctx); err != nil {
		return "", err
	}
	entity = strings.TrimSpace(strings.ToValidUTF8(entity, "\uFFFD"))
	if entity == "" {
		return ObsEmptyEntity, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if i := d.findTitle(entity); i >= 0 {
		d.page = i
		d.resetLookup()
		text := strings.TrimSpace(d.paras[i].Text())
		if text == "" {
			return fmt.Sprintf("The page %q is empty.", d.paras[i].Title), nil
		}
		return text, nil
	}
	return fmt.Sprintf("Could not find %s. Similar: %s.", truncateRunes(entity, maxEcho), pyList(d.similar(entity))), nil
}

// Lookup returns the next sentence of the current page that contains keyword
// (case-insensitive substring), as ReAct's wikienv.py does: the first call for
// a keyword gives "(Result 1 / n) <sentence>", repeated calls with the same
// keyword give the following matches, and "No more results.\n" once they are
// exhausted (immediately if nothing matches). The cursor restarts when the
// keyword (trimmed, compared exactly) changes or a page is searched. Sentences
// are the paragraph's stored sentences, trimmed; empty ones are skipped.
func (d *LocalDocstore) Lookup(ctx context.Context, keyword string) (string, error) {
	if err := ctxErr(ctx); err != nil {
		return "", err
	}
	keyword = strings.TrimSpace(strings.ToValidUTF8(keyword, "\uFFFD"))
	if keyword == "" {
		return ObsEmptyKeyword, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.page < 0 {
		return ObsNoPage, nil
	}
	if !d.hasLookup || d.keyword != keyword {
		d.hasLookup = true
		d.keyword = keyword
		d.results = d.results[:0]
		d.cursor = 0
		kw := strings.ToLower(keyword)
		for _, s := range d.paras[d.page].Sentences {
			s = strings.TrimSpace(s)
			if s != "" && strings.Contains(strings.ToLower(s), kw) {
				d.results = append(d.results, s)
			}
		}
	}
	if d.cursor >= len(d.results) {
		return ObsNoMoreResults, nil
	}
	obs := fmt.Sprintf("(Result %d / %d) %s", d.cursor+1, len(d.results), d.results[d.cursor])
	d.cursor++
	return obs, nil
}

func (d *LocalDocstore) resetLookup() {
	d.hasLookup = false
	d.keyword = ""
	d.results = nil
	d.cursor = 0
}

func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}

// titleKey is the first-pass match key: lower case, whitespace collapsed.
func titleKey(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// looseTitleKey also drops leading/trailing quotes and periods.
func looseTitleKey(s string) string {
	return titleKey(strings.Trim(titleKey(s), ` "'.‘’“”`))
}

func (d *LocalDocstore) findTitle(entity string) int {
	for _, key := range []func(string) string{titleKey, looseTitleKey} {
		k := key(entity)
		if k == "" {
			continue
		}
		for i, p := range d.paras {
			if key(p.Title) == k {
				return i
			}
		}
	}
	return -1
}

// similar ranks titles by the number of distinct normalised tokens they share
// with entity (descending), then by position, and returns up to maxSimilar.
func (d *LocalDocstore) similar(entity string) []string {
	want := make(map[string]bool)
	for _, t := range strings.Fields(Normalize(entity)) {
		want[t] = true
	}
	type scored struct{ idx, score int }
	ranked := make([]scored, 0, len(d.paras))
	for i, p := range d.paras {
		seen := make(map[string]bool)
		for _, t := range strings.Fields(Normalize(p.Title)) {
			if want[t] {
				seen[t] = true
			}
		}
		ranked = append(ranked, scored{i, len(seen)})
	}
	// Stable insertion sort: few paragraphs, keeps context order on ties.
	for i := 1; i < len(ranked); i++ {
		for j := i; j > 0 && ranked[j].score > ranked[j-1].score; j-- {
			ranked[j], ranked[j-1] = ranked[j-1], ranked[j]
		}
	}
	var out []string
	for _, r := range ranked {
		if len(out) == maxSimilar {
			break
		}
		out = append(out, d.paras[r.idx].Title)
	}
	return out
}

// pyList formats titles like Python's repr of a list of str.
func pyList(items []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyRepr(s))
	}
	b.WriteByte(']')
	return b.String()
}

// pyRepr approximates Python's repr of a str: single quotes unless the string
// contains a single quote and no double quote; backslash, the quote and control
// characters escaped; printable Unicode kept.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteByte(q)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			b.WriteString(`\x` + pad(strconv.FormatInt(int64(r), 16), 2))
		case r < 0x10000:
			b.WriteString(`\u` + pad(strconv.FormatInt(int64(r), 16), 4))
		default:
			b.WriteString(`\U` + pad(strconv.FormatInt(int64(r), 16), 8))
		}
	}
	b.WriteByte(q)
	return b.String()
}

func pad(s string, n int) string {
	return strings.Repeat("0", max(0, n-len(s))) + s
}

// truncateRunes shortens s to at most n runes, marking the cut with "…".
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := 0; k < n; k++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i] + "…"
}
