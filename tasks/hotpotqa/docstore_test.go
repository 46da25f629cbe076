package hotpotqa

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func testParas() []Paragraph {
	return []Paragraph{
		{Title: "VIVA Media", Sentences: []string{"VIVA Media GmbH (until 2004 \"VIVA Media AG\") is a music television network.", " It is based in Cologne.", " VIVA Media was founded in 1993."}},
		{Title: "Vivendi S.A.", Sentences: []string{"Vivendi S.A. is a French mass media conglomerate."}},
		{Title: "Papa Gino's", Sentences: []string{"Papa Gino's, Inc. is a restaurant chain.", " It is based in Dedham, Massachusetts."}},
		{Title: "Gesellschaft mit beschränkter Haftung", Sentences: []string{"A Gesellschaft mit beschränkter Haftung (GmbH) is a type of legal entity.", " ", " The GmbH is common in Germany."}},
		{Title: "The Bears", Sentences: []string{" The Bears are a band. "}},
		{Title: "Music television", Sentences: []string{"Music television is a genre."}},
		{Title: "Cologne", Sentences: []string{"Cologne is a city in Germany."}},
	}
}

type step struct {
	op, arg string // op: "search" or "lookup"
	want    string
}

func runSteps(t *testing.T, d *LocalDocstore, steps []step) {
	t.Helper()
	ctx := context.Background()
	for i, s := range steps {
		var got string
		var err error
		switch s.op {
		case "search":
			got, err = d.Search(ctx, s.arg)
		case "lookup":
			got, err = d.Lookup(ctx, s.arg)
		default:
			t.Fatalf("bad op %q", s.op)
		}
		if err != nil {
			t.Fatalf("step %d %s[%s]: error %v", i, s.op, s.arg, err)
		}
		if got != s.want {
			t.Errorf("step %d %s[%s]:\n got %q\nwant %q", i, s.op, s.arg, got, s.want)
		}
	}
}

func TestLocalDocstoreSearch(t *testing.T) {
	vivaText := `VIVA Media GmbH (until 2004 "VIVA Media AG") is a music television network. It is based in Cologne. VIVA Media was founded in 1993.`
	tests := []struct {
		name, entity, want string
	}{
		{"exact", "VIVA Media", vivaText},
		{"case and spaces", "  viva   MEDIA ", vivaText},
		{"trailing period", "VIVA Media.", vivaText},
		{"quoted", `"VIVA Media"`, vivaText},
		{"curly quoted", "“VIVA Media”", vivaText},
		{"title with period, entity without", "vivendi s.a", "Vivendi S.A. is a French mass media conglomerate."},
		{"title with period, exact", "Vivendi S.A.", "Vivendi S.A. is a French mass media conglomerate."},
		{"apostrophe title", "papa gino's", "Papa Gino's, Inc. is a restaurant chain. It is based in Dedham, Massachusetts."},
		{"unicode title", "GESELLSCHAFT MIT BESCHRÄNKTER HAFTUNG", "A Gesellschaft mit beschränkter Haftung (GmbH) is a type of legal entity.  The GmbH is common in Germany."},
		{"text trimmed", "the bears", "The Bears are a band."},
		{"not found, ranked by overlap then order", "VIVA Media AG",
			"Could not find VIVA Media AG. Similar: ['VIVA Media', 'Vivendi S.A.', \"Papa Gino's\", 'Gesellschaft mit beschränkter Haftung', 'The Bears']."},
		{"not found, overlap reorders", "music of Cologne",
			"Could not find music of Cologne. Similar: ['Music television', 'Cologne', 'VIVA Media', 'Vivendi S.A.', \"Papa Gino's\"]."},
		{"not found, articles ignored in overlap", "The Beatles",
			"Could not find The Beatles. Similar: ['VIVA Media', 'Vivendi S.A.', \"Papa Gino's\", 'Gesellschaft mit beschränkter Haftung', 'The Bears']."},
		{"not found, tokens normalised", "haftung (gmbh)",
			"Could not find haftung (gmbh). Similar: ['Gesellschaft mit beschränkter Haftung', 'VIVA Media', 'Vivendi S.A.', \"Papa Gino's\", 'The Bears']."},
		{"empty", "   ", ObsEmptyEntity},
		{"only quotes does not match everything", `""`,
			"Could not find \"\". Similar: ['VIVA Media', 'Vivendi S.A.', \"Papa Gino's\", 'Gesellschaft mit beschränkter Haftung', 'The Bears']."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewLocalDocstore(testParas())
			got, err := d.Search(context.Background(), tt.entity)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Search(%q):\n got %q\nwant %q", tt.entity, got, tt.want)
			}
		})
	}
}

func TestLocalDocstoreLookup(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"no page yet", []step{
			{"lookup", "Cologne", ObsNoPage},
			{"search", "Nowhere", "Could not find Nowhere. Similar: ['VIVA Media', 'Vivendi S.A.', \"Papa Gino's\", 'Gesellschaft mit beschränkter Haftung', 'The Bears']."},
			{"lookup", "Cologne", ObsNoPage},
		}},
		{"results in order then exhausted", []step{
			{"search", "VIVA Media", `VIVA Media GmbH (until 2004 "VIVA Media AG") is a music television network. It is based in Cologne. VIVA Media was founded in 1993.`},
			{"lookup", "viva", `(Result 1 / 2) VIVA Media GmbH (until 2004 "VIVA Media AG") is a music television network.`},
			{"lookup", "viva", "(Result 2 / 2) VIVA Media was founded in 1993."},
			{"lookup", "viva", ObsNoMoreResults},
			{"lookup", "viva", ObsNoMoreResults},
		}},
		{"keyword change resets", []step{
			{"search", "VIVA Media", `VIVA Media GmbH (until 2004 "VIVA Media AG") is a music television network. It is based in Cologne. VIVA Media was founded in 1993.`},
			{"lookup", "VIVA", `(Result 1 / 2) VIVA Media GmbH (until 2004 "VIVA Media AG") is a music television network.`},
			{"lookup", "cologne", "(Result 1 / 1) It is based in Cologne."},
			{"lookup", "VIVA", `(Result 1 / 2) VIVA Media GmbH (until 2004 "VIVA Media AG") is a music television network.`},
			{"lookup", " VIVA ", "(Result 2 / 2) VIVA Media was founded in 1993."},                                           // trimmed: same keyword
			{"lookup", "viva", `(Result 1 / 2) VIVA Media GmbH (until 2004 "VIVA Media AG") is a music television network.`}, // exact compare, as wikienv.py
		}},
		{"no match", []step{
			{"search", "Cologne", "Cologne is a city in Germany."},
			{"lookup", "France", ObsNoMoreResults},
		}},
		{"new search resets", []step{
			{"search", "Gesellschaft mit beschränkter Haftung", "A Gesellschaft mit beschränkter Haftung (GmbH) is a type of legal entity.  The GmbH is common in Germany."},
			{"lookup", "GMBH", "(Result 1 / 2) A Gesellschaft mit beschränkter Haftung (GmbH) is a type of legal entity."},
			{"search", "Gesellschaft mit beschränkter Haftung", "A Gesellschaft mit beschränkter Haftung (GmbH) is a type of legal entity.  The GmbH is common in Germany."},
			{"lookup", "GMBH", "(Result 1 / 2) A Gesellschaft mit beschränkter Haftung (GmbH) is a type of legal entity."},
			{"lookup", "GMBH", "(Result 2 / 2) The GmbH is common in Germany."},
			{"search", "VIVA Media", `VIVA Media GmbH (until 2004 "VIVA Media AG") is a music television network. It is based in Cologne. VIVA Media was founded in 1993.`},
			{"lookup", "GMBH", `(Result 1 / 1) VIVA Media GmbH (until 2004 "VIVA Media AG") is a music television network.`},
		}},
		{"failed search keeps page and cursor", []step{
			{"search", "VIVA Media", `VIVA Media GmbH (until 2004 "VIVA Media AG") is a music television network. It is based in Cologne. VIVA Media was founded in 1993.`},
			{"lookup", "VIVA", `(Result 1 / 2) VIVA Media GmbH (until 2004 "VIVA Media AG") is a music television network.`},
			{"search", "", ObsEmptyEntity},
			{"search", "Nowhere", "Could not find Nowhere. Similar: ['VIVA Media', 'Vivendi S.A.', \"Papa Gino's\", 'Gesellschaft mit beschränkter Haftung', 'The Bears']."},
			{"lookup", "VIVA", "(Result 2 / 2) VIVA Media was founded in 1993."},
		}},
		{"empty keyword", []step{
			{"lookup", "", ObsEmptyKeyword},
			{"search", "Cologne", "Cologne is a city in Germany."},
			{"lookup", " \t", ObsEmptyKeyword},
		}},
		{"unicode keyword case-insensitive", []step{
			{"search", "Gesellschaft mit beschränkter Haftung", "A Gesellschaft mit beschränkter Haftung (GmbH) is a type of legal entity.  The GmbH is common in Germany."},
			{"lookup", "BESCHRÄNKTER", "(Result 1 / 1) A Gesellschaft mit beschränkter Haftung (GmbH) is a type of legal entity."},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runSteps(t, NewLocalDocstore(testParas()), tt.steps)
		})
	}
}

func TestLocalDocstoreHostileInput(t *testing.T) {
	d := NewLocalDocstore(testParas())
	ctx := context.Background()
	long := strings.Repeat("viva \xff\n'\"[]", 50000)
	obs, err := d.Search(ctx, long)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(obs, "Could not find ") || len(obs) > 2000 {
		t.Errorf("long search: len %d, %.80q", len(obs), obs)
	}
	if obs, err = d.Lookup(ctx, long); err != nil || obs != ObsNoPage {
		t.Errorf("long lookup = %q, %v", obs, err)
	}
	if _, err := d.Search(ctx, "VIVA Media"); err != nil {
		t.Fatal(err)
	}
	if obs, err = d.Lookup(ctx, long); err != nil || obs != ObsNoMoreResults {
		t.Errorf("long lookup = %q, %v", obs, err)
	}
	// An empty docstore works too.
	e := NewLocalDocstore(nil)
	if obs, err = e.Search(ctx, "x"); err != nil || obs != "Could not find x. Similar: []." {
		t.Errorf("empty docstore: %q, %v", obs, err)
	}
	// A nil context is tolerated.
	//lint:ignore SA1012 deliberately testing a nil context
	if _, err := d.Search(nil, "Cologne"); err != nil {
		t.Errorf("nil ctx: %v", err)
	}
}

func TestLocalDocstoreContext(t *testing.T) {
	d := NewLocalDocstore(testParas())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Search(ctx, "Cologne"); !errors.Is(err, context.Canceled) {
		t.Errorf("Search with cancelled ctx: %v", err)
	}
	if _, err := d.Lookup(ctx, "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("Lookup with cancelled ctx: %v", err)
	}
}

func TestLocalDocstoreCopiesInput(t *testing.T) {
	paras := testParas()
	d := NewLocalDocstore(paras)
	paras[6].Title = "Changed"
	paras[6].Sentences[0] = "Changed."
	got, _ := d.Search(context.Background(), "Cologne")
	if got != "Cologne is a city in Germany." {
		t.Errorf("docstore aliased its input: %q", got)
	}
}

// TestLocalDocstoreConcurrent: concurrent calls on one docstore behave as
// some order of the same calls one at a time. Lookups of one keyword on a
// page of n matching sentences hand out each "(Result k / n)" exactly once
// (with its own sentence), then "No more results."; mixed with searches,
// every observation is one a serial call could give. Under -race a
// missing lock is a reported race; without it, a lost cursor update is a
// repeated or missing result.
func TestLocalDocstoreConcurrent(t *testing.T) {
	const n, workers, each = 2000, 8, 400
	var sentences []string
	for k := range n {
		sentences = append(sentences, fmt.Sprintf(" Viva fact %d.", k+1))
	}
	paras := append(testParas(), Paragraph{Title: "Viva facts", Sentences: sentences})
	d := NewLocalDocstore(paras)
	ctx := context.Background()
	if _, err := d.Search(ctx, "Viva facts"); err != nil {
		t.Fatal(err)
	}
	got := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				obs, err := d.Lookup(ctx, "viva")
				if err != nil {
					obs = "error: " + err.Error()
				}
				got[w] = append(got[w], obs)
			}
		})
	}
	wg.Wait()
	seen := map[string]int{}
	for _, g := range got {
		for _, obs := range g {
			seen[obs]++
		}
	}
	for k := range n {
		want := fmt.Sprintf("(Result %d / %d) Viva fact %d.", k+1, n, k+1)
		if seen[want] != 1 {
			t.Errorf("%q came %d times, want once", want, seen[want])
		}
		delete(seen, want)
	}
	if seen[ObsNoMoreResults] != workers*each-n || len(seen) != 1 {
		t.Errorf("beyond the results: %v, want %d of %q", seen, workers*each-n, ObsNoMoreResults)
	}

	// Searches and lookups of two pages at once: each observation is a
	// page's text or a lookup result of one of the pages.
	d = NewLocalDocstore(testParas())
	valid := map[string]bool{ObsNoMoreResults: true, ObsNoPage: true}
	for _, page := range []string{"VIVA Media", "Papa Gino's"} {
		s := NewLocalDocstore(testParas())
		text, _ := s.Search(ctx, page)
		valid[text] = true
		for {
			obs, _ := s.Lookup(ctx, "i")
			if obs == ObsNoMoreResults {
				break
			}
			valid[obs] = true
		}
	}
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				var obs string
				switch {
				case i%3 != 0:
					obs, _ = d.Lookup(ctx, "i")
				case w%2 == 0:
					obs, _ = d.Search(ctx, "VIVA Media")
				default:
					obs, _ = d.Search(ctx, "Papa Gino's")
				}
				if !valid[obs] {
					t.Errorf("worker %d call %d: %q, which no serial call gives", w, i, obs)
				}
			}
		})
	}
	wg.Wait()
}

func TestPyRepr(t *testing.T) {
	tests := []struct{ in, want string }{
		{"abc", "'abc'"},
		{"Papa Gino's", `"Papa Gino's"`},
		{`say "hi" it's`, `'say "hi" it\'s'`},
		{`a\b`, `'a\\b'`},
		{"a\nb\tc\x01", `'a\nb\tc\x01'`},
		{"beschränkter", "'beschränkter'"},
		{"\u200b", `'\u200b'`},
	}
	for _, tt := range tests {
		if got := pyRepr(tt.in); got != tt.want {
			t.Errorf("pyRepr(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got := pyList(nil); got != "[]" {
		t.Errorf("pyList(nil) = %s", got)
	}
}

func TestDocstoreOnRealQuestion(t *testing.T) {
	qs, err := Questions()
	if err != nil {
		t.Fatal(err)
	}
	q := qs[0]
	d := NewLocalDocstore(q.Context)
	ctx := context.Background()
	obs, err := d.Search(ctx, "VIVA Media")
	if err != nil || !strings.HasPrefix(obs, `VIVA Media GmbH (until 2004 "VIVA Media AG") is a music television network originating from Germany. It was founded`) {
		t.Fatalf("Search(VIVA Media) = %q, %v", obs, err)
	}
	obs, _ = d.Lookup(ctx, "GmbH")
	if !strings.HasPrefix(obs, "(Result 1 / ") {
		t.Errorf("Lookup(GmbH) = %q", obs)
	}
	obs, _ = d.Search(ctx, "VIVA Media GmbH")
	if !strings.HasPrefix(obs, "Could not find VIVA Media GmbH. Similar: ['VIVA Media', ") {
		t.Errorf("Search(VIVA Media GmbH) = %q", obs)
	}
}

func FuzzLocalDocstore(f *testing.F) {
	f.Add("VIVA Media", "viva", "Cologne")
	f.Add("", "", "")
	f.Add("\xff", "[", "“x”")
	f.Add("vivendi s.a", ".", "'")
	f.Fuzz(func(t *testing.T, entity, keyword, entity2 string) {
		d := NewLocalDocstore(testParas())
		ctx := context.Background()
		for _, call := range []func() (string, error){
			func() (string, error) { return d.Lookup(ctx, keyword) },
			func() (string, error) { return d.Search(ctx, entity) },
			func() (string, error) { return d.Lookup(ctx, keyword) },
			func() (string, error) { return d.Lookup(ctx, keyword) },
			func() (string, error) { return d.Search(ctx, entity2) },
			func() (string, error) { return d.Lookup(ctx, entity) },
		} {
			obs, err := call()
			if err != nil || obs == "" {
				t.Fatalf("observation %q, error %v", obs, err)
			}
		}
	})
}
