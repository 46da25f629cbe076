package results

import (
	"go/ast"
	"go/parser"
	"go/token"
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
	for _, f := range readSideFiles(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range strategies.Registry() {
			lit := strconv.Quote(s.Name)
			if i := strings.Index(string(src), lit); i >= 0 {
				line := 1 + strings.Count(string(src[:i]), "\n")
				t.Errorf("%s:%d names strategy %s: read it through reading.Of (its registry line's Read)", f, line, lit)
			}
		}
	}
}

// readSideFiles are the non-test Go files of results/ and view/.
func readSideFiles(t *testing.T) []string {
	t.Helper()
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
	return files
}

// TestReadSideDecodesNoDetail keeps results/ and view/ from decoding an
// item's detail themselves (a copy of a strategy's detail struct): no
// json.Unmarshal of a value named detail or Detail, anywhere (tool calls
// are read from the items' events).
func TestReadSideDecodesNoDetail(t *testing.T) {
	fset := token.NewFileSet()
	calls := 0
	for _, f := range readSideFiles(t) {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Unmarshal" {
					return true
				}
				calls++
				var name string
				switch a := call.Args[0].(type) {
				case *ast.Ident:
					name = a.Name
				case *ast.SelectorExpr:
					name = a.Sel.Name
				}
				if strings.EqualFold(name, "detail") {
					t.Errorf("%s: %s decodes an item's detail: read it through its strategy's reader (reading.Of)", fset.Position(call.Pos()), fn.Name.Name)
				}
				return true
			})
		}
	}
	if calls == 0 {
		t.Fatal("found no json.Unmarshal call at all: is the scan stale?")
	}
}
