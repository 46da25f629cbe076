package simulator

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// module is the import path prefix of this repository's packages.
const module = "github.com/reasonbench/reasonbench/"

// neutral are the task-side packages any responder may import: task types
// and the text handling real tools share (no data).
var neutral = map[string]bool{"tasks": true, "tasks/squad": true, "tasks/prose": true}

// alsoUses are the other tasks whose real code a responder's task is
// built on: the qa task's tools are HotpotQA's docstore tools
// (tasks/qa/tools.go), so its responder names them as they do.
// MATH-500's responder reads numeric expressions with the math answer
// parser (tasks/mathans: no data), its arithmetic skill.
var alsoUses = map[string]string{"qa": "tasks/hotpotqa", "math500": "tasks/mathans"}

// declaredKnowledge is what a responder may embed: knowledge it declares
// as a model's, with no test item in it. Crosswords knows the clue/answer
// pairs of the source's non-test puzzles (its package says how they were
// chosen; its test checks against the whole source that each pair occurs
// verbatim in a non-test puzzle and no answer found only in test puzzles
// is there).
var declaredKnowledge = map[string]string{"crosswords": "data/lexicon.json"}

// bannedImports would let a responder read something besides the prompt:
// files (a task's data), embedded files, the network.
var bannedImports = map[string]bool{"os": true, "embed": true, "io/fs": true, "net": true, "net/http": true}

// bannedNames are what a responder never touches, as a selector (q.Answer,
// hotpotqa.Questions) or a bare name (a composite literal's Gold:): gold
// answers and the annotations of which passages matter, and every way to
// look a question up in a task's data (its loaders, instances and rows,
// an instance's Data, the test hook that redacts HotpotQA).
var bannedNames = map[string]bool{
	"Answer": true, "Gold": true, "SupportingFacts": true, "SupportingParagraphs": true, "Context": true,
	"FindQuestion": true, "Questions": true, "loadQuestions": true, "Rows": true, "Instances": true,
	"Data": true, "Dataset": true, "NewTask": true, "NewFileTask": true, "SetQuestionsForTesting": true,
	// Mini Crosswords' solution grids, and any task's scorer (it reads gold).
	"Puzzles": true, "Solution": true, "Score": true, "ScoreRecord": true,
	// The code tasks' hidden tests and canonical solutions, and their loaders.
	"HiddenTest": true, "Canonical": true, "HumanEvalProblems": true, "MBPPProblems": true,
	"NewHumanEval": true, "NewMBPP": true, "ScoreRecords": true, "ScoreSample": true, "Program": true,
	"ReferenceProgram": true, "LoadFile": true,
}

// TestSimSourceReadsNoGold checks the simulator's source, every non-test
// file under simulator/ (this package, the responders and the reader they
// share): no file touches a gold answer or looks a question up in a task's
// data, none reads files or the network, and a responder simulator/NAME imports no task package but its own
// task's (tasks/NAME, for skill such as Game of 24's arithmetic) and the
// neutral ones. The responders read only the prompt.
func TestSimSourceReadsNoGold(t *testing.T) {
	fset := token.NewFileSet()
	files := map[string]int{} // per folder
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(p))
		files[dir]++
		file, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, im := range file.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			if ip == "embed" && declaredKnowledge[path.Base(dir)] != "" {
				checkEmbeds(t, p, file, declaredKnowledge[path.Base(dir)])
				continue
			}
			if bannedImports[ip] {
				t.Errorf("%s imports %s: a responder reads only the prompt", p, ip)
			}
			rel, ok := strings.CutPrefix(ip, module)
			if !ok || !strings.HasPrefix(rel, "tasks") || neutral[rel] {
				continue
			}
			// simulator.go assembles every responder; it imports none of the tasks.
			if dir == "." || rel != "tasks/"+path.Base(dir) && rel != alsoUses[dir] {
				t.Errorf("%s imports %s: a responder imports only its own task", p, rel)
			}
		}
		selected := map[*ast.Ident]bool{} // reported as selectors already
		ast.Inspect(file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.SelectorExpr:
				selected[x.Sel] = true
				if bannedNames[x.Sel.Name] {
					t.Errorf("%s: %s", fset.Position(x.Pos()), types.ExprString(x))
				}
			case *ast.Ident:
				if bannedNames[x.Name] && x.Obj == nil && !selected[x] {
					t.Errorf("%s: %s", fset.Position(x.Pos()), x.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Every responder simulator.New assembles, and the shared reader, was
	// scanned: a new responder cannot escape the check.
	for _, dir := range append([]string{".", "reading"}, responderDirs(t)...) {
		if files[dir] == 0 {
			t.Errorf("no source scanned in simulator/%s", dir)
		}
	}
}

// responderDirs are the simulator/X packages simulator.go imports.
func responderDirs(t *testing.T) []string {
	t.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "simulator.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, im := range file.Imports {
		ip, _ := strconv.Unquote(im.Path.Value)
		if rel, ok := strings.CutPrefix(ip, module+"simulator/"); ok {
			out = append(out, rel)
		}
	}
	if len(out) < 5 {
		t.Fatalf("simulator.go imports %d responders: %v", len(out), out)
	}
	return out
}

// checkEmbeds allows a file to embed only its declared knowledge.
func checkEmbeds(t *testing.T, p string, file *ast.File, allowed string) {
	t.Helper()
	n := 0
	for _, cg := range file.Comments {
		for _, c := range cg.List {
			rest, ok := strings.CutPrefix(c.Text, "//go:embed ")
			if !ok {
				continue
			}
			n++
			if strings.TrimSpace(rest) != allowed {
				t.Errorf("%s embeds %s: a responder may embed only its declared knowledge %s", p, rest, allowed)
			}
		}
	}
	if n == 0 {
		t.Errorf("%s imports embed but embeds nothing", p)
	}
}
