package prompts

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// PackSource is one Python file of a reference repository and the
// templates its string constants become.
type PackSource struct {
	File  string        // path under the checkout
	Texts []PackMapping // constants read from it
	// Optional sources are skipped when the checkout lacks the file (a
	// pack must find at least one of its files): Reflexion's programming
	// code sat at the repository's root until it moved under
	// programming_runs/, and early checkouts have no HotpotQA code.
	Optional bool
	// Extra constants are imported when the file has them (the
	// programming code's later versions added examples and a code-block
	// instruction).
	Extra []PackMapping
}

// PackMapping maps a Python constant to a template file. Format says the
// constant is a str.format template (its {fields} become template fields);
// otherwise it is plain text.
type PackMapping struct {
	Var    string
	Out    string // task/name, written as task/name.txt
	Format bool
}

// Packs are the reference repositories bench prompts import knows.
var Packs = map[string][]PackSource{
	// princeton-nlp/tree-of-thought-llm: the Game of 24, Mini Crosswords
	// and Creative Writing prompts. The text task's vote and score prompts
	// are plain text the choices and the passage are appended to.
	"tot": {
		{File: "src/tot/prompts/game24.py", Texts: []PackMapping{
			{"standard_prompt", "game24/io", true},
			{"cot_prompt", "game24/cot", true},
			{"propose_prompt", "game24/propose", true},
			{"value_prompt", "game24/value", true},
			{"value_last_step_prompt", "game24/value_last", true},
		}},
		{File: "src/tot/prompts/crosswords.py", Texts: []PackMapping{
			{"standard_prompt", "crosswords/io", true},
			{"cot_prompt", "crosswords/cot", true},
			{"propose_prompt", "crosswords/propose", true},
			{"value_prompt", "crosswords/value", true},
		}},
		{File: "src/tot/prompts/text.py", Texts: []PackMapping{
			{"standard_prompt", "creative/io", true},
			{"cot_prompt", "creative/cot", true},
			{"vote_prompt", "creative/vote", false},
			{"score_prompt", "creative/score", false},
		}},
	},
	// noahshinn/reflexion: the HotpotQA agents' prompts and few-shot
	// examples (strategy reflexion_ref), and the programming protocol's
	// instructions and examples (strategy reflexion_code) for both code
	// tasks: from generators/py_generate.py at the root (the code of the
	// logged runs, version b448a9b) as reflexion_code_*, from
	// programming_runs/generators/py_generate.py (version current) as
	// reflexion_code_current_*. The messages' frames ("func signature:",
	// "unit tests:", "Explanation:", ...) are built by the reference's code,
	// not constants, and by the strategy here.
	"reflexion": {
		{File: "generators/py_generate.py", Optional: true, Texts: codeMappings("reflexion_code_", pyCodeTexts)},
		{File: "programming_runs/generators/py_generate.py", Optional: true, Texts: codeMappings("reflexion_code_current_", pyCodeTexts),
			Extra: codeMappings("reflexion_code_current_", pyCodeExtra)},
		{File: "hotpotqa_runs/prompts.py", Optional: true, Texts: []PackMapping{
			{"COT_INSTRUCTION", "hotpotqa/ref_cot_base_agent", true},
			{"COT_AGENT_REFLECT_INSTRUCTION", "hotpotqa/ref_cot_agent", true},
			{"COT_SIMPLE_INSTRUCTION", "hotpotqa/ref_cot_simple_base_agent", true},
			{"COT_REFLECT_INSTRUCTION", "hotpotqa/ref_cot_reflect", true},
			{"COT_SIMPLE_AGENT_REFLECT_INSTRUCTION", "hotpotqa/ref_cot_simple_agent", true},
			{"COT_SIMPLE_REFLECT_INSTRUCTION", "hotpotqa/ref_cot_simple_reflect", true},
			{"REACT_INSTRUCTION", "hotpotqa/ref_react_agent", true},
			{"REACT_REFLECT_INSTRUCTION", "hotpotqa/ref_react_reflect_agent", true},
			{"REFLECT_INSTRUCTION", "hotpotqa/ref_react_reflect", true},
			{"REFLECTION_HEADER", "hotpotqa/ref_reflection_header", false},
			{"REFLECTION_AFTER_LAST_TRIAL_HEADER", "hotpotqa/ref_reflection_after_last_trial_header", false},
			{"LAST_TRIAL_HEADER", "hotpotqa/ref_last_trial_header", false},
		}},
		{File: "hotpotqa_runs/fewshots.py", Optional: true, Texts: []PackMapping{
			{"COT", "hotpotqa/ref_cot_examples", false},
			{"COT_REFLECT", "hotpotqa/ref_cot_reflect_examples", false},
			{"COTQA_SIMPLE6", "hotpotqa/ref_cot_simple_examples", false},
			{"COT_SIMPLE_REFLECTION", "hotpotqa/ref_cot_simple_reflect_examples", false},
			{"WEBTHINK_SIMPLE6", "hotpotqa/ref_react_examples", false},
			{"REFLECTIONS", "hotpotqa/ref_react_reflect_examples", false},
		}},
	},
}

// pyCodeTexts are py_generate.py's chat constants the programming
// protocol uses, by template name; pyCodeExtra those only later versions
// have.
var (
	pyCodeTexts = [][2]string{
		{"PY_TEST_GENERATION_CHAT_INSTRUCTION", "tests_system"},
		{"PY_TEST_GENERATION_FEW_SHOT", "tests_examples"},
		{"PY_SIMPLE_CHAT_INSTRUCTION", "simple_system"},
		{"PY_REFLEXION_CHAT_INSTRUCTION", "reflexion_system"},
		{"PY_SELF_REFLECTION_CHAT_INSTRUCTION", "reflect_system"},
	}
	pyCodeExtra = [][2]string{
		{"USE_PYTHON_CODEBLOCK_INSTRUCTION", "codeblock"},
		{"PY_REFLEXION_FEW_SHOT_ADD", "reflexion_examples"},
		{"PY_SELF_REFLECTION_FEW_SHOT", "reflect_examples"},
	}
)

// codeMappings maps constants to plain-text templates of both code tasks.
func codeMappings(prefix string, consts [][2]string) []PackMapping {
	var out []PackMapping
	for _, task := range []string{"mbpp", "humaneval"} {
		for _, c := range consts {
			out = append(out, PackMapping{Var: c[0], Out: task + "/" + prefix + c[1]})
		}
	}
	return out
}

// PackNames lists the known packs, sorted.
func PackNames() []string {
	var names []string
	for n := range Packs {
		names = append(names, n)
	}
	for n := range builtPacks {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ImportPack reads the pack's Python files under src and returns the
// templates (task/name → template text) whose output is byte-identical to
// the Python strings (formatted with the same field values). A missing
// file or constant is an error naming it.
func ImportPack(pack, src string) (map[string]string, error) {
	if build, ok := builtPacks[pack]; ok {
		return build(src)
	}
	sources, ok := Packs[pack]
	if !ok {
		return nil, fmt.Errorf("unknown prompt pack %q (known: %s)", pack, strings.Join(PackNames(), ", "))
	}
	out := map[string]string{}
	found := 0
	var missing []string
	for _, ps := range sources {
		path := filepath.Join(src, filepath.FromSlash(ps.File))
		b, err := os.ReadFile(path)
		if err != nil && ps.Optional && os.IsNotExist(err) {
			missing = append(missing, ps.File)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w (is %s a checkout of the %s repository?)", path, errNotFound(err), src, pack)
		}
		found++
		vals, err := PyStrings(string(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for i, m := range append(append([]PackMapping{}, ps.Texts...), ps.Extra...) {
			v, ok := vals[m.Var]
			if !ok && i >= len(ps.Texts) {
				continue
			}
			if !ok {
				return nil, fmt.Errorf("%s: no string constant %s", path, m.Var)
			}
			text := PyTextToTemplate(v)
			if m.Format {
				if text, err = PyFormatToTemplate(v); err != nil {
					return nil, fmt.Errorf("%s: %s: %w", path, m.Var, err)
				}
			}
			out[m.Out] = text
		}
	}
	if found == 0 {
		return nil, fmt.Errorf("%s has none of %s (is it a checkout of the %s repository?): %w", src, strings.Join(missing, ", "), pack, fs.ErrNotExist)
	}
	return out, nil
}

func errNotFound(err error) error {
	if os.IsNotExist(err) {
		return fs.ErrNotExist
	}
	return err
}

// WriteFolder writes templates (task/name → text) as dir/task/name.txt.
func WriteFolder(dir string, texts map[string]string) error {
	for name, text := range texts {
		p := filepath.Join(dir, filepath.FromSlash(name)+".txt")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Export returns every bundled template (task/name → text).
func Export() (map[string]string, error) {
	lib, err := Bundled()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, n := range lib.Names() {
		out[n], _ = lib.Text(n)
	}
	return out, nil
}
