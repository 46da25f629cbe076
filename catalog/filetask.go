package catalog

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/code"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

// FileTaskPrefix names a file task: --task file:PATH.jsonl (or .csv).
const FileTaskPrefix = "file:"

// IsFileTask tells a file task's name.
func IsFileTask(name string) bool { return strings.HasPrefix(name, FileTaskPrefix) }

// OpenTask builds the task a configuration names: a bundled task, or a
// file task "file:PATH" read now with its spec (spec "" for the defaults);
// rule is the scoring rule or scorer ("" for the task's or spec's default).
func OpenTask(name, spec, rule string) (tasks.Task, error) {
	if path, ok := strings.CutPrefix(name, FileTaskPrefix); ok {
		if path == "" {
			return nil, fmt.Errorf("--task file: names no file; write --task file:PATH.jsonl (or .csv)")
		}
		if code.IsCodeFile(path) { // rows with a test column: a code task
			if spec != "" {
				return nil, fmt.Errorf("--task-spec %s: a code file (rows with a test column) takes no spec", filepath.Base(spec))
			}
			t, err := code.LoadFile(path)
			if err != nil {
				return nil, err
			}
			if rule == "" {
				return t, nil
			}
			return t.WithRule(rule)
		}
		d, err := qa.LoadFile(path, spec)
		if err != nil {
			return nil, err
		}
		return qa.NewFileTask(d, rule)
	}
	if spec != "" {
		return nil, fmt.Errorf("--task-spec %s: a spec describes a data file; use it with --task file:PATH", filepath.Base(spec))
	}
	ts, err := LookupTask(name)
	if err != nil {
		return nil, err
	}
	return TaskWithRule(ts, rule)
}
