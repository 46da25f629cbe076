package store

import (
	"context"
	"fmt"
	"time"
)

// Reflection is one entry of a long-term memory (Reflexion): what the model
// wrote about a failed trial on an instance. A memory is a name ("run:7" by
// default, see RunMemory) under which reflections accumulate per task and
// instance key.
type Reflection struct {
	ID          int64
	Task        string
	InstanceKey string
	Memory      string
	RunID       int64 // the run that wrote it
	Trial       int   // the trial it reflects on, 0-based
	Text        string
	CreatedAt   time.Time
}

// RunMemory is the name of a run's own memory.
func RunMemory(runID int64) string { return fmt.Sprintf("run:%d", runID) }

// AddReflection stores a reflection, replacing one the same run stored
// earlier in the same memory for the same instance and trial (a trial
// redone after a crash), in one transaction.
func (s *Store) AddReflection(ctx context.Context, r Reflection) error {
	if r.CreatedAt.IsZero() {
		r.CreatedAt = time.Now()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("add reflection: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM reflections WHERE task = ? AND instance_key = ? AND memory = ? AND run_id = ? AND trial = ?`,
		r.Task, r.InstanceKey, r.Memory, r.RunID, r.Trial); err != nil {
		return fmt.Errorf("add reflection: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO reflections (task, instance_key, memory, run_id, trial, text, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, r.Task, r.InstanceKey, r.Memory, r.RunID, r.Trial, r.Text,
		r.CreatedAt.UTC().Format(time.RFC3339Nano)); err != nil {
		return fmt.Errorf("add reflection for %s %q: %w", r.Task, r.InstanceKey, err)
	}
	return tx.Commit()
}

// Reflections returns a memory's reflections on one instance of a task,
// oldest first (by run, trial, then insertion).
func (s *Store) Reflections(ctx context.Context, task, instanceKey, memory string) ([]Reflection, error) {
	return s.queryReflections(ctx, `WHERE task = ? AND instance_key = ? AND memory = ? ORDER BY run_id, trial, id`,
		task, instanceKey, memory)
}

// RunReflections returns every reflection a run wrote, by instance key,
// trial and insertion.
func (s *Store) RunReflections(ctx context.Context, runID int64) ([]Reflection, error) {
	return s.queryReflections(ctx, `WHERE run_id = ? ORDER BY instance_key, trial, id`, runID)
}

func (s *Store) queryReflections(ctx context.Context, where string, args ...any) ([]Reflection, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, task, instance_key, memory, run_id, trial, text, created_at FROM reflections `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("reflections: %w", err)
	}
	defer rows.Close()
	var out []Reflection
	for rows.Next() {
		var r Reflection
		var created string
		if err := rows.Scan(&r.ID, &r.Task, &r.InstanceKey, &r.Memory, &r.RunID, &r.Trial, &r.Text, &created); err != nil {
			return nil, fmt.Errorf("reflections: %w", err)
		}
		r.CreatedAt, _ = time.Parse(time.RFC3339Nano, created)
		out = append(out, r)
	}
	return out, rows.Err()
}
