package strategies

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestEveryStrategyDeclaresItsKit checks each registry line declares what
// the engine and the read side need: constructor, doc, sharing, templates,
// a probe, and a reading built from the known shapes.
func TestEveryStrategyDeclaresItsKit(t *testing.T) {
	t.Parallel()
	draws := []Drawing{"", DrawTrajectory, DrawTrials, DrawIterations, DrawTranscript, DrawVotes}
	byK := []SampleReading{"", SamplesVote, SamplesScored}
	seen := map[string]bool{}
	for _, s := range Registry() {
		switch {
		case s.Name == "" || seen[s.Name]:
			t.Errorf("strategy %q: empty or repeated name", s.Name)
		case s.New == nil || s.Doc == "" || s.Shares == "":
			t.Errorf("strategy %s: declare New, Doc and Shares", s.Name)
		case s.Templates == nil:
			t.Errorf("strategy %s: declare Templates (fixedTemplates() for none)", s.Name)
		case s.Probe.Task == "" || s.Probe.Range == "":
			t.Errorf("strategy %s: declare a Probe", s.Name)
		case !slices.Contains(draws, s.Read.Draw):
			t.Errorf("strategy %s: Read.Draw %q is no shape the viewer draws", s.Name, s.Read.Draw)
		case !slices.Contains(byK, s.Read.ByK):
			t.Errorf("strategy %s: Read.ByK %q is no reading --by k knows", s.Name, s.Read.ByK)
		}
		seen[s.Name] = true
		if got := ReadingOf(s.Name); got != s.Read {
			t.Errorf("ReadingOf(%s) = %+v, want %+v", s.Name, got, s.Read)
		}
	}
	if got := ReadingOf("no such strategy"); got != (Reading{}) {
		t.Errorf("ReadingOf(unknown) = %+v, want the zero Reading", got)
	}
}

// paramRead matches a parameter read by name: v.Int("k"), values.String("x").
var paramRead = regexp.MustCompile(`\.(Int|Float|String|Bool|Temperature)\("([a-z0-9_]+)"\)`)

// TestParamReadsAreDeclared makes a misspelt parameter name fail here
// rather than panic in a run: every name a non-test file of this package
// reads through Values' accessors must be declared by some strategy.
func TestParamReadsAreDeclared(t *testing.T) {
	t.Parallel()
	declared := map[string]bool{}
	for _, s := range Registry() {
		for _, p := range s.Params {
			declared[p.Name] = true
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	reads := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range paramRead.FindAllSubmatchIndex(src, -1) {
			reads++
			name := string(src[m[4]:m[5]])
			if !declared[name] {
				t.Errorf("%s:%d reads parameter %q, which no strategy declares", f, 1+strings.Count(string(src[:m[0]]), "\n"), name)
			}
		}
	}
	if reads < 50 {
		t.Fatalf("found only %d parameter reads: is the pattern stale?", reads)
	}
}

// TestDefaultsConstruct builds every strategy at its defaults and at each
// allowed value of each string parameter: a constructor reading an
// undeclared name fails here with its name (Values' accessors say which).
func TestDefaultsConstruct(t *testing.T) {
	t.Parallel()
	for _, s := range Registry() {
		variants := []map[string]any{s.Probe.Params}
		for _, p := range s.Params {
			for _, a := range p.Allowed {
				variants = append(variants, map[string]any{p.Name: a})
			}
		}
		for _, raw := range variants {
			v, err := Resolve(s.Params, raw)
			if err != nil {
				continue // a value other parameters' defaults refuse
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("strategy %s with %v: %v", s.Name, raw, r)
					}
				}()
				if _, err := s.New(v); err != nil {
					return
				}
				s.Templates(v)
			}()
		}
	}
}
