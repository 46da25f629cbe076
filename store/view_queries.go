package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Read queries for bench view: pages of items without their detail JSON, so
// a run page reads only what it shows.

// ItemQuery selects a page of a run's items.
type ItemQuery struct {
	Filter string // "", correct, wrong, failed or hit_limit
	Search string // substring of the input, case-insensitive
	Offset int
	Limit  int // 0: 50
}

// ItemFilters lists the filters ItemQuery accepts.
var ItemFilters = []string{"correct", "wrong", "failed", "hit_limit"}

// ItemRow is an item without its detail.
type ItemRow struct {
	Index    int
	Key      string
	Input    string
	Output   string
	Correct  bool
	Score    float64
	Tokens   int
	Calls    int
	Cost     float64
	Wall     float64
	Error    string
	HitLimit bool
}

// ItemPage returns one page of a run's items and how many match in all.
func (s *Store) ItemPage(ctx context.Context, runID int64, q ItemQuery) ([]ItemRow, int, error) {
	if q.Limit <= 0 {
		q.Limit = 50
	}
	hitLimit := `(COALESCE(json_extract(detail, '$.hit_limit'), 0) = 1 OR COALESCE(json_extract(metrics, '$.hit_limit'), 0) > 0)`
	where := []string{`run_id = ?`}
	args := []any{runID}
	switch q.Filter {
	case "":
	case "correct":
		where = append(where, `correct = 1`)
	case "wrong":
		where = append(where, `correct = 0 AND error = ''`)
	case "failed":
		where = append(where, `error != ''`)
	case "hit_limit":
		where = append(where, hitLimit)
	default:
		return nil, 0, fmt.Errorf("unknown item filter %q (known: %s)", q.Filter, strings.Join(ItemFilters, ", "))
	}
	if q.Search != "" {
		where = append(where, `instr(lower(input), lower(?)) > 0`)
		args = append(args, q.Search)
	}
	w := strings.Join(where, ` AND `)
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM items WHERE `+w, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("items of run %d: %w", runID, err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT idx, key, substr(input, 1, 400), substr(output, 1, 400), correct, score,
		prompt_tokens + completion_tokens, calls, cost, wall_seconds, error, `+hitLimit+`
		FROM items WHERE `+w+` ORDER BY idx LIMIT ? OFFSET ?`, append(args, q.Limit, q.Offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("items of run %d: %w", runID, err)
	}
	defer rows.Close()
	var out []ItemRow
	for rows.Next() {
		var r ItemRow
		if err := rows.Scan(&r.Index, &r.Key, &r.Input, &r.Output, &r.Correct, &r.Score, &r.Tokens, &r.Calls, &r.Cost,
			&r.Wall, &r.Error, &r.HitLimit); err != nil {
			return nil, 0, fmt.Errorf("items of run %d: %w", runID, err)
		}
		out = append(out, r)
	}
	return out, total, rows.Err()
}

// GetItem returns one item with its detail; ErrNotFound if the run has none
// with that index.
func (s *Store) GetItem(ctx context.Context, runID int64, idx int) (Item, error) {
	items, err := s.queryItems(ctx, `WHERE run_id = ? AND idx = ?`, runID, idx)
	if err != nil {
		return Item{}, err
	}
	if len(items) == 0 {
		return Item{}, fmt.Errorf("run %d item %d: %w", runID, idx, ErrNotFound)
	}
	return items[0], nil
}

func (s *Store) queryItems(ctx context.Context, where string, args ...any) ([]Item, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, idx, key, input, output, correct, score, metrics, detail,
		prompt_tokens, completion_tokens, reasoning_tokens, calls, requests, cost, wall_seconds, error FROM items `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("items: %w", err)
	}
	defer rows.Close()
	var out []Item
	for rows.Next() {
		it, err := scanItem(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

func scanItem(rows *sql.Rows) (Item, error) {
	var it Item
	var metrics, detail string
	if err := rows.Scan(&it.RunID, &it.Index, &it.Key, &it.Input, &it.Output, &it.Correct, &it.Score, &metrics, &detail,
		&it.PromptTokens, &it.CompletionTokens, &it.ReasoningTokens, &it.Calls, &it.Requests, &it.Cost, &it.WallSeconds, &it.Error); err != nil {
		return Item{}, fmt.Errorf("items: %w", err)
	}
	if err := json.Unmarshal([]byte(metrics), &it.Metrics); err != nil {
		return Item{}, fmt.Errorf("metrics of item %d: %w", it.Index, err)
	}
	it.Detail = []byte(detail)
	return it, nil
}

// RunProgress is what the runs page polls while a run is running.
type RunProgress struct {
	Status  string  `json:"status"`
	Done    int     `json:"done"`
	Correct int     `json:"correct"`
	Score   float64 `json:"score"`
	Tokens  int     `json:"tokens"`
	Calls   int     `json:"calls"`
	Cost    float64 `json:"cost"`
}

// Progress returns a run's status and counts, from aggregates only.
func (s *Store) Progress(ctx context.Context, runID int64) (RunProgress, error) {
	var p RunProgress
	err := s.db.QueryRowContext(ctx, `SELECT status FROM runs WHERE id = ?`, runID).Scan(&p.Status)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("run %d: %w", runID, ErrNotFound)
	}
	if err != nil {
		return p, fmt.Errorf("run %d: %w", runID, err)
	}
	err = s.db.QueryRowContext(ctx, `SELECT count(*), COALESCE(sum(correct), 0), COALESCE(sum(score), 0) FROM items WHERE run_id = ?`,
		runID).Scan(&p.Done, &p.Correct, &p.Score)
	if err != nil {
		return p, fmt.Errorf("progress of run %d: %w", runID, err)
	}
	t, err := s.Totals(ctx, runID)
	if err != nil {
		return p, err
	}
	p.Tokens, p.Calls, p.Cost = t.PromptTokens+t.CompletionTokens, t.Calls, t.Cost
	return p, nil
}

// Verdict is one item's result in a comparison.
type Verdict struct {
	Index   int
	Input   string
	Output  string
	Correct bool
	Score   float64
	Error   string
}

// Verdicts returns every item's verdict for a run, without detail, by index.
func (s *Store) Verdicts(ctx context.Context, runID int64) (map[int]Verdict, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT idx, substr(input, 1, 300), substr(output, 1, 300), correct, score, error
		FROM items WHERE run_id = ?`, runID)
	if err != nil {
		return nil, fmt.Errorf("verdicts of run %d: %w", runID, err)
	}
	defer rows.Close()
	out := map[int]Verdict{}
	for rows.Next() {
		var v Verdict
		if err := rows.Scan(&v.Index, &v.Input, &v.Output, &v.Correct, &v.Score, &v.Error); err != nil {
			return nil, fmt.Errorf("verdicts of run %d: %w", runID, err)
		}
		out[v.Index] = v
	}
	return out, rows.Err()
}
