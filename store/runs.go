package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Run is one (task, strategy, parameters, model, seed) execution over a
// range of items.
type Run struct {
	ID          int64
	Experiment  string
	Task        string
	Strategy    string
	Params      json.RawMessage // typed parameter values, as JSON
	Model       string
	Endpoint    string // base URL without credentials; "" for the in-process simulator
	Simulated   bool
	SimParams   json.RawMessage
	Seed        int64
	Range       string
	Spec        json.RawMessage // everything needed to rerun it
	ConfigKey   string          // hash of what determines the results (not concurrency, timeouts)
	CodeVersion string
	Status      string // running, done, failed, interrupted
	StartedAt   time.Time
	FinishedAt  time.Time
	WallSeconds float64
	Error       string
}

// Run statuses.
const (
	StatusRunning     = "running"
	StatusDone        = "done"
	StatusFailed      = "failed"
	StatusInterrupted = "interrupted"
	StatusStopped     = "stopped" // by a guard-rail such as --max-cost; resumable
)

func orEmptyObject(b json.RawMessage) string {
	if len(b) == 0 {
		return "{}"
	}
	return string(b)
}

// CreateRun inserts a run in status running and returns its id.
func (s *Store) CreateRun(ctx context.Context, r Run) (int64, error) {
	return createRun(ctx, s.db, r)
}

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func createRun(ctx context.Context, db execer, r Run) (int64, error) {
	if r.StartedAt.IsZero() {
		r.StartedAt = time.Now()
	}
	res, err := db.ExecContext(ctx, `INSERT INTO runs
		(experiment, task, strategy, params, model, endpoint, simulated, sim_params, seed, item_range, spec, code_version, status, started_at, config_key)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.Experiment, r.Task, r.Strategy, orEmptyObject(r.Params), r.Model, r.Endpoint, r.Simulated,
		orEmptyObject(r.SimParams), r.Seed, r.Range, orEmptyObject(r.Spec), r.CodeVersion, StatusRunning,
		r.StartedAt.UTC().Format(time.RFC3339Nano), r.ConfigKey)
	if err != nil {
		return 0, fmt.Errorf("create run: %w", err)
	}
	return res.LastInsertId()
}

// FinishRun sets a run's final status.
func (s *Store) FinishRun(ctx context.Context, id int64, status string, wall time.Duration, runErr string) error {
	return finishRun(ctx, s.db, id, status, wall, runErr)
}

func finishRun(ctx context.Context, db execer, id int64, status string, wall time.Duration, runErr string) error {
	_, err := db.ExecContext(ctx, `UPDATE runs SET status = ?, finished_at = ?, wall_seconds = ?, error = ? WHERE id = ?`,
		status, time.Now().UTC().Format(time.RFC3339Nano), wall.Seconds(), runErr, id)
	if err != nil {
		return fmt.Errorf("finish run %d: %w", id, err)
	}
	return nil
}

const runColumns = `id, experiment, task, strategy, params, model, endpoint, simulated, sim_params, seed, item_range, spec,
	code_version, status, started_at, COALESCE(finished_at, ''), wall_seconds, error, config_key`

func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var r Run
	var params, simParams, spec, started, finished string
	err := sc.Scan(&r.ID, &r.Experiment, &r.Task, &r.Strategy, &params, &r.Model, &r.Endpoint, &r.Simulated, &simParams,
		&r.Seed, &r.Range, &spec, &r.CodeVersion, &r.Status, &started, &finished, &r.WallSeconds, &r.Error, &r.ConfigKey)
	if err != nil {
		return Run{}, err
	}
	r.Params, r.SimParams, r.Spec = json.RawMessage(params), json.RawMessage(simParams), json.RawMessage(spec)
	r.StartedAt, _ = time.Parse(time.RFC3339Nano, started)
	r.FinishedAt, _ = time.Parse(time.RFC3339Nano, finished)
	return r, nil
}

// GetRun loads one run.
func (s *Store) GetRun(ctx context.Context, id int64) (Run, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, fmt.Errorf("run %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Run{}, fmt.Errorf("run %d: %w", id, err)
	}
	return r, nil
}

// RunFilter selects runs for reports; zero value means all runs.
type RunFilter struct {
	IDs        []int64
	Last       int // the most recent N runs
	Experiment string
}

// Runs lists runs matching f, oldest first.
func (s *Store) Runs(ctx context.Context, f RunFilter) ([]Run, error) {
	q := `SELECT ` + runColumns + ` FROM runs`
	var where []string
	var args []any
	if len(f.IDs) > 0 {
		where = append(where, `id IN (`+strings.TrimSuffix(strings.Repeat("?,", len(f.IDs)), ",")+`)`)
		for _, id := range f.IDs {
			args = append(args, id)
		}
	}
	if f.Experiment != "" {
		where = append(where, `experiment = ?`)
		args = append(args, f.Experiment)
	}
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, ` AND `)
	}
	if f.Last > 0 {
		q = `SELECT * FROM (` + q + ` ORDER BY id DESC LIMIT ?) ORDER BY id`
		args = append(args, f.Last)
	} else {
		q += ` ORDER BY id`
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// SetRunSpec replaces a run's recorded spec (a resume under a new cost
// ceiling records it).
func (s *Store) SetRunSpec(ctx context.Context, id int64, spec json.RawMessage) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE runs SET spec = ? WHERE id = ?`, orEmptyObject(spec), id); err != nil {
		return fmt.Errorf("update spec of run %d: %w", id, err)
	}
	return nil
}

// MarkRunning sets a run back to running for a resume.
func (s *Store) MarkRunning(ctx context.Context, id int64) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE runs SET status = ?, error = '' WHERE id = ?`, StatusRunning, id); err != nil {
		return fmt.Errorf("resume run %d: %w", id, err)
	}
	return nil
}

// LastUnfinished returns the most recent run that is not done.
func (s *Store) LastUnfinished(ctx context.Context) (Run, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE status != ? ORDER BY id DESC LIMIT 1`, StatusDone))
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, fmt.Errorf("no unfinished run: %w", ErrNotFound)
	}
	return r, err
}

// FindRun returns the latest run of an experiment with the given config key.
func (s *Store) FindRun(ctx context.Context, experiment, configKey string) (Run, bool, error) {
	r, err := scanRun(s.db.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE experiment = ? AND config_key = ?
		ORDER BY id DESC LIMIT 1`, experiment, configKey))
	if errors.Is(err, sql.ErrNoRows) {
		return Run{}, false, nil
	}
	if err != nil {
		return Run{}, false, fmt.Errorf("find run: %w", err)
	}
	return r, true, nil
}
