package code

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/reasonbench/reasonbench/tasks"
)

// A code file task is a JSON Lines file whose rows have a test column:
//
//	{"task_id": "add", "prompt": "def add(a, b):\n    \"\"\"...\"\"\"\n", "entry_point": "add",
//	 "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n"}
//
// The id is task_id, name or id (default: the row's line); the test either
// defines check(candidate), which the harness calls with the entry point,
// or calls its checks itself, as MBPP's does. Rows are scored like
// HumanEval's and use its templates.

// IsCodeFile reports whether path is a JSON Lines file whose first row has
// a test column: a code task rather than a question-answer file.
func IsCodeFile(path string) bool {
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".jsonl" && ext != ".ndjson" && ext != ".json" {
		return false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var row map[string]json.RawMessage
		if json.Unmarshal(line, &row) != nil {
			return false
		}
		_, ok := row["test"]
		return ok
	}
	return false
}

// LoadFile reads a code file task; every problem is one line naming the
// file, the line and the fix.
func LoadFile(path string) (*Task, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("data file: %w; check the path after file:", err)
	}
	name := filepath.Base(path)
	var ps []Problem
	ids := map[string]int{}
	err = eachLine(b, func(n int, line []byte) error {
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("%s:%d: not a JSON object (%v); write one problem per line with prompt, entry_point and test", name, n, err)
		}
		str := func(k string) (string, error) {
			v, ok := r[k]
			if !ok {
				return "", nil
			}
			s, ok := v.(string)
			if !ok {
				return "", fmt.Errorf("%s:%d: %s is not a string", name, n, k)
			}
			return s, nil
		}
		var p Problem
		var errs [6]error
		p.Prompt, errs[0] = str("prompt")
		p.EntryPoint, errs[1] = str("entry_point")
		p.HiddenTest, errs[2] = str("test")
		p.ID, errs[3] = str("task_id")
		if p.ID == "" {
			p.ID, errs[4] = str("name")
		}
		if p.ID == "" {
			p.ID, errs[5] = str("id")
		}
		for _, e := range errs {
			if e != nil {
				return e
			}
		}
		if p.ID == "" {
			p.ID = fmt.Sprintf("line%d", n)
		}
		switch {
		case strings.TrimSpace(p.Prompt) == "":
			return fmt.Errorf("%s:%d: no prompt: give the function's signature and docstring", name, n)
		case strings.TrimSpace(p.HiddenTest) == "":
			return fmt.Errorf("%s:%d: no test: give Python asserts, e.g. def check(candidate): assert candidate(1) == 2", name, n)
		case p.EntryPoint == "":
			return fmt.Errorf("%s:%d: no entry_point: name the function the test calls", name, n)
		case !Defines(p.Prompt, p.EntryPoint):
			return fmt.Errorf("%s:%d: the prompt does not define %s(...)", name, n, p.EntryPoint)
		}
		if first, dup := ids[p.ID]; dup {
			return fmt.Errorf("%s:%d: id %q repeats line %d's", name, n, p.ID, first)
		}
		ids[p.ID] = n
		p.Index = len(ps)
		ps = append(ps, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("%s: no rows: write one problem per line with prompt, entry_point and test", name)
	}
	abs, _ := filepath.Abs(path)
	info := tasks.Dataset{Name: name, Path: abs, SHA256: tasks.SHA256(b), Rows: len(ps)}
	return newTask("file:"+info.Name+"@"+info.Short(), ps, info, []string{HumanEval}), nil
}
