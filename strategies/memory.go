package strategies

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/reasonbench/reasonbench/strategies/reading"
)

// Memory is Reflexion's long-term memory: reflections kept per instance
// outside the strategy, so they survive a crash and a later run can start
// from them. The engine's memory is the store's reflections table, named per
// run ("run:<id>"); a nil Env.Memory keeps reflections in the strategy for
// the one item.
type Memory interface {
	// Reflections returns this run's reflections on the instance, in trial
	// order.
	Reflections(ctx context.Context, instanceKey string) ([]reading.Reflection, error)
	// Add stores the reflection written after trial (0-based), replacing one
	// stored earlier for the same trial (a trial redone after a crash).
	Add(ctx context.Context, instanceKey string, trial int, text string) error
	// From returns the reflections run runID stored on the instance, in
	// trial order (memory_from).
	From(ctx context.Context, runID int64, instanceKey string) ([]reading.Reflection, error)
}

// errNoMemory is returned by From on a memory that keeps nothing.
var errNoMemory = errors.New("memory_from: this environment keeps no long-term memory (run through the engine with a store)")

// localMemory keeps reflections in process, for one item's solve.
type localMemory struct {
	mu sync.Mutex
	by map[string][]reading.Reflection
}

func (m *localMemory) Reflections(_ context.Context, key string) ([]reading.Reflection, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.by[key]), nil
}

func (m *localMemory) Add(_ context.Context, key string, trial int, text string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.by == nil {
		m.by = map[string][]reading.Reflection{}
	}
	rs := slices.DeleteFunc(m.by[key], func(r reading.Reflection) bool { return r.Trial == trial })
	m.by[key] = append(rs, reading.Reflection{Trial: trial, Text: text})
	slices.SortStableFunc(m.by[key], func(a, b reading.Reflection) int { return a.Trial - b.Trial })
	return nil
}

func (m *localMemory) From(context.Context, int64, string) ([]reading.Reflection, error) {
	return nil, errNoMemory
}

// memory returns env.Memory or an in-process one.
func (env Env) memory() Memory {
	if env.Memory == nil {
		return &localMemory{}
	}
	return env.Memory
}
