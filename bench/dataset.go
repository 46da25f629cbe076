package bench

import (
	"fmt"

	"github.com/reasonbench/reasonbench/tasks"
)

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
