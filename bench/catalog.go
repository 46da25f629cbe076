package bench

import (
	"github.com/reasonbench/reasonbench/catalog"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/simulator"
	"github.com/reasonbench/reasonbench/tasks"
)

// The task catalog lives in catalog/ (readers reopen tasks without the
// engine); these names keep the engine's callers as they were.

// TaskSpec declares a bundled task (catalog.TaskSpec).
type TaskSpec = catalog.TaskSpec

// FileTaskPrefix names a file task: --task file:PATH.jsonl (or .csv).
const FileTaskPrefix = catalog.FileTaskPrefix

// Tasks lists every bundled task (catalog.Tasks).
func Tasks() []TaskSpec { return catalog.Tasks() }

// LookupTask finds a task by name (catalog.LookupTask).
func LookupTask(name string) (TaskSpec, error) { return catalog.LookupTask(name) }

// IsFileTask tells a file task's name.
func IsFileTask(name string) bool { return catalog.IsFileTask(name) }

// OpenTask builds the task a configuration names (catalog.OpenTask).
func OpenTask(name, spec, rule string) (tasks.Task, error) { return catalog.OpenTask(name, spec, rule) }

// TaskWithRule builds the task scored by the named rule (catalog.TaskWithRule).
func TaskWithRule(ts TaskSpec, rule string) (tasks.Task, error) {
	return catalog.TaskWithRule(ts, rule)
}

// NewSim builds the simulated model answering every bundled task and file
// tasks (simulator.New).
func NewSim(p sim.Params) (*sim.Model, error) { return simulator.New(p) }
