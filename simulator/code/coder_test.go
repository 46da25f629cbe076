package code

import (
	"context"
	"encoding/json"
	"github.com/reasonbench/reasonbench/sandbox/sandboxtest"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/sandbox"
	codetask "github.com/reasonbench/reasonbench/tasks/code"
)

const addPrompt = `from typing import List


def add_all(xs: List[int], k: int = 0) -> int:
    """ Add k to the sum of xs.
    >>> add_all([1, 2], 1)
    4
    >>> add_all([], 0)
    0
    add_all([5], 2) == 7
    add_all([1], k=3) == 4
    """
`

func TestTemplatesCarryMarkers(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{"humaneval", "mbpp"} {
		for _, name := range []string{"io", "cot"} {
			text, ok := lib.Text(task + "/" + name)
			if !ok {
				t.Fatalf("no template %s/%s", task, name)
			}
			if !strings.Contains(text, markerTask) || strings.Contains(text, markerCoT) != (name == "cot") {
				t.Errorf("%s/%s lacks its markers", task, name)
			}
		}
	}
}

func TestParseFunction(t *testing.T) {
	f, ok := ParseFunction("Write the Python function below in full.\n\n" + addPrompt)
	if !ok {
		t.Fatal("no function found")
	}
	if f.Name != "add_all" || strings.Join(f.Params, ",") != "xs,k" || f.Return != "int" || f.Star ||
		len(f.Imports) != 1 || f.DefLine != "def add_all(xs: List[int], k: int = 0) -> int:" {
		t.Errorf("parsed %+v", f)
	}
	want := []Case{{"[1, 2], 1", "4"}, {"[], 0", "0"}, {"[5], 2", "7"}} // the keyword call is left out
	if len(f.Examples) != len(want) {
		t.Fatalf("examples %v, want %v", f.Examples, want)
	}
	for i, c := range want {
		if f.Examples[i] != c {
			t.Errorf("example %d: %v, want %v", i, f.Examples[i], c)
		}
	}
	// The entry point is the last def: helpers the prompt gives come first.
	f, _ = ParseFunction("def helper(s: str) -> bool:\n    return s == s[::-1]\n\ndef make(s: str) -> str:\n    \"\"\" >>> make('ab')\n    'aba'\n    \"\"\"\n")
	if f.Name != "make" || len(f.Examples) != 1 || f.Examples[0].Result != "'aba'" {
		t.Errorf("two defs: %+v", f)
	}
	for ret, zero := range map[string]string{"int": "0", "List[int]": "[]", "Optional[str]": "None", "Tuple[int, int]": "()",
		"": "None", "Dict[str, int]": "{}", "bool": "False", "str": "''", "float": "0.0", "Foo": "None"} {
		if got := Zero(ret); got != zero {
			t.Errorf("Zero(%q) = %s, want %s", ret, got, zero)
		}
	}
	if got := WriteTests(addPrompt); len(got) != 3 || got[0] != "assert add_all([1, 2], 1) == 4" {
		t.Errorf("WriteTests: %q", got)
	}
	got := CasesFromFeedback("Tested passed:\nassert add_all([], 0) == 0\n\nTests failed:\nassert add_all([3], 3) == 6 # output: 0\nassert other(1) == 2 # output: 1", "add_all")
	if len(got) != 2 || got[1] != (Case{"[3], 3", "6"}) {
		t.Errorf("CasesFromFeedback: %v", got)
	}
}

// TestNoise: with Slip 1 every example's result is misread as the zero
// value and the def line loses its colon at rate Slip/5; with Skill 1 and
// Slip 0 every example is in the table.
func TestNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	clean := WriteFunction(addPrompt, []Case{{"[9], 0", "9"}}, rng, sim.Params{Skill: 1})
	for _, want := range []string{"if _args == ([1, 2], 1,):\n        return 4", "if _args == ([5], 2,):\n        return 7",
		"if _args == ([9], 0,):\n        return 9", "    return 0\n", "from typing import List\n", "-> int:\n"} {
		if !strings.Contains(clean, want) {
			t.Errorf("clean program lacks %q:\n%s", want, clean)
		}
	}
	slips := 0
	const n = 2000
	for range n {
		prog := WriteFunction(addPrompt, nil, rng, sim.Params{Skill: 1, Slip: 1})
		if strings.Contains(prog, "return 4") || strings.Contains(prog, "return 7") {
			t.Fatalf("a misread example kept its result:\n%s", prog)
		}
		if strings.Contains(prog, "-> int\n") {
			slips++
		}
	}
	if slips < n/5-80 || slips > n/5+80 { // Binomial(2000, 0.2): sd 18
		t.Errorf("%d syntax slips in %d at Slip 1, want about %d", slips, n, n/5)
	}
	dropped := 0
	for range n {
		prog := WriteFunction(addPrompt, nil, rng, sim.Params{Skill: 0})
		dropped += 3 - strings.Count(prog, "if _args")
	}
	if want := 3 * n / 4; dropped < want-120 || dropped > want+120 { // 3n trials at 1/4: sd 34
		t.Errorf("%d of %d examples overlooked at Skill 0, want about %d", dropped, 3*n, want)
	}
}

func TestRespond(t *testing.T) {
	lib, _ := prompts.Bundled()
	for _, name := range []string{"io", "cot"} {
		text, err := lib.Render("humaneval/"+name, struct{ Input string }{addPrompt})
		if err != nil {
			t.Fatal(err)
		}
		c, ok := Responder{}.Respond(sim.Prompt{Messages: []llm.Message{{Role: "user", Content: text}}}, rand.New(rand.NewPCG(1, 1)), sim.Params{Skill: 1})
		if !ok {
			t.Fatalf("%s: not recognised", name)
		}
		code := codetask.ExtractCode(c.Content, "add_all")
		if !strings.HasPrefix(code, "from typing import List\n") || !codetask.Defines(code, "add_all") {
			t.Errorf("%s: answer %q", name, c.Content)
		}
		if strings.Contains(c.Content, "For add_all([1, 2], 1) the answer is 4.") != (name == "cot") {
			t.Errorf("%s: reasoning %q", name, c.Content)
		}
	}
	if _, ok := (Responder{}).Respond(sim.Prompt{Messages: []llm.Message{{Role: "user", Content: "Input: 4 4 6 8"}}}, rand.New(rand.NewPCG(1, 1)), sim.Params{}); ok {
		t.Error("answered another task's prompt")
	}
}

func FuzzParseFunction(f *testing.F) {
	f.Add(addPrompt)
	f.Add("def f(*a, **k):\n  '''>>> f(1\n  '''")
	f.Add("def f(x) -> List[:\n>>> f(')')\n)")
	ident := regexp.MustCompile(`^[A-Za-z_]\w*$`)
	f.Fuzz(func(t *testing.T, s string) {
		fn, ok := ParseFunction(s)
		tests := WriteTests(s)
		prog := WriteFunction(s, CasesFromFeedback(s, fn.Name), rand.New(rand.NewPCG(1, 1)), sim.DefaultParams())
		if !ok {
			if tests != nil || prog != "pass\n" {
				t.Fatalf("no function, yet tests %q, program %q", tests, prog)
			}
			return
		}
		if !ident.MatchString(fn.Name) || !strings.Contains(fn.DefLine, "def "+fn.Name) || !strings.Contains(prog, fn.Name) {
			t.Fatalf("function %+v, program %q", fn, prog)
		}
		for _, c := range fn.Examples {
			if !balanced(c.Args) || !balanced(c.Result) || strings.Contains(c.Result, "\n") {
				t.Fatalf("example %+v", c)
			}
		}
		if len(tests) != len(fn.Examples) {
			t.Fatalf("%d tests for %d examples", len(tests), len(fn.Examples))
		}
	})
}

// TestCoderReproducesItsExamples runs, in the sandbox, the clean coder's
// program for every HumanEval prompt against the asserts it wrote from the
// docstring (it must pass them: its table holds them), and reports how
// many hidden tests those programs pass (the simulated coder's ceiling on
// HumanEval; low, and not a target).
func TestCoderReproducesItsExamples(t *testing.T) {
	r := sandboxtest.Runner(t)
	ps, err := codetask.HumanEvalProblems()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	var own, withTests []string
	withExamples := 0
	for _, p := range ps {
		prog := WriteFunction(p.Prompt, nil, rng, sim.Params{Skill: 1})
		tests := WriteTests(p.Prompt)
		if len(tests) > 0 {
			withExamples++
		}
		own = append(own, prog+"\n"+strings.Join(tests, "\n")+"\n")
		withTests = append(withTests, codetask.Program(p, prog))
	}
	// One sandbox run per set: each program in its own namespace.
	const driver = `import json
progs = json.load(open("progs.json"))
for i, p in enumerate(progs):
    try:
        exec(p, {})
        print(i, "pass")
    except BaseException as e:
        print(i, "fail", type(e).__name__)
`
	run := func(progs []string) (passed []bool, out string) {
		b, _ := json.Marshal(progs)
		res, err := r.Run(context.Background(), sandbox.Program{Source: driver, Files: map[string]string{"progs.json": string(b)}})
		if err != nil || !res.Passed() {
			t.Fatalf("driver: %v %s %s", err, res.Reason(), res.Stderr)
		}
		passed = make([]bool, len(progs))
		for _, l := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
			f := strings.Fields(l)
			if i, err := strconv.Atoi(f[0]); err == nil && len(f) > 1 && f[1] == "pass" {
				passed[i] = true
			}
		}
		return passed, res.Stdout
	}
	ownPass, out := run(own)
	for i, ok := range ownPass {
		if !ok {
			t.Errorf("%s: the clean coder fails its own docstring asserts:\n%s\n%s", ps[i].ID, own[i], out)
		}
	}
	hidden, _ := run(withTests)
	n := 0
	for _, ok := range hidden {
		if ok {
			n++
		}
	}
	t.Logf("clean simulated coder (skill 1, slip 0): %d of %d HumanEval prompts show examples; %d of %d programs pass the hidden tests", withExamples, len(ps), n, len(ps))
}
