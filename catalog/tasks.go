// Package catalog lists what runs are made of and readers reopen: the
// bundled tasks, file tasks, scoring rules and the papers' presets (no
// engine, no simulator).
package catalog

import (
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/suggest"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/arithmetic"
	"github.com/reasonbench/reasonbench/tasks/code"
	"github.com/reasonbench/reasonbench/tasks/creative"
	"github.com/reasonbench/reasonbench/tasks/crosswords"
	"github.com/reasonbench/reasonbench/tasks/game24"
	"github.com/reasonbench/reasonbench/tasks/gsm8k"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
	"github.com/reasonbench/reasonbench/tasks/math500"
	"github.com/reasonbench/reasonbench/tasks/tau"
)

// TaskSpec declares a bundled task. The simulated model's answers to it
// live in simulator/ (simulator.New).
type TaskSpec struct {
	Name string
	Doc  string
	New  func() tasks.Task
	// Probe is a small range the task is tested on with io on the
	// simulator (TestEveryTaskRunsItsProbe), so a registered task that no
	// test runs fails a test.
	Probe TaskProbe
}

// TaskProbe is a task's probe run: a small range, with io unless it names
// a strategy (and its parameters) the task needs.
type TaskProbe struct {
	Range    string
	Strategy string
	Params   map[string]any
}

// Tasks lists every bundled task. Adding one means writing its package and
// adding a line here (and, for the simulated model, its responder package
// under simulator/ and a line in simulator.New).
func Tasks() []TaskSpec {
	list := []TaskSpec{
		{Name: "game24", Doc: "Game of 24: 1362 puzzles from 4nums.com, ranked easy to hard (ToT uses 900:1000)",
			New: func() tasks.Task { return game24.NewTask() }, Probe: TaskProbe{Range: "900:903"}},
		{Name: "hotpotqa", Doc: "HotpotQA: 100 hard distractor-setting questions (Reflexion's sample), EM and F1; contexts gold|distractor|none, ReAct over a local docstore",
			New: func() tasks.Task { return hotpotqa.NewTask() }, Probe: TaskProbe{Range: "0:3"}},
		{Name: "gsm8k", Doc: "GSM8K: the 1,319 grade-school math word problems of the test split, numeric answers; few-shot prompts of our own",
			New: gsm8k.NewTask, Probe: TaskProbe{Range: "0:3"}},
		{Name: gsm8k.DebateName, Doc: "GSM8K's test problems in the multi-agent debate reference's order (Python's random.seed(0), random.shuffle of the file's lines): 0:100 are its 100 questions",
			New: gsm8k.NewDebateTask, Probe: TaskProbe{Range: "0:3"}},
		{Name: arithmetic.Name, Doc: "the multi-agent debate reference's arithmetic: a+b*c+d-e*f for six integers in [0, 30) drawn by numpy's np.random.seed(0), 100 questions; rule debate-arithmetic is gen_math.py's",
			New: arithmetic.NewTask, Probe: TaskProbe{Range: "0:3"}},
		{Name: "math500", Doc: "MATH-500: the 500-problem MATH test subset of Let's Verify Step by Step (openai/prm800k, MIT), levels 1-5 and subjects as labels; the last \\boxed{} answer by value and structure (rule math), or the original MATH string rule (--rule hendrycks)",
			New: math500.NewTask, Probe: TaskProbe{Range: "0:3"}},
		{Name: "crosswords", Doc: "Mini Crosswords: the ToT paper's 20 test 5x5 puzzles (mini0505 0, 5, ..., 95), letter/word/game; the reference's DFS with tot_dfs",
			New: func() tasks.Task { return crosswords.NewTask() }, Probe: TaskProbe{Range: "0:2"}},
		{Name: "creative", Doc: "Creative Writing: the ToT paper's 100 inputs of four sentences; four paragraphs ending in them; coherency 1-10 by a judge model (--judge-model, --judge-base-url; on the simulator a declared simulated judge)",
			New: func() tasks.Task { return creative.NewTask() }, Probe: TaskProbe{Range: "0:2"}},
		{Name: "humaneval", Doc: "HumanEval: the 164 Python problems of openai/human-eval (MIT); verdict = the hidden tests pass in the sandbox; pass@k with io/cot k; rules isolated (default) and reference (the Reflexion executor's shared namespace)",
			New: code.NewHumanEval, Probe: TaskProbe{Range: "0:2"}},
		{Name: "mbpp", Doc: "MBPP: the 397 typed Python problems (MultiPL-E mbpp-py, as in the Reflexion runs; MIT); verdict = the hidden tests pass in the sandbox; rules isolated (default) and reference",
			New: code.NewMBPP, Probe: TaskProbe{Range: "0:2"}},
	}
	return append(list, tauTasks()...)
}

// tauTasks are τ-bench's domains (tasks/tau): airline's test split, and
// retail's test, train and dev, at the repository's HEAD (59a200c) and at
// 7362a17, the version of GPT-4o's logged run (-7362a17).
func tauTasks() []TaskSpec {
	splits := map[string][]string{"airline": {"test"}, "retail": {"test", "train", "dev"}}
	var out []TaskSpec
	for _, version := range tau.Versions {
		for _, domain := range tau.Domains {
			for _, split := range splits[domain] {
				doc := fmt.Sprintf("τ-bench %s, %s split (sierra-research/tau-bench at %s, MIT): an agent follows the domain's policy, talks with a simulated user (--user-model) and calls tools on its own copy of the database; reward as the reference computes it, pass^k over --set trials=N", domain, split, tau.Commits[version][:7])
				if version != tau.VersionHead {
					doc += "; the version of GPT-4o's logged airline run (users' addresses with province, its instructions and reward rule)"
				}
				out = append(out, TaskSpec{Name: tau.TaskName(domain, version, split), Doc: doc,
					New: func() tasks.Task {
						t, err := tau.NewTask(domain, version, split)
						if err != nil {
							panic(err) // embedded data: tested
						}
						return t
					}, Probe: TaskProbe{Range: "0:2", Strategy: "react", Params: map[string]any{"protocol": "tools", "max_steps": 30}}})
			}
		}
	}
	return out
}

// LookupTask finds a task by name.
func LookupTask(name string) (TaskSpec, error) {
	var names []string
	for _, t := range Tasks() {
		if t.Name == name {
			return t, nil
		}
		names = append(names, t.Name)
	}
	if near := suggest.Nearest(name, names); near != "" {
		return TaskSpec{}, fmt.Errorf("unknown task %q: did you mean %s? (known: %s; or file:PATH.jsonl for your own data)", name, near, strings.Join(names, ", "))
	}
	return TaskSpec{}, fmt.Errorf("unknown task %q (known: %s; or file:PATH.jsonl for your own data)", name, strings.Join(names, ", "))
}
