package store

import (
	"context"
	"encoding/json"
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
	Calls            int
	Requests         int
	Cost             float64
	WallSeconds      float64
	Error            string
}

// PutItem stores an item result, replacing an earlier one for the same index.
func (s *Store) PutItem(ctx context.Context, it Item) error {
	metrics, err := json.Marshal(it.Metrics)
	if err != nil {
		return fmt.Errorf("put item %d: %w", it.Index, err)
	}
	if it.Metrics == nil {
		metrics = []byte("{}")
	}
	_, err = s.db.ExecContext(ctx, `INSERT OR REPLACE INTO items
		(run_id, idx, key, input, output, correct, score, metrics, detail, prompt_tokens, completion_tokens, calls,
		 requests, cost, wall_seconds, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		it.RunID, it.Index, it.Key, it.Input, it.Output, it.Correct, it.Score, string(metrics), orEmptyObject(it.Detail),
		it.PromptTokens, it.CompletionTokens, it.Calls, it.Requests, it.Cost, it.WallSeconds, it.Error)
	if err != nil {
		return fmt.Errorf("put item %d of run %d: %w", it.Index, it.RunID, err)
	}
	return nil
}

// Items returns a run's items ordered by index.
func (s *Store) Items(ctx context.Context, runID int64) ([]Item, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, idx, key, input, output, correct, score, metrics, detail,
		prompt_tokens, completion_tokens, calls, requests, cost, wall_seconds, error FROM items WHERE run_id = ? ORDER BY idx`, runID)
	if err != nil {
		return nil, fmt.Errorf("items of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []Item
	for rows.Next() {
		var it Item
		var metrics, detail string
		if err := rows.Scan(&it.RunID, &it.Index, &it.Key, &it.Input, &it.Output, &it.Correct, &it.Score, &metrics, &detail,
			&it.PromptTokens, &it.CompletionTokens, &it.Calls, &it.Requests, &it.Cost, &it.WallSeconds, &it.Error); err != nil {
			return nil, fmt.Errorf("items of run %d: %w", runID, err)
		}
		if err := json.Unmarshal([]byte(metrics), &it.Metrics); err != nil {
			return nil, fmt.Errorf("items of run %d: metrics of item %d: %w", runID, it.Index, err)
		}
		it.Detail = json.RawMessage(detail)
		out = append(out, it)
	}
	return out, rows.Err()
}
