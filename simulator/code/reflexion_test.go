package code

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
)

// The responder recognises reflexion_code's templates by their markers:
// every bundled system instruction of both versions in both code tasks
// starts with its call's marker.
func TestReflexionMarkersInTemplates(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{"mbpp", "humaneval"} {
		for _, v := range []string{"reflexion_code_", "reflexion_code_current_"} {
			for name, marker := range map[string]string{"tests_system": MarkerRCTests, "simple_system": MarkerRCCode,
				"reflexion_system": MarkerRCCode, "reflect_system": MarkerRCReflect} {
				text, ok := lib.Text(task + "/" + v + name)
				if !ok || !strings.HasPrefix(text, marker) {
					t.Errorf("%s/%s%s does not start with %q", task, v, name, marker)
				}
				whole := strings.Contains(text, markerWhole)
				if name == "simple_system" || name == "reflexion_system" {
					if whole != (v == "reflexion_code_current_") {
						t.Errorf("%s/%s%s: asks for whole functions: %v", task, v, name, whole)
					}
				}
			}
		}
	}
}

const rcPrompt = "from typing import List\n\ndef pick(xs: List[int], i: int) -> int:\n    \"\"\" Element i.\n    >>> pick([4, 5], 1)\n    5\n    >>> pick([7], 0)\n    7\n    \"\"\"\n"

func respond(t *testing.T, params sim.Params, msgs ...llm.Message) string {
	t.Helper()
	c, ok := ReflexionResponder{}.Respond(sim.Prompt{Messages: msgs}, rand.New(rand.NewPCG(1, 2)), params)
	if !ok {
		t.Fatalf("not answered: %q", msgs)
	}
	return c.Content
}

func TestReflexionResponder(t *testing.T) {
	sys := func(s string) llm.Message { return llm.Message{Role: "system", Content: s} }
	user := func(s string) llm.Message { return llm.Message{Role: "user", Content: s} }
	tests := respond(t, sim.Params{}, sys(MarkerRCTests+" ..."), user("Example...\n\nfunc signature:\n"+rcPrompt+"\nunit tests:"))
	if tests != "assert pick([4, 5], 1) == 5\nassert pick([7], 0) == 7\n" {
		t.Errorf("tests %q", tests)
	}
	body := respond(t, sim.Params{}, sys(MarkerRCCode+" body"), user(rcPrompt))
	if body != "    if [xs, i] == [[4, 5], 1]:\n        return 5\n    if [xs, i] == [[7], 0]:\n        return 7\n    return 0" {
		t.Errorf("body %q", body)
	}
	// A failing assert the feedback shows joins the table; the examples'
	// functions in earlier turns do not.
	fb := "Tested passed:\n\nTests failed:\nassert pick([1, 2, 3], 2) == 3 # output: 0\nassert other(1) == 2 # output: 0"
	impl := respond(t, sim.Params{}, sys(MarkerRCCode+" ... "+markerWhole), user("[unit test results from previous impl]:\n"+fb), user("[improved impl]:\n"+rcPrompt))
	if !strings.HasPrefix(impl, "```python\nfrom typing import List\ndef pick(xs: List[int], i: int) -> int:\n") ||
		!strings.Contains(impl, "if [xs, i] == [[1, 2, 3], 2]:\n        return 3") || strings.Contains(impl, "other") {
		t.Errorf("improved %q", impl)
	}
	refl := respond(t, sim.Params{}, sys(MarkerRCReflect), user("def pick...\n\n"+fb+"\n\nExplanation:"))
	if !strings.Contains(refl, "For ([1, 2, 3], 2) the implementation returns 0, but the test expects 3.") {
		t.Errorf("reflection %q", refl)
	}
	// Slip 1 overlooks every case.
	if b := respond(t, sim.Params{Slip: 1}, sys(MarkerRCCode), user(rcPrompt)); b != "    return 0" {
		t.Errorf("slip 1: %q", b)
	}
	if _, ok := (ReflexionResponder{}).Respond(sim.Prompt{Messages: []llm.Message{user(rcPrompt)}}, rand.New(rand.NewPCG(1, 2)), sim.Params{}); ok {
		t.Error("answered a prompt without a marker")
	}
	// Hostile prompts get an answer, never a panic.
	for _, s := range []string{"", "def (", "def f(:\n", strings.Repeat(">>> f(", 1000)} {
		respond(t, sim.Params{Slip: 0.5}, sys(MarkerRCCode), user(s))
		respond(t, sim.Params{}, sys(MarkerRCTests), user(s))
		respond(t, sim.Params{}, sys(MarkerRCReflect), user("Tests failed:\n"+s))
	}
}
