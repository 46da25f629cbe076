package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"time"
)

// migrateCompact moves a version-8 database's calls, nodes and cache into
// the compact tables of migration 9 and drops the old tables. Every call
// keeps its id, texts byte for byte, usage, latency and time; an item's calls
// become one batch, or two when a checkpoint falls between them (a resume
// keeps the calls up to the checkpoint and drops the rest).
func migrateCompact(ctx context.Context, s *Store, sqlTx *sql.Tx) error {
	drop := `DROP TABLE calls; DROP TABLE nodes; DROP TABLE cache; ALTER TABLE cache_v9 RENAME TO cache;`
	var any bool
	if err := sqlTx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM calls) OR EXISTS (SELECT 1 FROM nodes)
		OR EXISTS (SELECT 1 FROM cache)`).Scan(&any); err != nil {
		return err
	}
	if !any { // a new database
		_, err := sqlTx.ExecContext(ctx, drop)
		return err
	}
	if err := s.readyEncoder(ctx, sqlTx); err != nil {
		return err
	}
	// The memo learns nothing here: the transaction is not committed yet.
	tx := &writeTx{Tx: sqlTx, s: s}
	if err := migrateCalls(ctx, s, tx); err != nil {
		return fmt.Errorf("calls: %w", err)
	}
	if err := migrateNodes(ctx, s, tx); err != nil {
		return fmt.Errorf("nodes: %w", err)
	}
	if err := migrateCache(ctx, s, tx); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	_, err := tx.ExecContext(ctx, drop)
	return err
}

func migrateCalls(ctx context.Context, s *Store, tx *writeTx) error {
	rows, err := tx.QueryContext(ctx, `SELECT c.id, c.run_id, c.item_idx, c.purpose, c.request, c.response, c.prompt_tokens,
		c.completion_tokens, c.reasoning_tokens, c.requests, c.cost, c.latency_ms, c.cache_hit, c.error, c.created_at,
		COALESCE(k.call_id, 0) FROM calls c LEFT JOIN checkpoints k ON k.run_id = c.run_id AND k.item_idx = c.item_idx
		ORDER BY c.run_id, c.item_idx, c.id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	type key struct {
		run   int64
		item  int
		after bool // after the item's checkpoint
	}
	var cur key
	var batch []callRecord
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := s.insertBatch(ctx, tx, cur.run, cur.item, 0, batch, nil)
		batch = batch[:0]
		return err
	}
	for rows.Next() {
		var c Call
		var req, resp, created string
		var latencyMS float64
		var checkpoint int64
		if err := rows.Scan(&c.ID, &c.RunID, &c.Item, &c.Purpose, &req, &resp, &c.PromptTokens, &c.CompletionTokens,
			&c.ReasoningTokens, &c.Requests, &c.Cost, &latencyMS, &c.CacheHit, &c.Error, &created, &checkpoint); err != nil {
			return err
		}
		k := key{c.RunID, c.Item, checkpoint > 0 && c.ID > checkpoint}
		if k != cur {
			if err := flush(); err != nil {
				return err
			}
			cur = k
		}
		reqID, err := tx.putBlob(ctx, []byte(req))
		if err != nil {
			return err
		}
		respID, err := tx.putBlob(ctx, []byte(resp))
		if err != nil {
			return err
		}
		c.CreatedAt, _ = time.Parse(time.RFC3339Nano, created) // unreadable: a zero time, as before
		rec := newCallRecord(c, c.ID, reqID, respID)
		rec.LatencyUS = int64(math.Round(latencyMS * 1000)) // as msToDuration read it
		batch = append(batch, rec)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return flush()
}

func migrateNodes(ctx context.Context, s *Store, tx *writeTx) error {
	rows, err := tx.QueryContext(ctx, `SELECT run_id, item_idx, node_id, parent, depth, thought, value, selected, pruned,
		terminal, visits FROM nodes ORDER BY run_id, item_idx, node_id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	var tree []Node
	flush := func() error {
		if len(tree) == 0 {
			return nil
		}
		err := tx.putTree(ctx, tree[0].RunID, tree[0].Item, tree)
		tree = tree[:0]
		return err
	}
	for rows.Next() {
		var n Node
		if err := rows.Scan(&n.RunID, &n.Item, &n.ID, &n.Parent, &n.Depth, &n.Thought, &n.Value, &n.Selected, &n.Pruned,
			&n.Terminal, &n.Visits); err != nil {
			return err
		}
		if len(tree) > 0 && (tree[0].RunID != n.RunID || tree[0].Item != n.Item) {
			if err := flush(); err != nil {
				return err
			}
		}
		tree = append(tree, n)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return flush()
}

// migrateCache keeps every entry; which request and run made an old entry
// is not known.
func migrateCache(ctx context.Context, s *Store, tx *writeTx) error {
	rows, err := tx.QueryContext(ctx, `SELECT key, response, latency_ms FROM cache`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var key, resp string
		var ms float64
		if err := rows.Scan(&key, &resp, &ms); err != nil {
			return err
		}
		id, err := tx.putBlob(ctx, []byte(resp))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO cache_v9 (key, response, latency_us) VALUES (?, ?, ?)`,
			cacheKey(key), id, int64(math.Round(ms*1000))); err != nil {
			return err
		}
	}
	return rows.Err()
}
