package store

import (
	"context"
	"fmt"
)

// Execution is one run of a model-written program in the sandbox, recorded
// with its item. Site names where it sits in the strategy's or scorer's own
// program ("hidden", "i2/internal/3"), so a rerun or resume replaces it.
type Execution struct {
	RunID      int64   `json:"-"`
	Item       int     `json:"-"`
	Site       string  `json:"site"`
	Program    string  `json:"program"`
	Stdin      string  `json:"stdin,omitempty"`
	Status     string  `json:"status"` // sandbox.Status: ok, exit, timeout, cpu, memory, output, procs, crash
	ExitCode   int     `json:"exit_code"`
	Signal     string  `json:"signal,omitempty"`
	Stdout     string  `json:"stdout"`
	Stderr     string  `json:"stderr"`
	Truncated  bool    `json:"truncated,omitempty"`
	DurationMS float64 `json:"duration_ms"`
}

// PutExecution stores one execution, replacing one at the same site.
func (s *Store) PutExecution(ctx context.Context, e Execution) error {
	_, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO executions (run_id, item_idx, site, program, stdin,
		status, exit_code, signal, stdout, stderr, truncated, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.RunID, e.Item, e.Site, e.Program, e.Stdin, e.Status, e.ExitCode, e.Signal, e.Stdout, e.Stderr, e.Truncated, e.DurationMS)
	if err != nil {
		return fmt.Errorf("put execution %s of item %d: %w", e.Site, e.Item, err)
	}
	return nil
}

// Executions returns an item's executions ordered by site.
func (s *Store) Executions(ctx context.Context, runID int64, item int) ([]Execution, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT site, program, stdin, status, exit_code, signal, stdout, stderr,
		truncated, duration_ms FROM executions WHERE run_id = ? AND item_idx = ? ORDER BY site`, runID, item)
	if err != nil {
		return nil, fmt.Errorf("executions of run %d item %d: %w", runID, item, err)
	}
	defer rows.Close()
	var out []Execution
	for rows.Next() {
		e := Execution{RunID: runID, Item: item}
		if err := rows.Scan(&e.Site, &e.Program, &e.Stdin, &e.Status, &e.ExitCode, &e.Signal, &e.Stdout, &e.Stderr,
			&e.Truncated, &e.DurationMS); err != nil {
			return nil, fmt.Errorf("executions of run %d item %d: %w", runID, item, err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
