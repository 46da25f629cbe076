package strategies

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// TestEveryStrategyDeclaresItsKit checks each registry line declares what
// the engine and the read side need: constructor, doc, sharing, templates
// and a probe; reading has its line of readers.
func TestEveryStrategyDeclaresItsKit(t *testing.T) {
	t.Parallel()
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
		}
		seen[s.Name] = true
	}
	// Every strategy has its line in reading's table of readers (the zero
	// Reading for none) and every line there is a strategy's.
	if got, want := reading.Strategies(), slices.Sorted(maps.Keys(seen)); !slices.Equal(got, want) {
		t.Errorf("reading knows the strategies %q, the registry %q", got, want)
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
			v, err := param.Resolve(s.Params, raw)
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
