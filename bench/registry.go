package bench

import (
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/llm/sim"
	simcreative "github.com/reasonbench/reasonbench/simulator/creative"
	simcrosswords "github.com/reasonbench/reasonbench/simulator/crosswords"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/creative"
	"github.com/reasonbench/reasonbench/tasks/crosswords"
	"github.com/reasonbench/reasonbench/tasks/game24"
	"github.com/reasonbench/reasonbench/tasks/gsm8k"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
	"github.com/reasonbench/reasonbench/tasks/qa"
)

// TaskSpec declares a bundled task and how the simulator answers it.
type TaskSpec struct {
	Name string
	Doc  string
	New  func() tasks.Task
	Sim  func() sim.Responder
}

// Tasks lists every bundled task. Adding one means writing its package and
// adding a line here.
func Tasks() []TaskSpec {
	return []TaskSpec{
		{Name: "game24", Doc: "Game of 24: 1362 puzzles from 4nums.com, ranked easy to hard (ToT uses 900:1000)",
			New: func() tasks.Task { return game24.NewTask() }, Sim: func() sim.Responder { return game24.NewSimResponder() }},
		{Name: "hotpotqa", Doc: "HotpotQA: 100 hard distractor-setting questions (Reflexion's sample), EM and F1; contexts gold|distractor|none, ReAct over a local docstore",
			New: func() tasks.Task { return hotpotqa.NewTask() }, Sim: func() sim.Responder { return hotpotqa.SimResponder{} }},
		{Name: "gsm8k", Doc: "GSM8K: the 1,319 grade-school math word problems of the test split, numeric answers; few-shot prompts of our own",
			New: gsm8k.NewTask, Sim: func() sim.Responder { return qa.SimResponder{} }},
		{Name: "crosswords", Doc: "Mini Crosswords: the ToT paper's 20 test 5x5 puzzles (mini0505 0, 5, ..., 95), letter/word/game; the reference's DFS with tot_dfs",
			New: func() tasks.Task { return crosswords.NewTask() }, Sim: func() sim.Responder { return simcrosswords.Responder{} }},
		{Name: "creative", Doc: "Creative Writing: the ToT paper's 100 inputs of four sentences; four paragraphs ending in them; coherency 1-10 by a judge model (--judge-model, --judge-base-url; on the simulator a declared simulated judge)",
			New: func() tasks.Task { return creative.NewTask() }, Sim: func() sim.Responder { return simcreative.Responder{} }},
	}
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
	return TaskSpec{}, fmt.Errorf("unknown task %q (known: %s; or file:PATH.jsonl for your own data)", name, strings.Join(names, ", "))
}

// NewSim builds the simulated model answering every bundled task and file
// tasks. The qa responder (file tasks, GSM8K) comes first and answers only
// the qa templates. No responder looks a question up in bundled data: they
// answer from what the prompt shows (tasks/reading), so a question answers
// alike whichever task asks it, in process or through serve-sim.
func NewSim(p sim.Params) (*sim.Model, error) {
	rs := []sim.Responder{qa.SimResponder{}}
	for _, t := range Tasks() {
		if r := t.Sim(); r != sim.Responder(qa.SimResponder{}) {
			rs = append(rs, r)
		}
	}
	return sim.New(p, rs...)
}
