package prompts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPyPositional(t *testing.T) {
	for _, c := range []struct {
		in, want, err string
	}{
		{"a {} b", "a {{.X}} b", ""},
		{`box \boxed{{answer}} {}`, `box \boxed{answer} {{.X}}`, ""},
		{"{{{}}}", `{{"{"}}{{.X}}}`, ""},
		{"no field", "", "0 {} fields"},
		{"{} {}", "", "more than 1"},
		{"{name}", "", "other than {}"},
	} {
		got, err := pyPositional(c.in, "{{.X}}")
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("pyPositional(%q) = %q, %v; want error %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("pyPositional(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// importDebate on a file shaped as gen_gsm.py (our wording): rendering the
// templates gives what the script's str.format calls give.
func TestImportDebate(t *testing.T) {
	src := `import json
def construct_message(agents, question, idx):
    if len(agents) == 0:
        return {"role": "user", "content": "Look again, answer as \\boxed{{answer}}."}
    prefix_string = "Answers of the other agents: "
    for agent in agents:
        prefix_string = prefix_string + "\n\n Agent said: ` + "```{}```" + `".format(agent[idx]["content"])
    return {"role": "user", "content": prefix_string + """\n\n Now answer {} again.""".format(question)}
ctx = [{"role": "user", "content": """Solve this math problem: {} then box it. """.format(q)}]
json.dump(x, open("gsm_{}_{}.json".format(a, b), "w"))
`
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "gsm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gsm", "gen_gsm.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	texts, err := ImportPack("debate", dir)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := WriteFolder(out, texts); err != nil {
		t.Fatal(err)
	}
	lib, err := WithOverrides(out)
	if err != nil {
		t.Fatal(err)
	}
	type data struct {
		Input  string
		Others []string
	}
	d := data{Input: "Q {x}", Others: []string{"A1", "A2 {{y}}"}}
	for name, want := range map[string]string{
		"gsm8k/cot":          "Solve this math problem: Q {x} then box it. ",
		"gsm8k/debate":       "Answers of the other agents: \n\n Agent said: ```A1```\n\n Agent said: ```A2 {{y}}```\n\n Now answer Q {x} again.",
		"gsm8k/debate_alone": `Look again, answer as \boxed{{answer}}.`, // not formatted: the braces stay doubled
	} {
		got, err := lib.Render(name, d)
		if err != nil || got != want {
			t.Errorf("%s = %q, %v\nwant %q", name, got, err, want)
		}
	}
	if _, ok := texts["arithmetic/cot"]; ok {
		t.Error("arithmetic templates from a checkout without math/gen_math.py")
	}

	// math/gen_math.py, shaped as the reference's (our wording).
	mathSrc := `def f():
    print("retrying after an error, once more")
    return {"role": "user", "content": "Check it again and restate your answer at the end."}
prefix_string = "Opinions of the other agents follow: "
response = "\n\n Agent said: ` + "```{}```" + `".format(x)
prefix_string = prefix_string + "\n\n Weigh them, then give an updated answer {{at}} the end.".format(question)
answer = parse_answer("A test sentence that ends in the number 5.")
c = """Compute {}+{}*{}+{}-{}*{} and state the answer last.""".format(a, b, c, d, e, f)
q = "We would like the value of {}+{}*{}+{}-{}*{}?".format(a, b, c, d, e, f)
`
	if err := os.MkdirAll(filepath.Join(dir, "math"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "math", "gen_math.py"), []byte(mathSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	texts, err = ImportPack("debate", dir)
	if err != nil {
		t.Fatal(err)
	}
	out = t.TempDir()
	if err := WriteFolder(out, texts); err != nil {
		t.Fatal(err)
	}
	if lib, err = WithOverrides(out); err != nil {
		t.Fatal(err)
	}
	d = data{Input: "1+2*3+4-5*6", Others: []string{"A1"}}
	for name, want := range map[string]string{
		"arithmetic/cot":          "Compute 1+2*3+4-5*6 and state the answer last.",
		"arithmetic/debate":       "Opinions of the other agents follow: \n\n Agent said: ```A1```\n\n Weigh them, then give an updated answer {at} the end.",
		"arithmetic/debate_alone": "Check it again and restate your answer at the end.",
	} {
		got, err := lib.Render(name, d)
		if err != nil || got != want {
			t.Errorf("%s = %q, %v\nwant %q", name, got, err, want)
		}
	}

	// A file that is not gen_gsm.py is refused with the reason.
	if err := os.WriteFile(filepath.Join(dir, "gsm", "gen_gsm.py"), []byte(`x = "only one prose literal here"`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ImportPack("debate", dir); err == nil || !strings.Contains(err.Error(), "1 prose string literals") {
		t.Errorf("a file with one prose literal: %v", err)
	}
	if _, err := ImportPack("debate", t.TempDir()); err == nil || !strings.Contains(err.Error(), "llm_multiagent_debate") {
		t.Errorf("no checkout: %v", err)
	}
}
