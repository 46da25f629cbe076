package prompts

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"text/template"
	"unicode/utf8"
)

func TestPyStrings(t *testing.T) {
	src := "import x\nfrom y import z\n\n" +
		"A = \"\"\"line one\n  {field} and {{braces}}\nend\"\"\"\n" +
		"B = 'single \\'quoted\\' \\n \\t \\x41\\u00e9\\101 \\q'\n" +
		"C = (\"implicit \"\n     'concat'  # comment\n     r\"\\raw\\n\")\n" +
		"D = \"plus \" + \"join\"\n" +
		"E = 42\n" +
		"F = make(\n  a='not a constant',\n)\n" +
		"G = '''it''s''' \n" +
		"    H = 'indented, not module level'\n" +
		"I = \"a\\\nb\"\n" +
		"J = u'uni' b'bytes'\n"
	got, err := PyStrings(src)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"A": "line one\n  {field} and {{braces}}\nend",
		"B": "single 'quoted' \n \t Aé" + "A \\q",
		"C": "implicit concat\\raw\\n",
		"D": "plus join",
		"G": "it''s",
		"I": "ab",
		"J": "unibytes",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"E", "F", "H", "a"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s read as a string constant", k)
		}
	}
}

func TestPyStringsErrors(t *testing.T) {
	for _, src := range []string{"A = 'open", "A = '''open", "A = f'{x}", "A = 'x\ny'", "A = '\\N{DASH}'", "A = '\\x4'"} {
		if _, err := PyStrings(src); err == nil {
			t.Errorf("%q: no error", src)
		}
	}
}

// f-strings are read past, never taken as constants: assignments built
// with one are skipped and the rest of the file still reads.
func TestPyStringsSkipsFStrings(t *testing.T) {
	src := "A = f'{x}'\nB = 'kept'\nC = 'a' + f\"{b}\"\nD = rf\"\"\"x {y}\n\"quoted\" \\d\"\"\"\n" +
		"def g(x):\n    return f'{x}\\n\\nlabel:\\n{B}'\nE = Fr'{z}'\nF = \"\"\"after\"\"\"\n"
	got, err := PyStrings(src)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, map[string]string{"B": "kept", "F": "after"}) {
		t.Errorf("read %q", got)
	}
}

// pyFormat is str.format with named fields, for the tests.
func pyFormat(s string, vals map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "{{"):
			b.WriteByte('{')
			i++
		case strings.HasPrefix(s[i:], "}}"):
			b.WriteByte('}')
			i++
		case s[i] == '{':
			end := strings.IndexByte(s[i:], '}')
			b.WriteString(vals[s[i+1:i+end]])
			i += end
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func execute(t testing.TB, tmpl string, data any) string {
	t.Helper()
	tp, err := template.New("x").Option("missingkey=error").Parse(tmpl)
	if err != nil {
		t.Fatalf("template %q: %v", tmpl, err)
	}
	var b bytes.Buffer
	if err := tp.Execute(&b, data); err != nil {
		t.Fatalf("template %q: %v", tmpl, err)
	}
	return b.String()
}

func TestPyFormatToTemplate(t *testing.T) {
	vals := map[string]string{"question": "Q?", "scratchpad": "\nThought: {x}", "input": "{{.Input}}"}
	data := map[string]string{"Question": "Q?", "Scratchpad": "\nThought: {x}", "Input": "{{.Input}}"}
	for _, s := range []string{
		"Question: {question}{scratchpad}",
		"{{literal}} {{{question}}} {{{{",
		"{{{input}",
		"a {{ b }} c {{- d -}} {{.Go}}",
		"",
	} {
		tmpl, err := PyFormatToTemplate(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got, want := execute(t, tmpl, data), pyFormat(s, vals); got != want {
			t.Errorf("%q → %q renders %q, want %q", s, tmpl, got, want)
		}
	}
	if got, _ := PyFormatToTemplate("{reflection_header}"); got != "{{.ReflectionHeader}}" {
		t.Errorf("field name = %q", got)
	}
	for _, bad := range []string{"{B_C}{B_c}", "{0}", "{}", "{a.b}", "{a!r}", "{a:>3}", "open {", "close }"} {
		if _, err := PyFormatToTemplate(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// Fixture repositories in the references' shapes, our own texts.
const fixtureTotPy = `import re

standard_prompt = '''Make 24 from {input}.
Input: {input}
'''

cot_prompt = '''Step by step, with {input}:
'''

propose_prompt = '''Input: 1 2 3 4
Possible next steps:
Input: {input}
Possible next steps:
'''

value_prompt = '''Can {input} reach 24? (sure/likely/impossible)
'''

value_last_step_prompt = '''Input: {input}
Answer: {answer}
Judge:'''
`

const fixtureReflexionPrompts = `from langchain.prompts import PromptTemplate

COT_INSTRUCTION = """Base agent.
{examples}
(END)
{reflections}
Context: {context} 
Question: {question}{scratchpad}"""
COT_SIMPLE_INSTRUCTION = """Simple base.
{examples}
(END)
{reflections}
{context}
Question: {question}{scratchpad}"""
COT_AGENT_REFLECT_INSTRUCTION = """Agent with context.
{examples}
(END)

{reflections}

Context: {context}
Question: {question}{scratchpad}"""
COT_REFLECT_INSTRUCTION = """Reflect.
{examples}
Context: {context}
Question: {question}{scratchpad}

Reflection:"""
COT_SIMPLE_AGENT_REFLECT_INSTRUCTION = """Simple.
{examples}
{context}
{reflections}

Question: {question}{scratchpad}"""
COT_SIMPLE_REFLECT_INSTRUCTION = """Simple reflect.
{examples}
{context}
Question: {question}{scratchpad}

Reflection:"""
REACT_INSTRUCTION = """ReAct with Search[entity] {{not a field}}.
{examples}
Question: {question}{scratchpad}"""
REACT_REFLECT_INSTRUCTION = """ReAct reflect agent.
{examples}

{reflections}

Question: {question}{scratchpad}"""
REFLECTION_HEADER = 'Header one.\n'
REFLECTION_AFTER_LAST_TRIAL_HEADER = 'Header two.\n'
LAST_TRIAL_HEADER = 'Header three.\n'
REFLECT_INSTRUCTION = """ReAct reflect.
{examples}
Question: {question}{scratchpad}

Reflection:"""

cot_agent_prompt = PromptTemplate(
    input_variables=["examples", "question"],
    template = COT_AGENT_REFLECT_INSTRUCTION,
)
`

const fixtureReflexionFewshots = `COT = """Question: q1
Thought: t {{braces}} stay
Action: Finish[a1]"""
COT_REFLECT = """Reflection: r1"""
COTQA_SIMPLE6 = """Question: q2"""
COT_SIMPLE_REFLECTION = """Reflection: r2"""
WEBTHINK_SIMPLE6 = """Question: q3
Thought 1: t
Action 1: Search[x]"""
REFLECTIONS = """Reflection: r3"""
`

// fixturePyGenerate is shaped like the Reflexion programming code's
// generators/py_generate.py (constants, then functions building the
// messages with f-strings), in our own words.
const fixturePyGenerate = `from typing import List
PY_SIMPLE_COMPLETION_INSTRUCTION = "# body only"
PY_SIMPLE_CHAT_INSTRUCTION = "Simple {not a field} instruction."
PY_REFLEXION_CHAT_INSTRUCTION = "Improve " "the body."
PY_SELF_REFLECTION_CHAT_INSTRUCTION = "Explain the failure."
PY_TEST_GENERATION_FEW_SHOT = """Example:

func signature:
def f(x: int) -> int:
    \"\"\" Double.
    \"\"\"

unit tests:
assert f(1) == 2"""
PY_TEST_GENERATION_COMPLETION_INSTRUCTION = f"""Write tests.

{PY_TEST_GENERATION_FEW_SHOT}"""
PY_TEST_GENERATION_CHAT_INSTRUCTION = """Write tests for the function."""

def py_generate_internal_tests(func_sig: str) -> List[str]:
    message = f'{PY_TEST_GENERATION_FEW_SHOT}\n\nfunc signature:\n{func_sig}\nunit tests:'
    return [message]
`

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, text := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestImportPacks: the imported folder loads as a prompt library and each
// template renders exactly what Python's str.format gives.
func TestImportPacks(t *testing.T) {
	for _, tc := range []struct {
		pack  string
		files map[string]string
	}{
		{"tot", map[string]string{"src/tot/prompts/game24.py": fixtureTotPy,
			"src/tot/prompts/crosswords.py": "standard_prompt = '''\nIO {input}\nOutput:\n'''\ncot_prompt = 'CoT {input}'\npropose_prompt = '''P\n\n{input}\n\nuse \"h1. apple (medium)\"\n'''\nvalue_prompt = 'V {input}\\n'\n",
			"src/tot/prompts/text.py":       "standard_prompt = '''\nW {input}\n'''\ncot_prompt = '''\nW {input}\n\nPlan:\n'''\nvote_prompt = '''conclude \"The best choice is {s}\"\n'''\nscore_prompt = '''\"Thus the coherency score is {s}\"\n'''\n"}},
		{"reflexion", map[string]string{"hotpotqa_runs/prompts.py": fixtureReflexionPrompts, "hotpotqa_runs/fewshots.py": fixtureReflexionFewshots}},
		{"reflexion", map[string]string{"generators/py_generate.py": fixturePyGenerate}},
		{"reflexion", map[string]string{"programming_runs/generators/py_generate.py": fixturePyGenerate +
			"USE_PYTHON_CODEBLOCK_INSTRUCTION = 'Use a block.'\nPY_SELF_REFLECTION_FEW_SHOT = \"Ex {braces}\"\n"}},
	} {
		src := writeFiles(t, tc.files)
		texts, err := ImportPack(tc.pack, src)
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
		vals := map[string]string{"input": "4 5 6 10", "answer": "(5 * (10 - 4)) - 6 = 24", "examples": "EX", "reflections": "RF",
			"context": "CTX", "question": "Q?", "scratchpad": "\nThought:"}
		data := map[string]string{}
		for k, v := range vals {
			data[strings.ToUpper(k[:1])+k[1:]] = v
		}
		for _, ps := range Packs[tc.pack] {
			if _, ok := tc.files[ps.File]; !ok {
				continue
			}
			pyVals, err := PyStrings(tc.files[ps.File])
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range append(ps.Texts, ps.Extra...) {
				want, ok := pyVals[m.Var]
				if _, imported := texts[m.Out]; !ok && !imported {
					continue // an extra constant the file lacks
				}
				if m.Format {
					want = pyFormat(want, vals)
				}
				got, err := lib.Render(m.Out, data)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("%s %s: renders %q, want %q", tc.pack, m.Out, got, want)
				}
			}
		}
	}
	// The fixtures' literal braces and trailing newlines survive.
	src := writeFiles(t, map[string]string{"hotpotqa_runs/prompts.py": fixtureReflexionPrompts, "hotpotqa_runs/fewshots.py": fixtureReflexionFewshots})
	texts, _ := ImportPack("reflexion", src)
	if texts["hotpotqa/ref_reflection_header"] != "Header one.\n" || !strings.Contains(texts["hotpotqa/ref_cot_examples"], `{{"{"}}{braces}}`) {
		t.Errorf("header %q examples %q", texts["hotpotqa/ref_reflection_header"], texts["hotpotqa/ref_cot_examples"])
	}
}

// The programming prompts come from either place the code sat, each as
// its version's templates for both code tasks; a checkout with neither
// file nor HotpotQA's is refused.
func TestImportReflexionCode(t *testing.T) {
	root, err := ImportPack("reflexion", writeFiles(t, map[string]string{"generators/py_generate.py": fixturePyGenerate}))
	if err != nil {
		t.Fatal(err)
	}
	if len(root) != 10 || root["mbpp/reflexion_code_reflexion_system"] != "Improve the body." ||
		root["humaneval/reflexion_code_simple_system"] != "Simple {not a field} instruction." ||
		!strings.HasSuffix(root["mbpp/reflexion_code_tests_examples"], "assert f(1) == 2") {
		t.Errorf("root import %q", root)
	}
	cur, err := ImportPack("reflexion", writeFiles(t, map[string]string{"programming_runs/generators/py_generate.py": fixturePyGenerate +
		"USE_PYTHON_CODEBLOCK_INSTRUCTION = 'Use a block.'\n"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(cur) != 12 || cur["mbpp/reflexion_code_current_codeblock"] != "Use a block." || cur["mbpp/reflexion_code_current_tests_system"] != "Write tests for the function." {
		t.Errorf("current import %q", cur)
	}
	if _, err := ImportPack("reflexion", writeFiles(t, map[string]string{"generators/other.py": ""})); !errors.Is(err, fs.ErrNotExist) ||
		!strings.Contains(err.Error(), "generators/py_generate.py") {
		t.Errorf("empty checkout: %v", err)
	}
	if _, err := ImportPack("reflexion", writeFiles(t, map[string]string{"generators/py_generate.py": "PY_SIMPLE_CHAT_INSTRUCTION = 'x'\n"})); err == nil ||
		!strings.Contains(err.Error(), "no string constant") {
		t.Errorf("missing constant: %v", err)
	}
}

func TestImportPackErrors(t *testing.T) {
	if _, err := ImportPack("nope", t.TempDir()); err == nil || !strings.Contains(err.Error(), "known: debate, reflexion, tau-bench, tot") {
		t.Errorf("unknown pack: %v", err)
	}
	if _, err := ImportPack("tot", t.TempDir()); err == nil || !strings.Contains(err.Error(), "game24.py") {
		t.Errorf("missing file: %v", err)
	}
	src := writeFiles(t, map[string]string{"src/tot/prompts/game24.py": "standard_prompt = 'x {input}'\n"})
	if _, err := ImportPack("tot", src); err == nil || !strings.Contains(err.Error(), "no string constant cot_prompt") {
		t.Errorf("missing constant: %v", err)
	}
}

// The bundled reference-agent templates have the fields of the
// reference's PromptTemplates, so an imported pack and ours are
// interchangeable.
func TestBundledRefShapes(t *testing.T) {
	lib, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	src := writeFiles(t, map[string]string{"hotpotqa_runs/prompts.py": fixtureReflexionPrompts, "hotpotqa_runs/fewshots.py": fixtureReflexionFewshots})
	texts, err := ImportPack("reflexion", src)
	if err != nil {
		t.Fatal(err)
	}
	fields := func(s string) string {
		var f []string
		for _, part := range strings.Split(s, "{{.")[1:] {
			name, _, _ := strings.Cut(part, "}}")
			f = append(f, name)
		}
		return strings.Join(f, ",")
	}
	for name, imported := range texts {
		ours, ok := lib.Text(name)
		if !ok {
			t.Errorf("no bundled %s", name)
			continue
		}
		if fields(ours) != fields(imported) {
			t.Errorf("%s: fields %s, the reference shape has %s", name, fields(ours), fields(imported))
		}
	}
}

// FuzzPyFormat: a format string the converter accepts renders as
// str.format does; plain text always renders as itself.
func FuzzPyFormat(f *testing.F) {
	for _, s := range []string{"Q: {question}{scratchpad}", "{{x}}", "{{{question}}}", "{", "}}{{", "{{.A}}", "a{b_c}d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		if got := execute(t, PyTextToTemplate(s), nil); got != s {
			t.Fatalf("text %q renders %q", s, got)
		}
		tmpl, err := PyFormatToTemplate(s)
		if err != nil {
			return
		}
		vals, data := map[string]string{}, map[string]string{}
		for i := 0; i < len(s); i++ {
			if s[i] == '{' {
				end := strings.IndexByte(s[i:], '}')
				if end > 1 {
					name := s[i+1 : i+end]
					if field, err := goField(name); err == nil {
						vals[name], data[field] = "<"+name+">", "<"+name+">"
					}
				}
			}
		}
		if got, want := execute(t, tmpl, data), pyFormat(s, vals); got != want {
			t.Fatalf("%q → %q renders %q, want %q", s, tmpl, got, want)
		}
	})
}

// FuzzPyStrings: arbitrary source never panics, and a literal written by
// pyQuote reads back as its value.
func FuzzPyStrings(f *testing.F) {
	for _, s := range []string{"A = 'x'", "A = \"\"\"x\ny\"\"\"", "A = ('a' 'b')", "A = r'\\'", "A = '\\x41\\u00e9\\777'", "A = \"\\\n\""} {
		f.Add(s, "value")
	}
	f.Fuzz(func(t *testing.T, src, value string) {
		_, _ = PyStrings(src)
		if !utf8.ValidString(value) {
			return
		}
		got, err := PyStrings("X = " + pyQuote(value) + "\n")
		if err != nil || got["X"] != value {
			t.Fatalf("%q: read %q, %v", value, got["X"], err)
		}
	})
}

// pyQuote writes s as a Python double-quoted literal.
func pyQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x` + string("0123456789abcdef"[r>>4]) + string("0123456789abcdef"[r&15]))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
