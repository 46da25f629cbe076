package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// Item is the result of one task instance within a run.
type Item struct {
	RunID            int64
	Index            int
	Key              string
	Input            string
	Output           string // the final answer text
	Correct          bool   // the primary verdict
	Score            float64
	Metrics          map[string]float64
	Detail           json.RawMessage // strategy-specific: samples, votes, trials
	PromptTokens     int
	CompletionTokens int
	ReasoningTokens  int // part of CompletionTokens
	Calls            int
	Requests         int
	Cost             float64
	WallSeconds      float64
	Error            string
}

// PutItem stores an item result, replacing an earlier one for the same
// index. A stored item is finished, so its resume checkpoint goes in the
// same transaction: a resume never redoes it, and checkpoints (a LATS
// state can be most of a database) would otherwise stay for good.
func (s *Store) PutItem(ctx context.Context, it Item) error {
	metrics, err := json.Marshal(it.Metrics)
	if err != nil {
		return fmt.Errorf("put item %d: %w", it.Index, err)
	}
	if it.Metrics == nil {
		metrics = []byte("{}")
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("put item %d of run %d: %w", it.Index, it.RunID, err)
	}
	defer tx.Rollback()
	_, err = s.exec(ctx, tx, qItemPut,
		it.RunID, it.Index, it.Key, it.Input, it.Output, it.Correct, it.Score, string(metrics), orEmptyObject(it.Detail),
		it.PromptTokens, it.CompletionTokens, it.ReasoningTokens, it.Calls, it.Requests, it.Cost, it.WallSeconds, it.Error)
	if err != nil {
		return fmt.Errorf("put item %d of run %d: %w", it.Index, it.RunID, err)
	}
	if _, err := s.exec(ctx, tx, qCheckpointDrop, it.RunID, it.Index); err != nil {
		return fmt.Errorf("put item %d of run %d: drop its checkpoint: %w", it.Index, it.RunID, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("put item %d of run %d: %w", it.Index, it.RunID, err)
	}
	return nil
}

// DropFinishedCheckpoints deletes the checkpoints of items that have a
// result (databases written before PutItem dropped them kept them all).
func (s *Store) DropFinishedCheckpoints(ctx context.Context) (int, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM checkpoints WHERE EXISTS
		(SELECT 1 FROM items i WHERE i.run_id = checkpoints.run_id AND i.idx = checkpoints.item_idx)`)
	if err != nil {
		return 0, fmt.Errorf("drop checkpoints of finished items: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// Items returns a run's items ordered by index.
func (s *Store) Items(ctx context.Context, runID int64) ([]Item, error) {
	items, err := s.queryItems(ctx, `WHERE run_id = ? ORDER BY idx`, runID)
	if err != nil {
		return nil, fmt.Errorf("run %d: %w", runID, err)
	}
	return items, nil
}

// ItemIndexes returns the indexes of a run's stored items.
func (s *Store) ItemIndexes(ctx context.Context, runID int64) (map[int]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT idx FROM items WHERE run_id = ?`, runID)
	if err != nil {
		return nil, fmt.Errorf("items of run %d: %w", runID, err)
	}
	defer rows.Close()
	out := map[int]bool{}
	for rows.Next() {
		var i int
		if err := rows.Scan(&i); err != nil {
			return nil, fmt.Errorf("items of run %d: %w", runID, err)
		}
		out[i] = true
	}
	return out, rows.Err()
}

// DropIncomplete removes what items without a stored result left behind
// when the run stopped: their calls, tree nodes and steps, except what a
// checkpoint covers (calls up to its call id, steps of the trials before its
// next trial), so a resume redoes exactly the unfinished work.
func (s *Store) DropIncomplete(ctx context.Context, runID int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("drop incomplete items of run %d: %w", runID, err)
	}
	defer tx.Rollback()
	const incomplete = `run_id = ? AND item_idx NOT IN (SELECT idx FROM items WHERE run_id = ?)`
	stmts := []string{
		`DELETE FROM call_batches WHERE ` + incomplete + ` AND last_id > COALESCE((SELECT c.call_id FROM checkpoints c
			WHERE c.run_id = call_batches.run_id AND c.item_idx = call_batches.item_idx), 0)`,
		`DELETE FROM steps WHERE ` + incomplete + ` AND trial >= COALESCE((SELECT c.next_trial FROM checkpoints c
			WHERE c.run_id = steps.run_id AND c.item_idx = steps.item_idx), 0)`,
		`DELETE FROM trees WHERE ` + incomplete,
	}
	for _, q := range stmts {
		if _, err := tx.ExecContext(ctx, q, runID, runID); err != nil {
			return fmt.Errorf("drop incomplete items of run %d: %w", runID, err)
		}
	}
	return tx.Commit()
}

// SaveCheckpoint records that an item's trials before nextTrial are done,
// with the strategy's state; the calls recorded so far are kept on resume
// (flush the item's CallLog first). A batch of calls is never split by a
// checkpoint, so it is kept or dropped whole.
func (s *Store) SaveCheckpoint(ctx context.Context, runID int64, item, nextTrial int, state json.RawMessage) error {
	_, err := s.db.ExecContext(ctx, `INSERT OR REPLACE INTO checkpoints (run_id, item_idx, next_trial, state, call_id)
		VALUES (?, ?, ?, ?, (SELECT COALESCE(max(last_id), 0) FROM call_batches WHERE run_id = ? AND item_idx = ?))`,
		runID, item, nextTrial, orEmptyObject(state), runID, item)
	if err != nil {
		return fmt.Errorf("checkpoint item %d of run %d: %w", item, runID, err)
	}
	return nil
}

// LoadCheckpoint returns an item's checkpoint; ok is false when there is none.
func (s *Store) LoadCheckpoint(ctx context.Context, runID int64, item int) (nextTrial int, state json.RawMessage, ok bool, err error) {
	var st string
	err = s.db.QueryRowContext(ctx, `SELECT next_trial, state FROM checkpoints WHERE run_id = ? AND item_idx = ?`, runID, item).Scan(&nextTrial, &st)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil, false, nil
	}
	if err != nil {
		return 0, nil, false, fmt.Errorf("checkpoint of item %d of run %d: %w", item, runID, err)
	}
	return nextTrial, json.RawMessage(st), true, nil
}
