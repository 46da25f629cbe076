package results

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/strategies"
)

// TestReadSideNamesNoStrategy keeps results/ and view/ reading strategies
// through their declared Reading: no non-test file there may spell a
// strategy's name as a string literal (a `run.Strategy == "bon"` switch).
func TestReadSideNamesNoStrategy(t *testing.T) {
	var files []string
	for _, dir := range []string{".", "../view"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			if !strings.HasSuffix(f, "_test.go") {
				files = append(files, f)
			}
		}
	}
	if len(files) < 10 {
		t.Fatalf("found only %d source files in results/ and view/", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range strategies.Registry() {
			lit := strconv.Quote(s.Name)
			if i := strings.Index(string(src), lit); i >= 0 {
				line := 1 + strings.Count(string(src[:i]), "\n")
				t.Errorf("%s:%d names strategy %s: read it through strategies.ReadingOf (its registry line's Read)", f, line, lit)
			}
		}
	}
}
