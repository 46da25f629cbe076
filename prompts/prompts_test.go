package prompts

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBundledAndOverrides(t *testing.T) {
	lib, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	out, err := lib.Render("game24/cot", struct{ Input string }{"1 2 3 4"})
	if err != nil || !strings.HasSuffix(strings.TrimSpace(out), "Input: 1 2 3 4") {
		t.Fatalf("render: %q, %v", out, err)
	}
	if _, err := lib.Render("game24/nope", nil); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown template: %v", err)
	}
	if _, err := lib.Render("game24/cot", struct{ Other string }{"x"}); err == nil {
		t.Error("a template field missing from the data rendered")
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "game24"), 0o755)
	os.WriteFile(filepath.Join(dir, "game24", "cot.txt"), []byte("custom {{.Input}}"), 0o644)
	over, err := WithOverrides(dir)
	if err != nil {
		t.Fatal(err)
	}
	out, _ = over.Render("game24/cot", struct{ Input string }{"5"})
	if out != "custom 5" || over.Hash("game24/cot") == lib.Hash("game24/cot") {
		t.Errorf("override: %q, hashes %s %s", out, over.Hash("game24/cot"), lib.Hash("game24/cot"))
	}
	if over.Hash("game24/io") != lib.Hash("game24/io") {
		t.Error("a template that was not overridden changed")
	}
	if _, err := WithOverrides(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing prompt folder was accepted")
	}
	os.WriteFile(filepath.Join(dir, "game24", "bad.txt"), []byte("{{.Input"), 0o644)
	if _, err := WithOverrides(dir); err == nil {
		t.Error("a malformed template was accepted")
	}
}

func TestPack(t *testing.T) {
	lib, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	if lib.Pack() != BundledPack {
		t.Errorf("bundled pack %q", lib.Pack())
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "game24"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(text string) string {
		if err := os.WriteFile(filepath.Join(dir, "game24", "io.txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := WithOverrides(dir)
		if err != nil {
			t.Fatal(err)
		}
		return l.Pack()
	}
	a, a2, b := write("Input: {{.Input}}\n"), write("Input: {{.Input}}\n"), write("Input: {{.Input}}")
	if !strings.HasPrefix(a, "folder:") || a != a2 || a == b {
		t.Errorf("packs %q %q %q: want folder:HASH, equal for equal texts, different otherwise", a, a2, b)
	}
}
