package strategies

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// Reflection is one entry of a long-term memory: what the model wrote
// about a failed trial on an instance.
type Reflection struct {
	RunID int64  `json:"run_id,omitempty"` // the run that wrote it (0: not stored)
	Trial int    `json:"trial"`            // the trial it reflects on, 0-based
	Text  string `json:"text"`
}

// Memory is Reflexion's long-term memory: reflections kept per instance
// outside the strategy, so they survive a crash and a later run can start
// from them. The engine's memory is the store's reflections table, named per
// run ("run:<id>"); a nil Env.Memory keeps reflections in the strategy for
// the one item.
type Memory interface {
	// Reflections returns this run's reflections on the instance, in trial
	// order.
	Reflections(ctx context.Context, instanceKey string) ([]Reflection, error)
	// Add stores the reflection written after trial (0-based), replacing one
	// stored earlier for the same trial (a trial redone after a crash).
	Add(ctx context.Context, instanceKey string, trial int, text string) error
	// From returns the reflections run runID stored on the instance, in
	// trial order (memory_from).
	From(ctx context.Context, runID int64, instanceKey string) ([]Reflection, error)
}

// errNoMemory is returned by From on a memory that keeps nothing.
var errNoMemory = errors.New("memory_from: this environment keeps no long-term memory (run through the engine with a store)")

// localMemory keeps reflections in process, for one item's solve.
type localMemory struct {
	mu sync.Mutex
	by map[string][]Reflection
}

func (m *localMemory) Reflections(_ context.Context, key string) ([]Reflection, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.by[key]), nil
}

func (m *localMemory) Add(_ context.Context, key string, trial int, text string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.by == nil {
		m.by = map[string][]Reflection{}
	}
	rs := slices.DeleteFunc(m.by[key], func(r Reflection) bool { return r.Trial == trial })
	m.by[key] = append(rs, Reflection{Trial: trial, Text: text})
	slices.SortStableFunc(m.by[key], func(a, b Reflection) int { return a.Trial - b.Trial })
	return nil
}

func (m *localMemory) From(context.Context, int64, string) ([]Reflection, error) {
	return nil, errNoMemory
}

// memory returns env.Memory or an in-process one.
func (env Env) memory() Memory {
	if env.Memory == nil {
		return &localMemory{}
	}
	return env.Memory
}
