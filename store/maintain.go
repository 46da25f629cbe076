package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrRunRunning is returned when deleting a run whose status is running.
var ErrRunRunning = errors.New("is running")

// Collected is what collecting unreferenced blobs removed.
type Collected struct {
	Blobs int
	Bytes int64 // their stored size
}

// Deleted is what DeleteRuns removed.
type Deleted struct {
	Runs, Items, Calls, CacheEntries int
	Collected
}

// DeleteRuns removes runs and everything recorded for them: items, calls,
// trees, trajectory steps, checkpoints, reflections and, unless keepCache,
// the response cache entries they stored (a rerun of them then asks the model
// again). Blobs that nothing refers to any more are collected; those other
// runs or the cache share stay. A run whose status is running is refused
// unless force is set: its process may be writing to it (or it died, and
// bench resume would finish it).
func (s *Store) DeleteRuns(ctx context.Context, ids []int64, keepCache, force bool) (Deleted, error) {
	var d Deleted
	for _, id := range ids {
		r, err := s.GetRun(ctx, id)
		if err != nil {
			return d, err
		}
		if r.Status == StatusRunning && !force {
			return d, fmt.Errorf("run %d %w", id, ErrRunRunning)
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return d, fmt.Errorf("delete runs: %w", err)
	}
	defer tx.Rollback()
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	in := `(` + placeholders(len(ids)) + `)`
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM items WHERE run_id IN `+in, args...).Scan(&d.Items); err != nil {
		return d, fmt.Errorf("delete runs: %w", err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(sum(calls), 0) FROM call_batches WHERE run_id IN `+in, args...).Scan(&d.Calls); err != nil {
		return d, fmt.Errorf("delete runs: %w", err)
	}
	if !keepCache {
		res, err := tx.ExecContext(ctx, `DELETE FROM cache WHERE run_id IN `+in, args...)
		if err != nil {
			return d, fmt.Errorf("delete runs: %w", err)
		}
		n, _ := res.RowsAffected()
		d.CacheEntries = int(n)
	} else if _, err := tx.ExecContext(ctx, `UPDATE cache SET run_id = NULL WHERE run_id IN `+in, args...); err != nil {
		return d, fmt.Errorf("delete runs: %w", err)
	}
	for _, table := range []string{"items", "call_batches", "trees", "steps", "executions", "checkpoints", "reflections", "leases"} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE run_id IN `+in, args...); err != nil {
			return d, fmt.Errorf("delete runs: %s: %w", table, err)
		}
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM runs WHERE id IN `+in, args...)
	if err != nil {
		return d, fmt.Errorf("delete runs: %w", err)
	}
	n, _ := res.RowsAffected()
	d.Runs = int(n)
	if d.Collected, err = s.collect(ctx, tx); err != nil {
		return d, err
	}
	if err := tx.Commit(); err != nil {
		return d, fmt.Errorf("delete runs: %w", err)
	}
	return d, nil
}

// CollectGarbage deletes the blobs nothing refers to: left by deleted runs,
// or by calls a resume dropped.
func (s *Store) CollectGarbage(ctx context.Context) (Collected, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Collected{}, fmt.Errorf("collect blobs: %w", err)
	}
	defer tx.Rollback()
	c, err := s.collect(ctx, tx)
	if err != nil {
		return c, err
	}
	return c, tx.Commit()
}

// collect deletes unreferenced blobs in a write transaction (so no writer
// adds a reference meanwhile) and, if it deleted any, starts a new gc
// generation: processes that remember blob ids forget them.
func (s *Store) collect(ctx context.Context, tx *sql.Tx) (Collected, error) {
	var c Collected
	live, err := s.referencedBlobs(ctx, tx)
	if err != nil {
		return c, fmt.Errorf("collect blobs: %w", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, length(data) FROM blobs`)
	if err != nil {
		return c, fmt.Errorf("collect blobs: %w", err)
	}
	var dead []int64
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			rows.Close()
			return c, fmt.Errorf("collect blobs: %w", err)
		}
		if _, ok := live[id]; !ok {
			dead = append(dead, id)
			c.Bytes += n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return c, fmt.Errorf("collect blobs: %w", err)
	}
	c.Blobs = len(dead)
	if len(dead) == 0 {
		return c, nil
	}
	for len(dead) > 0 {
		n := min(500, len(dead))
		args := make([]any, n)
		for i, id := range dead[:n] {
			args[i] = id
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM blobs WHERE id IN (`+placeholders(n)+`)`, args...); err != nil {
			return c, fmt.Errorf("collect blobs: %w", err)
		}
		dead = dead[n:]
	}
	if _, err := tx.ExecContext(ctx, `UPDATE gc SET generation = generation + 1`); err != nil {
		return c, fmt.Errorf("collect blobs: %w", err)
	}
	var gen int64
	if err := tx.QueryRowContext(ctx, qGCGeneration).Scan(&gen); err != nil {
		return c, fmt.Errorf("collect blobs: %w", err)
	}
	s.memo.checkGeneration(gen)
	return c, nil
}

// referencedBlobs is every blob id a cache entry, tree or call refers to.
func (s *Store) referencedBlobs(ctx context.Context, q querier) (map[int64]struct{}, error) {
	live := map[int64]struct{}{}
	for _, query := range []string{
		`SELECT request FROM cache WHERE request IS NOT NULL`,
		`SELECT response FROM cache`,
		`SELECT blob FROM trees`,
	} {
		if err := scanIDs(ctx, q, query, func(id int64) { live[id] = struct{}{} }); err != nil {
			return nil, err
		}
	}
	err := s.eachBatch(ctx, q, ``, nil, func(_ int64, _ int, recs []callRecord) error {
		for _, r := range recs {
			live[r.Request], live[r.Response] = struct{}{}, struct{}{}
		}
		return nil
	})
	return live, err
}

func scanIDs(ctx context.Context, q querier, query string, fn func(int64)) error {
	rows, err := q.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		fn(id)
	}
	return rows.Err()
}

// Vacuum drops the checkpoints of finished items, collects unreferenced
// blobs and rewrites the file without its free pages, so that it shrinks
// after runs were deleted.
func (s *Store) Vacuum(ctx context.Context) (Collected, error) {
	if _, err := s.DropFinishedCheckpoints(ctx); err != nil {
		return Collected{}, err
	}
	c, err := s.CollectGarbage(ctx)
	if err != nil {
		return c, err
	}
	if _, err := s.db.ExecContext(ctx, `VACUUM`); err != nil {
		return c, fmt.Errorf("vacuum: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return c, fmt.Errorf("vacuum: %w", err)
	}
	return c, nil
}

// FileSize is the size of the database file and of its write-ahead log.
func (s *Store) FileSize() (file, wal int64) {
	if fi, err := os.Stat(s.path); err == nil {
		file = fi.Size()
	}
	if fi, err := os.Stat(s.path + "-wal"); err == nil {
		wal = fi.Size()
	}
	return file, wal
}

// TableSize is the space one table (with its indexes) takes in the file.
type TableSize struct {
	Name  string `json:"name"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"` // pages, including free space in them
}

// RunSize is what one run takes.
type RunSize struct {
	ID       int64  `json:"id"`
	Task     string `json:"task"`
	Strategy string `json:"strategy"`
	Status   string `json:"status"`
	Items    int    `json:"items"`
	Calls    int    `json:"calls"`
	// RowBytes is the run's own rows: items, call batches, steps,
	// checkpoints and reflections (content sizes, without page overhead).
	RowBytes int64 `json:"row_bytes"`
	// BlobBytes is the stored size of the requests, responses and trees it
	// refers to; OwnBytes the part no other run or cache entry refers to,
	// which deleting the run would free.
	BlobBytes int64 `json:"blob_bytes"`
	OwnBytes  int64 `json:"own_bytes"`
}

// Stats describes where a database's bytes are.
type Stats struct {
	Path      string      `json:"path"`
	FileBytes int64       `json:"file_bytes"`
	WALBytes  int64       `json:"wal_bytes"`
	FreeBytes int64       `json:"free_bytes"` // free pages, reclaimed by vacuum
	Calls     int         `json:"calls"`
	Tables    []TableSize `json:"tables"`
	Runs      []RunSize   `json:"runs"`
}

// Stats measures the database: sizes per table, per run, and calls. It
// reads every call batch.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	st := Stats{Path: s.path}
	st.FileBytes, st.WALBytes = s.FileSize()
	var pageSize, free int64
	if err := s.db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
		return st, fmt.Errorf("stats: %w", err)
	}
	if err := s.db.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil {
		return st, fmt.Errorf("stats: %w", err)
	}
	st.FreeBytes = pageSize * free
	rows, err := s.db.QueryContext(ctx, `SELECT COALESCE(s.tbl_name, d.name), sum(d.pgsize) FROM dbstat d
		LEFT JOIN sqlite_schema s ON s.name = d.name GROUP BY 1 ORDER BY 2 DESC, 1`)
	if err != nil {
		return st, fmt.Errorf("stats: table sizes: %w", err)
	}
	for rows.Next() {
		var t TableSize
		if err := rows.Scan(&t.Name, &t.Bytes); err != nil {
			rows.Close()
			return st, fmt.Errorf("stats: %w", err)
		}
		st.Tables = append(st.Tables, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("stats: %w", err)
	}
	for i, t := range st.Tables {
		if strings.HasPrefix(t.Name, "sqlite_") {
			continue
		}
		if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM "`+t.Name+`"`).Scan(&st.Tables[i].Rows); err != nil {
			return st, fmt.Errorf("stats: %w", err)
		}
	}
	if st.Runs, err = s.runSizes(ctx); err != nil {
		return st, fmt.Errorf("stats: %w", err)
	}
	for _, r := range st.Runs {
		st.Calls += r.Calls
	}
	return st, nil
}

// shared marks a blob referenced by more than one run or by the cache.
const shared = -1

func (s *Store) runSizes(ctx context.Context) ([]RunSize, error) {
	runs, err := s.Runs(ctx, RunFilter{})
	if err != nil {
		return nil, err
	}
	out := make([]RunSize, len(runs))
	index := map[int64]int{}
	for i, r := range runs {
		out[i] = RunSize{ID: r.ID, Task: r.Task, Strategy: r.Strategy, Status: r.Status}
		index[r.ID] = i
	}
	rowSizes := []struct {
		query string
		count func(*RunSize, int64)
	}{
		{`SELECT run_id, count(*), sum(length(input) + length(output) + length(metrics) + length(detail) + length(key) + length(error))
			FROM items GROUP BY run_id`, func(r *RunSize, n int64) { r.Items = int(n) }},
		{`SELECT run_id, sum(calls), sum(length(data) + COALESCE(length(events), 0)) FROM call_batches GROUP BY run_id`, func(r *RunSize, n int64) { r.Calls = int(n) }},
		{`SELECT run_id, 0, sum(length(content) + length(kind)) FROM steps GROUP BY run_id`, nil},
		{`SELECT run_id, 0, sum(length(state)) FROM checkpoints GROUP BY run_id`, nil},
		{`SELECT run_id, 0, sum(length(text)) FROM reflections GROUP BY run_id`, nil},
	}
	for _, q := range rowSizes {
		rows, err := s.db.QueryContext(ctx, q.query)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var run, n, bytes int64
			if err := rows.Scan(&run, &n, &bytes); err != nil {
				rows.Close()
				return nil, err
			}
			if i, ok := index[run]; ok {
				if q.count != nil {
					q.count(&out[i], n)
				}
				out[i].RowBytes += bytes
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	// Which run each blob belongs to, or shared.
	owner := map[int64]int64{}
	refer := func(blob, run int64) {
		if o, ok := owner[blob]; !ok {
			owner[blob] = run
		} else if o != run {
			owner[blob] = shared
		}
	}
	perRun := map[int64]map[int64]bool{}
	use := func(run, blob int64) {
		refer(blob, run)
		if perRun[run] == nil {
			perRun[run] = map[int64]bool{}
		}
		perRun[run][blob] = true
	}
	if err := s.eachBatch(ctx, s.db, ``, nil, func(run int64, _ int, recs []callRecord) error {
		for _, r := range recs {
			use(run, r.Request)
			use(run, r.Response)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT run_id, blob FROM trees`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var run, blob int64
		if err := rows.Scan(&run, &blob); err != nil {
			rows.Close()
			return nil, err
		}
		use(run, blob)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// A cache entry a run stored goes with it; any other keeps its blobs.
	rows, err = s.db.QueryContext(ctx, `SELECT COALESCE(run_id, -1), request, response FROM cache`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var run int64
		var req sql.NullInt64
		var resp int64
		if err := rows.Scan(&run, &req, &resp); err != nil {
			rows.Close()
			return nil, err
		}
		for _, b := range []int64{req.Int64, resp} {
			if b != 0 {
				refer(b, run)
			}
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sizes, err := s.blobSizes(ctx)
	if err != nil {
		return nil, err
	}
	for run, blobs := range perRun {
		i, ok := index[run]
		if !ok {
			continue
		}
		for b := range blobs {
			out[i].BlobBytes += sizes[b]
			if owner[b] == run {
				out[i].OwnBytes += sizes[b]
			}
		}
	}
	return out, nil
}

// blobSizes is the stored size of every blob.
func (s *Store) blobSizes(ctx context.Context) (map[int64]int64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, length(data) FROM blobs`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var id, n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}
