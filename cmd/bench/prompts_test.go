package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPromptsExportImport: export writes the bundled templates, a run of a
// reflexion-hotpotqa preset uses them through --prompts, import reads a
// checkout-shaped folder, and missing files or constants exit 2 with one
// line naming them.
func TestPromptsExportImport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pack := filepath.Join(dir, "pack")
	if code, out, errs := cli(t, "prompts", "export", pack); code != 0 || !strings.Contains(out, "templates") {
		t.Fatalf("export: %d %q %q", code, out, errs)
	}
	b, err := os.ReadFile(filepath.Join(pack, "hotpotqa", "ref_cot_agent.txt"))
	if err != nil || !strings.Contains(string(b), "{{.Scratchpad}}") {
		t.Fatalf("exported ref_cot_agent: %q %v", b, err)
	}
	db := filepath.Join(dir, "b.db")
	if code, out, errs := cli(t, "run", "--db", db, "--preset", "reflexion-hotpotqa/cot-context-reflexion", "--range", "0:3", "--prompts", pack); code != 0 || !strings.Contains(out, "reflexion_ref") {
		t.Fatalf("run with the exported pack: %d %q %q", code, out, errs)
	}

	src := filepath.Join(dir, "tot")
	if err := os.MkdirAll(filepath.Join(src, "src", "tot", "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	py := "standard_prompt = '''IO {input}\n'''\ncot_prompt = 'CoT {input}'\npropose_prompt = \"P {input}\"\nvalue_prompt = ('V ' '{input}')\nvalue_last_step_prompt = '''L {input} {answer}'''\n"
	if err := os.WriteFile(filepath.Join(src, "src", "tot", "prompts", "game24.py"), []byte(py), 0o644); err != nil {
		t.Fatal(err)
	}
	cw := "standard_prompt = 'CW IO {input}'\ncot_prompt = 'CW CoT {input}'\npropose_prompt = 'CW P {input}'\nvalue_prompt = 'CW V {input}'\n"
	text := "standard_prompt = 'T IO {input}'\ncot_prompt = 'T CoT {input}'\nvote_prompt = 'T vote \"{s}\"'\ncompare_prompt = 'T cmp'\nscore_prompt = '''T score {s}\n'''\n"
	for name, body := range map[string]string{"crosswords.py": cw, "text.py": text} {
		if err := os.WriteFile(filepath.Join(src, "src", "tot", "prompts", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "imported")
	if code, stdout, errs := cli(t, "prompts", "import", "--from", "tot", src, "--out", out); code != 0 || strings.Count(stdout, "\n") != 13 {
		t.Fatalf("import: %d %q %q", code, stdout, errs)
	}
	for name, want := range map[string]string{"game24/value_last": "L {{.Input}} {{.Answer}}", "crosswords/propose": "CW P {{.Input}}",
		"creative/cot": "T CoT {{.Input}}", "creative/vote": "T vote \"{s}\"", "creative/score": "T score {s}\n"} {
		if b, _ := os.ReadFile(filepath.Join(out, filepath.FromSlash(name)+".txt")); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"prompts", "import", "--from", "reflexion", src, "--out", out}, "prompts.py"},
		{[]string{"prompts", "import", "--from", "tau-bench", src, "--out", out}, "tau_bench/envs/user.py: file does not exist"},
		{[]string{"prompts", "import", "--from", "nope", src, "--out", out}, "unknown prompt pack"},
		{[]string{"prompts", "import", "--from", "tot", "--out", out}, "usage"},
		{[]string{"prompts", "export"}, "usage"},
		{[]string{"prompts", "frob"}, "unknown subcommand"},
	} {
		code, _, errs := cli(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q (want 2 and one line with %q)", tc.args, code, errs, tc.want)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "src", "tot", "prompts", "game24.py"), []byte("cot_prompt = 'x'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli(t, "prompts", "import", "--from", "tot", src, "--out", out); code != 2 || !strings.Contains(errs, "no string constant standard_prompt") {
		t.Errorf("missing constant: %d %q", code, errs)
	}
}
