package view

import (
	"context"
	"html"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/store"
)

// codeOutput is a model's answer to HumanEval/0: prose around a fenced
// function of several lines.
const codeOutput = "Here is my solution.\n\n```python\ndef has_close_elements(numbers, threshold):\n" +
	"    for i, a in enumerate(numbers):\n        for b in numbers[i + 1:]:\n" +
	"            if abs(a - b) < threshold:\n                return True\n    return False\n```\n"

// codeServer serves a database holding one HumanEval item, stored as a run
// leaves it (no sandbox needed to read it back).
func codeServer(t *testing.T) (*httptest.Server, int64) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "code.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	id, err := st.CreateRun(ctx, store.Run{Task: "humaneval", Strategy: "io", Model: "m", Range: "0:1",
		Spec: []byte(`{"config":{"task":"humaneval","model":"m"}}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutItem(ctx, store.Item{RunID: id, Index: 0, Key: "HumanEval/0", Input: "def has_close_elements(...)",
		Output: codeOutput, Correct: true, Score: 1}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	srv := serveReadOnly(t, path)
	return srv, id
}

// TestCodeItemShowsHiddenTests: a HumanEval item shows the task's hidden
// tests where a gold answer would be, and the extracted function with its
// lines.
func TestCodeItemShowsHiddenTests(t *testing.T) {
	srv, id := codeServer(t)
	code, body := get(t, srv.URL+"/runs/"+formatInt(id)+"/items/0")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	tests := regexp.MustCompile(`(?s)<pre id="tests">(.*?)</pre>`).FindStringSubmatch(body)
	if tests == nil {
		t.Fatal("no hidden tests on a HumanEval item")
	}
	// HumanEval/0's test: check(candidate) with its asserts.
	src := html.UnescapeString(tests[1])
	if !strings.Contains(src, "def check(candidate):") || strings.Count(src, "assert candidate(") < 3 {
		t.Errorf("hidden tests = %q, want HumanEval/0's check", src)
	}
	if strings.Contains(body, "none recorded") || !strings.Contains(body, "checked by the hidden tests below") {
		t.Error("gold says none recorded rather than pointing at the hidden tests")
	}
	ex := regexp.MustCompile(`(?s)id="extracted"><pre>(.*?)</pre>`).FindStringSubmatch(body)
	if ex == nil || strings.Count(html.UnescapeString(ex[1]), "\n") < 5 || strings.Contains(ex[1], "Here is") {
		t.Errorf("extracted code not a multi-line <pre> of the function: %v", ex)
	}
}
