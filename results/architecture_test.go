package results

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestArchitectureImports checks docs/ARCHITECTURE.md's import column
// against `go list`: for each row naming one package folder, the project
// packages the cell lists (text in parentheses is a note; a trailing /*
// stands for the packages under a folder) are exactly the ones the
// package's non-test files import; no line is over maxLine characters, so
// table rows stay readable.
func TestArchitectureImports(t *testing.T) {
	const maxLine = 400
	const mod = "github.com/reasonbench/reasonbench/"
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", mod+"...").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		imports[pkg] = []string{}
		for _, imp := range f[1:] {
			if p, ok := strings.CutPrefix(imp, mod); ok {
				imports[pkg] = append(imports[pkg], p)
			}
		}
	}
	doc, err := os.ReadFile("../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([a-z0-9/]+)/` \\|")
	notes := regexp.MustCompile(`\([^)]*\)`)
	checked := 0
	for n, line := range strings.Split(string(doc), "\n") {
		if c := utf8.RuneCountInString(line); c > maxLine {
			t.Errorf("ARCHITECTURE.md:%d is %d characters (at most %d): shorten the cell and move the detail into prose below the table", n+1, c, maxLine)
		}
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		pkg := m[1]
		actual, ok := imports[pkg]
		if !ok {
			t.Errorf("ARCHITECTURE.md names folder %s/, which is no package", pkg)
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimSpace(line), "|"), "|")
		if strings.Contains(cells[len(cells)-1], "tests only") {
			continue // a folder whose Go files are tests (python/)
		}
		cell := notes.ReplaceAllString(cells[len(cells)-1], "")
		var listed []string
		for _, tok := range strings.Split(cell, ",") {
			tok = strings.Trim(strings.TrimSpace(tok), "`")
			if prefix, ok := strings.CutSuffix(tok, "/*"); ok {
				for _, a := range actual {
					if strings.HasPrefix(a, prefix+"/") {
						listed = append(listed, a)
					}
				}
				continue
			}
			if _, known := imports[tok]; known {
				listed = append(listed, tok)
			}
		}
		slices.Sort(listed)
		listed = slices.Compact(listed)
		want := slices.Clone(actual)
		slices.Sort(want)
		if !slices.Equal(listed, want) {
			t.Errorf("ARCHITECTURE.md: %s/ imports %s; the table says %s", pkg, strings.Join(want, ", "), strings.Join(listed, ", "))
		}
		checked++
	}
	if checked < 30 {
		t.Fatalf("checked only %d rows of docs/ARCHITECTURE.md's package table", checked)
	}
}
