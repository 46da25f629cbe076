package game24

import (
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks"
)

func TestReferenceValue(t *testing.T) {
	task := NewTask()
	inst := tasks.Instance{Input: "4 5 6 10"}
	step := "4 + 5 = 9 (left: 6 9 10)\n"
	for _, c := range []struct {
		name    string
		y       string
		outputs []string
		want    float64
	}{
		// Summed name by name (impossible, likely, sure), not answer by
		// answer: answer order would give 40.001000000000005 here.
		{"order", step, []string{"a\nimpossible", "b\nsure", "c\nsure"}, 40.001},
		{"likely", step, []string{"likely", "x\nlikely", "likely"}, 3},
		{"mixed", step, []string{"x\nsure", "x\nimpossible", "x\nimpossible"}, 20.002},
		// Only an exact last line counts.
		{"exact last line", step, []string{"x\nSure", "x\nsure ", "sure\nx", ""}, 0},
		// Four lines without "answer" are worth 0 whatever the model said.
		{"no answer", "a (left: 1 2 3)\nb (left: 1 2)\nc (left: 24)\n(1 + 2) * 8 = 24\n", []string{"sure", "sure", "sure"}, 0},
		{"answer", "a (left: 1 2 3)\nb (left: 1 2)\nc (left: 24)\nAnswer: (1 + 2) * 8 = 24\n", []string{"sure", "sure", "sure"}, 60},
	} {
		if got := task.ReferenceValue(inst, c.y, c.outputs); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestReferencePrompts(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	task := NewTask()
	inst := tasks.Instance{Input: "4 5 6 10"}
	cot, _ := lib.Render("game24/cot", struct{ Input string }{"4 5 6 10"})
	final := "4 * 5 = 20 (left: 6 10 20)\n10 - 6 = 4 (left: 4 20)\n20 + 4 = 24 (left: 24)\n"
	for _, c := range []struct {
		name, y, template, input string
		value                    bool
		want                     string
	}{
		{"root", "", "game24/propose", "4 5 6 10", false, ""},
		{"step", "4 * 5 = 20 (left: 6 10 20)\n", "game24/propose", "6 10 20", false, ""},
		{"empty line keeps the parent's numbers", "4 * 5 = 20 (left: 6 10 20)\n\n", "game24/propose", "6 10 20", false, ""},
		{"final: no newline after Steps:", final, "", "", false, cot + "Steps:" + final},
		{"value", "4 * 5 = 20 (left: 6 10 20)\n", "game24/value", "6 10 20", true, ""},
	} {
		var got string
		if c.value {
			got, err = task.ReferenceValuePrompt(lib, inst, c.y)
		} else {
			got, err = task.ReferenceProposePrompt(lib, inst, c.y)
		}
		if err != nil {
			t.Fatal(err)
		}
		want := c.want
		if want == "" {
			want, _ = lib.Render(c.template, struct{ Input string }{c.input})
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", c.name, got, want)
		}
	}
	got, _ := task.ReferenceValuePrompt(lib, inst, final+"Answer: (10 - 6) + 20 = 24 answer: x\n")
	want, _ := lib.Render("game24/value_last", struct{ Input, Answer string }{"4 5 6 10", "(10 - 6) + 20 = 24 x"})
	if got != want || !strings.Contains(got, "Answer: (10 - 6) + 20 = 24 x") {
		t.Errorf("value_last: got %q, want %q", got, want)
	}
}
