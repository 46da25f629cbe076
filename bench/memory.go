package bench

import (
	"context"
	"fmt"

	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// runMemory is a run's long-term memory of reflections (Reflexion) in the
// store's reflections table, under the memory name "run:<id>".
type runMemory struct {
	st   *store.Store
	run  int64
	task string
}

func (m runMemory) Reflections(ctx context.Context, key string) ([]reading.Reflection, error) {
	rs, err := m.st.Reflections(ctx, m.task, key, store.RunMemory(m.run))
	return fromStore(rs), err
}

// Add stores the reflection even when the item's context is cancelled: it
// belongs to a trial that is complete.
func (m runMemory) Add(ctx context.Context, key string, trial int, text string) error {
	return m.st.AddReflection(context.WithoutCancel(ctx), store.Reflection{Task: m.task, InstanceKey: key,
		Memory: store.RunMemory(m.run), RunID: m.run, Trial: trial, Text: redact(text)})
}

// From reads the memory of run runID, which must be a run of the same task.
func (m runMemory) From(ctx context.Context, runID int64, key string) ([]reading.Reflection, error) {
	r, err := m.st.GetRun(ctx, runID)
	if err != nil {
		return nil, fmt.Errorf("memory_from: %w", err)
	}
	if r.Task != m.task {
		return nil, fmt.Errorf("memory_from: run %d is on task %s, not %s", runID, r.Task, m.task)
	}
	rs, err := m.st.Reflections(ctx, m.task, key, store.RunMemory(runID))
	return fromStore(rs), err
}

func fromStore(rs []store.Reflection) []reading.Reflection {
	out := make([]reading.Reflection, len(rs))
	for i, r := range rs {
		out[i] = reading.Reflection{RunID: r.RunID, Trial: r.Trial, Text: r.Text}
	}
	return out
}
