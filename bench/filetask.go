package bench

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

// datasetOf is the task's data as runs record it, or nil.
func datasetOf(t tasks.Task) *tasks.Dataset {
	if ds, ok := t.(tasks.DataSource); ok {
		d := ds.Dataset()
		return &d
	}
	return nil
}

// promptDirOf is the prompts folder a file task's spec names, or "".
func promptDirOf(t tasks.Task) string {
	if pd, ok := t.(interface{ PromptDir() string }); ok {
		return pd.PromptDir()
	}
	return ""
}

// sameData checks that a resumed run reads the data it started with.
func sameData(was, now *tasks.Dataset) error {
	if was == nil || now == nil {
		return nil
	}
	if was.SHA256 != now.SHA256 {
		what := "data of task " + was.Name
		if was.Path != "" {
			what = "data file " + was.Path
		}
		return fmt.Errorf("the %s changed since the run started (%s, now %s); restore it, or start a new run", what, was.SHA256, now.SHA256)
	}
	if was.SpecSHA256 != now.SpecSHA256 {
		return fmt.Errorf("the task spec %s changed since the run started (%s, now %s); restore it, or start a new run", was.Spec, was.SpecSHA256, now.SpecSHA256)
	}
	return nil
}
