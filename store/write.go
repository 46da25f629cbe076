package store

import (
	"context"
	"database/sql"
	"fmt"
)

// writeTx is a write transaction that stores blobs. The blob ids it finds
// or stores reach the store's memo only once it commits: an id from a
// rolled-back transaction may be given to other content.
type writeTx struct {
	*sql.Tx
	s       *Store
	learned []learnedBlob
}

type learnedBlob struct {
	sum memoKey
	id  int64
}

// beginWrite makes the encoder ready (committing a new dictionary first)
// and starts a write transaction. A transaction that finds blobs were
// collected since the memo was filled (by bench rm or db vacuum, in any
// process) empties the memo.
func (s *Store) beginWrite(ctx context.Context) (*writeTx, error) {
	if err := s.readyEncoder(ctx, s.db); err != nil {
		return nil, err
	}
	return s.beginWriteIn(ctx)
}

// beginWriteIn starts a write transaction without readying the encoder:
// for a writer that stores its dictionary in the transaction itself
// (readyEncoder with the transaction) and forgets the codec if it rolls
// back.
func (s *Store) beginWriteIn(ctx context.Context) (*writeTx, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	w := &writeTx{Tx: tx, s: s}
	var gen int64
	if err := s.queryRow(ctx, w, qGCGeneration).Scan(&gen); err != nil {
		tx.Rollback()
		return nil, fmt.Errorf("read gc generation: %w", err)
	}
	s.memo.checkGeneration(gen)
	return w, nil
}

// commit commits and teaches the memo the blobs the transaction used.
func (w *writeTx) commit() error {
	if err := w.Tx.Commit(); err != nil {
		return err
	}
	for _, b := range w.learned {
		w.s.memo.put(b.sum, b.id)
	}
	return nil
}

// The statements run once or more per call (or per item, or per template
// of a run) are prepared when the store opens: modernc's SQLite otherwise
// parses each one again, which was half the time of a rerun from the
// cache. (They cannot be prepared on first use: the store's one
// connection may be held by the caller's transaction.)
const (
	qGCGeneration = `SELECT generation FROM gc`
	qBlobFind     = `SELECT id, data FROM blobs WHERE hash = ?`
	qBlobInsert   = `INSERT INTO blobs (hash, data) VALUES (?, ?)`
	qCacheGet     = `SELECT c.latency_us, r.id, r.data, q.id, q.data, (SELECT generation FROM gc) FROM cache c
		JOIN blobs r ON r.id = c.response LEFT JOIN blobs q ON q.id = c.request WHERE c.key = ?`
	qCachePut = `INSERT OR IGNORE INTO cache (key, request, response, latency_us, run_id) VALUES (?, ?, ?, ?, ?)`
	qLastCall = `SELECT COALESCE(max(last_id), 0) FROM call_batches`
	qBatchPut = `INSERT INTO call_batches (last_id, run_id, item_idx, calls, requests, prompt_tokens,
		completion_tokens, reasoning_tokens, cost, hits, hit_prompt_tokens, hit_completion_tokens, hit_cost, data)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qBatchPutEvents = `INSERT INTO call_batches (last_id, run_id, item_idx, calls, requests, prompt_tokens,
		completion_tokens, reasoning_tokens, cost, hits, hit_prompt_tokens, hit_completion_tokens, hit_cost, data, events)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qTotals = `SELECT COALESCE(sum(calls),0), COALESCE(sum(requests),0), COALESCE(sum(prompt_tokens),0),
		COALESCE(sum(completion_tokens),0), COALESCE(sum(reasoning_tokens),0), COALESCE(sum(cost),0)
		FROM call_batches WHERE run_id = ? AND (? < 0 OR item_idx = ?)`
	qTreePut   = `INSERT OR REPLACE INTO trees (run_id, item_idx, blob) VALUES (?, ?, ?)`
	qCacheHas  = `SELECT EXISTS (SELECT 1 FROM cache WHERE key = ?)`
	qPromptPut = `INSERT OR IGNORE INTO prompts (hash, name, text) VALUES (?, ?, ?)`
	qStepPut   = `INSERT OR REPLACE INTO steps (run_id, item_idx, trial, step, kind, content) VALUES (?, ?, ?, ?, ?, ?)`
	qItemPut   = `INSERT OR REPLACE INTO items
		(run_id, idx, key, input, output, correct, score, metrics, detail, prompt_tokens, completion_tokens, reasoning_tokens,
		 calls, requests, cost, wall_seconds, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	qCheckpointDrop = `DELETE FROM checkpoints WHERE run_id = ? AND item_idx = ?`
)

var (
	preparedQueries = []string{qGCGeneration, qBlobFind, qBlobInsert, qCachePut, qLastCall, qBatchPut, qBatchPutEvents, qTotals, qTreePut,
		qCacheHas, qPromptPut, qStepPut, qItemPut, qCheckpointDrop}
	readQueries = []string{qCacheGet} // on the reading connections
)

// prepare prepares the statements; Open calls it after migrating.
func (s *Store) prepare(ctx context.Context) error {
	s.stmts, s.rstmts = map[string]*sql.Stmt{}, map[string]*sql.Stmt{}
	for _, set := range []struct {
		db      *sql.DB
		queries []string
		into    map[string]*sql.Stmt
	}{{s.db, preparedQueries, s.stmts}, {s.rdb, readQueries, s.rstmts}} {
		for _, q := range set.queries {
			st, err := set.db.PrepareContext(ctx, q)
			if err != nil {
				s.closeStmts()
				return fmt.Errorf("prepare %.40q: %w", q, err)
			}
			set.into[q] = st
		}
	}
	return nil
}

func (s *Store) closeStmts() {
	for _, m := range []map[string]*sql.Stmt{s.stmts, s.rstmts} {
		for _, st := range m {
			st.Close()
		}
	}
	s.stmts, s.rstmts = nil, nil
}

// stmt returns the prepared statement for query bound to q, nil if there
// is none (as during a migration).
func (s *Store) stmt(ctx context.Context, q querier, query string) *sql.Stmt {
	if q == s.rdb && s.rdb != s.db {
		return s.rstmts[query]
	}
	st := s.stmts[query]
	if st == nil {
		return nil
	}
	switch q := q.(type) {
	case *writeTx:
		return q.StmtContext(ctx, st)
	case *sql.Tx:
		return q.StmtContext(ctx, st)
	}
	return st
}

func (s *Store) exec(ctx context.Context, q querier, query string, args ...any) (sql.Result, error) {
	if st := s.stmt(ctx, q, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return q.ExecContext(ctx, query, args...)
}

func (s *Store) query(ctx context.Context, q querier, query string, args ...any) (*sql.Rows, error) {
	if st := s.stmt(ctx, q, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return q.QueryContext(ctx, query, args...)
}

func (s *Store) queryRow(ctx context.Context, q querier, query string, args ...any) *sql.Row {
	if st := s.stmt(ctx, q, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return q.QueryRowContext(ctx, query, args...)
}
