package prompts

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPyFString(t *testing.T) {
	for _, c := range []struct {
		in     string
		lits   []string
		fields []string
		err    string
	}{
		{"a {x} b", []string{"a ", " b"}, []string{"x"}, ""},
		{"{{lit}} {f(a['}'], {1: 2})}{ y }", []string{"{lit} ", "", ""}, []string{"f(a['}'], {1: 2})", "y"}, ""},
		{`{m["role"]}: {i+1}`, []string{"", ": ", ""}, []string{`m["role"]`, "i+1"}, ""},
		{"{a != b}", []string{"", ""}, []string{"a != b"}, ""},
		{"no fields }}", []string{"no fields }"}, nil, ""},
		{"{x!r}", nil, nil, "conversion or format spec"},
		{"{x:>10}", nil, nil, "conversion or format spec"},
		{"{x", nil, nil, "unclosed"},
		{"{x['a}", nil, nil, "unterminated string"},
		{"a } b", nil, nil, "single '}'"},
	} {
		lits, fields, err := pyFString(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("pyFString(%q): %v, want error %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(lits, c.lits) || !slices.Equal(fields, c.fields) {
			t.Errorf("pyFString(%q) = %q, %q, %v; want %q, %q", c.in, lits, fields, err, c.lits, c.fields)
		}
	}
}

// tauCheckout is a checkout shaped as tau-bench's, in our own wording:
// only the statements the importer reads.
var tauCheckout = map[string]string{
	tauUserFile: `from litellm import completion


class LLMUserSimulationEnv:
    def build_system_prompt(self, instruction):
        instruction_display = (
            ("\n\nGOAL: " + instruction + "\n")
            if instruction is not None
            else ""
        )
        return f"""Play a shopper {{calm}}.{instruction_display}
Say '###STOP###' when done."""

    def reset(self, instruction=None):
        self.messages = [
            {"role": "system", "content": self.build_system_prompt(instruction=instruction)},
            {"role": "user", "content": "Hey there!"},
        ]


class ReactUserSimulationEnv(LLMUserSimulationEnv):
    def build_system_prompt(self, instruction):
        instruction_display = ("\n\nGOAL: " + instruction + "\n") if instruction is not None else ""
        return f"""Think, then talk.{instruction_display}
Thought:
User Response:"""

    def reset(self, instruction=None):
        self.messages = [{"role": "user", "content": "Hey there!"}]


def map_role_label(role):
    return role


def verify(model, provider, response, messages):
    transcript = "\n".join(
        [
            f"{map_role_label(message['role'])}: {message['content']}"
            for message in messages
        ]
    )
    prompt = f"""Judge {{it}}:
{transcript}
=> {response}
Classification:"""
    return prompt


def reflect(model, provider, response, messages):
    transcript = "\n".join([f"{map_role_label(message['role'])}: {message['content']}" for message in messages])
    prompt = f"""Fix it:
{transcript}
{response}
Response:"""
    return prompt
`,
	tauTypesFile: "RESPOND_ACTION_NAME = \"say\"\nRESPOND_ACTION_FIELD_NAME = 'text'\n",
	tauReActFile: `import json
from tau_bench.types import RESPOND_ACTION_NAME, RESPOND_ACTION_FIELD_NAME


class ChatReActAgent:
    def __init__(self, tools_info, wiki, use_reasoning=True):
        instruction = REACT_INSTRUCTION if use_reasoning else ACT_INSTRUCTION
        self.prompt = (
            wiki + "\n## Tools\n" + json.dumps(tools_info) + instruction
        )


REACT_INSTRUCTION = f"""
Think and act: {{"name": {RESPOND_ACTION_NAME}, "arguments": {{"{RESPOND_ACTION_FIELD_NAME}": "hi"}}}}
"""


ACT_INSTRUCTION = f"""
Act {{{{double}}}}: {RESPOND_ACTION_NAME}
"""
`,
	tauFewShotFile: `class FewShotToolCallingAgent:
    def solve(self, shown):
        few_shots = "\n\n".join([f"Example {i+1}:\n{display}" for i, display in enumerate(shown)])
        return [{"role": "system", "content": f"{self.wiki}\n---\n{few_shots}"}]
`,
	tauToolCallFile: `class ToolCallingAgent:
    def solve(self):
        return [{"role": "system", "content": self.wiki}]
`,
}

func writeCheckout(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// importedLibrary imports the tau-bench pack from src into a folder and
// returns the library with it.
func importedLibrary(t *testing.T, src string) (*Library, map[string]string) {
	t.Helper()
	texts, err := ImportPack("tau-bench", src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteFolder(dir, texts); err != nil {
		t.Fatal(err)
	}
	lib, err := WithOverrides(dir)
	if err != nil {
		t.Fatal(err)
	}
	return lib, texts
}

type (
	tauUserData  struct{ Instruction string }
	tauCheckData struct{ Transcript, Response string }
	tauAgentData struct{ Policy, ToolsJSON, Examples string }
)

// The importer on a checkout-shaped folder: the renderings are what the
// Python code renders, braces and all.
func TestImportTau(t *testing.T) {
	lib, texts := importedLibrary(t, writeCheckout(t, tauCheckout))
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range texts {
			if !yield(n) {
				return
			}
		}
	})
	want := []string{"tau/react_act", "tau/react_react", "tau/react_tools", "tau/user_llm", "tau/user_opening", "tau/user_react", "tau/user_reflect", "tau/user_verify"}
	if !slices.Equal(names, want) {
		t.Fatalf("imported %q, want %q (react_xml has no reference prompt)", names, want)
	}
	agent := tauAgentData{Policy: "P {{.x}}", ToolsJSON: `[{"a": {"b": 1}}]`}
	withShots := agent
	withShots.Examples = "Example 1:\nE"
	instr := tauUserData{Instruction: "buy {{it}}"}
	check := tauCheckData{Transcript: "user: a {b}", Response: "R"}
	for _, c := range []struct {
		name string
		data any
		want string
	}{
		{"tau/user_llm", instr, "Play a shopper {calm}.\n\nGOAL: buy {{it}}\n\nSay '###STOP###' when done."},
		{"tau/user_llm", tauUserData{}, "Play a shopper {calm}.\nSay '###STOP###' when done."},
		{"tau/user_react", instr, "Think, then talk.\n\nGOAL: buy {{it}}\n\nThought:\nUser Response:"},
		{"tau/user_verify", check, "Judge {it}:\nuser: a {b}\n=> R\nClassification:"},
		{"tau/user_reflect", check, "Fix it:\nuser: a {b}\nR\nResponse:"},
		{"tau/user_opening", struct{}{}, "Hey there!"},
		{"tau/react_react", agent, "P {{.x}}\n## Tools\n[{\"a\": {\"b\": 1}}]\nThink and act: {\"name\": say, \"arguments\": {\"text\": \"hi\"}}\n"},
		{"tau/react_act", agent, "P {{.x}}\n## Tools\n[{\"a\": {\"b\": 1}}]\nAct {{double}}: say\n"},
		{"tau/react_tools", agent, "P {{.x}}"},
		{"tau/react_tools", withShots, "P {{.x}}\n---\nExample 1:\nE"},
	} {
		got, err := lib.Render(c.name, c.data)
		if err != nil || got != c.want {
			t.Errorf("%s(%+v) = %q, %v\nwant %q", c.name, c.data, got, err, c.want)
		}
	}
}

// Code of another shape is refused with an error naming the file and what
// differs, never imported as a different prompt.
func TestImportTauRefusesOtherCode(t *testing.T) {
	edit := func(file, old, new string) map[string]string {
		files := map[string]string{}
		for k, v := range tauCheckout {
			files[k] = v
		}
		if !strings.Contains(files[file], old) {
			t.Fatalf("%s has no %q", file, old)
		}
		files[file] = strings.Replace(files[file], old, new, 1)
		return files
	}
	without := func(file string) map[string]string {
		files := map[string]string{}
		for k, v := range tauCheckout {
			if k != file {
				files[k] = v
			}
		}
		return files
	}
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no user.py", without(tauUserFile), "user.py: file does not exist"},
		{"no types.py", without(tauTypesFile), "types.py: file does not exist"},
		{"instruction shown otherwise", edit(tauUserFile, `else ""`, `else "none"`), "instruction_display is not"},
		{"instruction not shown", edit(tauUserFile, `{{calm}}.{instruction_display}`, `{{calm}}.`), "0 f-strings with fields {instruction_display}"},
		{"greetings differ", edit(tauUserFile, `"content": "Hey there!"}]`, `"content": "Hello"}]`), "greetings differ"},
		{"transcript lines differ", edit(tauUserFile, `f"{map_role_label(message['role'])}: {message['content']}"`, `f"{map_role_label(message['role'])} said {message['content']}"`), "verify(): a transcript line"},
		{"transcript joined otherwise", edit(tauUserFile, `transcript = "\n".join([f`, `transcript = " ".join([f`), "reflect(): the transcript is not"},
		{"prompt with another field", edit(tauUserFile, "=> {response}", "=> {response} {model}"), "verify(): 0 f-strings with fields {transcript}, {response}"},
		{"unknown constant", edit(tauReActFile, "Act {{{{double}}}}: {RESPOND_ACTION_NAME}", "Act: {OTHER}"), "ACT_INSTRUCTION: field {OTHER}"},
		{"no instruction", edit(tauReActFile, "\nACT_INSTRUCTION = f", "\nACT_INSTRUCTION2 = f"), "0 assignments ACT_INSTRUCTION"},
		{"prompt built otherwise", edit(tauReActFile, `wiki + "\n## Tools\n" + json.dumps(tools_info)`, `wiki + json.dumps(tools_info)`), "0 prompts wiki"},
		{"examples shown otherwise", edit(tauFewShotFile, `f"Example {i+1}:\n{display}"`, `f"Ex {i+1}: {display}"`), "an example is not"},
		{"system turn otherwise", edit(tauFewShotFile, `f"{self.wiki}\n---\n{few_shots}"`, `f"{few_shots}\n---\n{self.wiki}"`), "the system turn is not"},
		{"tool-calling system turn", edit(tauToolCallFile, `"content": self.wiki`, `"content": self.wiki + "!"`), "ToolCallingAgent: the system turn"},
	} {
		_, err := ImportPack("tau-bench", writeCheckout(t, c.files))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// The bundled agent templates keep the reference's structure around our
// instructions: the policy, the tools, the instruction; react_tools the
// policy alone or with the examples after a blank line, no trailing
// newline; and the markers the simulated model and the parsers read.
func TestBundledTauAgentTemplates(t *testing.T) {
	lib, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	d := tauAgentData{Policy: "# Policy\nbe kind", ToolsJSON: `[{"type": "function"}]`}
	head := d.Policy + "\n#Available tools\n" + d.ToolsJSON + "\n"
	for _, c := range []struct {
		name       string
		has, hasnt []string
	}{
		{"tau/react_act", []string{"\nAction:\n{\"name\": ", `{"name": "respond", "arguments": {"content": `}, []string{"Thought:", "<tool_name>"}},
		{"tau/react_react", []string{"\nThought:\n", "\nAction:\n{\"name\": ", `{"name": "respond", "arguments": {"content": `}, []string{"<tool_name>"}},
		{"tau/react_xml", []string{"<tool_name>", "<param>value</param>", "</tool_name>", "<thinking>"}, []string{"Action:", "Thought:"}},
	} {
		out, err := lib.Render(c.name, d)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out, head) {
			t.Errorf("%s does not start with the policy, \"\\n#Available tools\\n\" and the tools: %q", c.name, out)
		}
		for _, s := range c.has {
			if !strings.Contains(out, s) {
				t.Errorf("%s lacks %q", c.name, s)
			}
		}
		for _, s := range c.hasnt {
			if strings.Contains(out, s) {
				t.Errorf("%s has %q", c.name, s)
			}
		}
	}
	for _, c := range []struct{ examples, want string }{{"", d.Policy}, {"Example 1:\nx", d.Policy + "\n\nExample 1:\nx"}} {
		d.Examples = c.examples
		if out, err := lib.Render("tau/react_tools", d); err != nil || out != c.want {
			t.Errorf("react_tools with examples %q = %q, %v; want %q", c.examples, out, err, c.want)
		}
	}
}

// With REASONBENCH_TAU_SRC naming a checkout of sierra-research/tau-bench
// (at 59a200c or 7362a17), the imported templates render byte for byte
// what the reference's own code renders (testdata/tau_render.py runs it
// with stand-ins for litellm and the type modules), and every imported
// template replaces a bundled one taking the same data. A checkout at the
// other commit laid out beside it (at-7362a17/, as ../shared keeps it)
// imports the same texts.
func TestImportTauAgainstTheReference(t *testing.T) {
	src := os.Getenv("REASONBENCH_TAU_SRC")
	if src == "" {
		t.Skip("REASONBENCH_TAU_SRC does not name a checkout of sierra-research/tau-bench")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is needed to run the reference")
	}
	lib, texts := importedLibrary(t, src)
	data := map[string]any{
		"instruction": "You are mia_li_3668. You want to fly from {JFK} to \"SEA\" on May 20 {{not a field}}\\n.",
		"response":    "I'd like {{.Response}} a flight, please.",
		"messages": []map[string]string{{"role": "system", "content": "S {x}"}, {"role": "user", "content": "Hi! How can I help?"},
			{"role": "assistant", "content": "Book {{it}}"}, {"role": "tool", "content": "t"}},
		"wiki": "# Airline Agent Policy\n\nThe current time is 2024-05-15 15:00:00 EST. {{.Policy}}\n",
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "book", "description": "Book é \"x\"",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"user_id": map[string]any{"type": "string"}}, "required": []string{"user_id"}}}}},
		"displays": []string{"user: a\nassistant: b", "D2 {x}", "D3", "D4", "D5", "D6"},
	}
	in, _ := json.Marshal(data)
	cmd := exec.Command(python, filepath.Join("testdata", "tau_render.py"), src)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("the reference: %v\n%s", err, stderr.String())
	}
	var ref map[string]string
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatalf("the reference's output: %v: %s", err, b)
	}
	transcript := "System: S {x}\nCustomer: Hi! How can I help?\nAgent: Book {{it}}\nTool: t"
	agent := tauAgentData{Policy: data["wiki"].(string), ToolsJSON: ref["tools_json"]}
	shots := agent
	shots.Examples = "Example 1:\nuser: a\nassistant: b\n\nExample 2:\nD2 {x}\n\nExample 3:\nD3\n\nExample 4:\nD4\n\nExample 5:\nD5"
	cases := map[string]struct {
		template string
		data     any
	}{
		"user_llm":         {"user_llm", tauUserData{data["instruction"].(string)}},
		"user_llm/none":    {"user_llm", tauUserData{}},
		"user_react":       {"user_react", tauUserData{data["instruction"].(string)}},
		"user_react/none":  {"user_react", tauUserData{}},
		"user_verify":      {"user_verify", tauCheckData{transcript, data["response"].(string)}},
		"user_reflect":     {"user_reflect", tauCheckData{transcript, data["response"].(string)}},
		"user_opening":     {"user_opening", struct{}{}},
		"react_act":        {"react_act", agent},
		"react_react":      {"react_react", agent},
		"react_tools":      {"react_tools", shots},
		"react_tools/none": {"react_tools", agent},
	}
	for key, c := range cases {
		want, ok := ref[key]
		if !ok {
			t.Errorf("the reference rendered no %s", key)
			continue
		}
		got, err := lib.Render("tau/"+c.template, c.data)
		if err != nil || got != want {
			t.Errorf("%s: %v\n got %q\nwant %q", key, err, got, want)
		}
	}
	bundled, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for name := range texts {
		var d any = agent
		switch {
		case strings.HasPrefix(name, "tau/user_verify"), strings.HasPrefix(name, "tau/user_reflect"):
			d = tauCheckData{}
		case strings.HasPrefix(name, "tau/user_"):
			d = tauUserData{}
		}
		if _, err := bundled.Render(name, d); err != nil {
			t.Errorf("imported %s has no bundled counterpart taking the same data: %v", name, err)
		}
	}

	// The other commit: its files overlaid on this checkout's.
	old := filepath.Join(src, "at-7362a17")
	if _, err := os.Stat(old); err != nil {
		return
	}
	files := map[string]string{}
	for _, f := range []string{tauUserFile, tauReActFile, tauFewShotFile, tauToolCallFile, tauTypesFile} {
		b, err := os.ReadFile(filepath.Join(old, filepath.FromSlash(f)))
		if os.IsNotExist(err) {
			b, err = os.ReadFile(filepath.Join(src, filepath.FromSlash(f)))
		}
		if err != nil {
			t.Fatal(err)
		}
		files[f] = string(b)
	}
	oldTexts, err := ImportPack("tau-bench", writeCheckout(t, files))
	if err != nil {
		t.Fatalf("at 7362a17: %v", err)
	}
	for name, text := range texts {
		if oldTexts[name] != text {
			t.Errorf("%s differs at 7362a17", name)
		}
	}
}
