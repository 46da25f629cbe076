// Package store keeps runs, items, calls, tree nodes and reflections in a
// SQLite file (WAL mode), with a versioned schema.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// Store is an open results database. It is safe for concurrent use.
type Store struct {
	db     *sql.DB // the one connection that writes (and reads)
	rdb    *sql.DB // connections that only read, for the response cache
	path   string
	codec  codec
	memo   blobMemo
	stmts  map[string]*sql.Stmt // prepared at open on db, read-only after
	rstmts map[string]*sql.Stmt // the same on rdb
	reads  chan func()          // work for the goroutines reading on rdb

	closeOnce sync.Once
	closeErr  error
}

// Open opens (creating if needed) the database at path and migrates it to
// the current schema.
func Open(ctx context.Context, path string) (*Store, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("open %s: is a folder, not a database file; pass --db FILE.db (e.g. %s)", path, filepath.Join(path, "bench.db"))
	} else if err == nil && fi.Size() > 0 {
		// Looked at read-only first: opening it for writing would already
		// switch another application's database to WAL.
		if err := refuseForeign(ctx, path); err != nil {
			return nil, err
		}
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("open %s: %w", path, err)
		}
	}
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// One connection: writers queue in Go instead of polling SQLite's busy
	// handler, which under a run's many concurrent call records is several
	// times slower. Every statement here is short.
	db.SetMaxOpenConns(1)
	s := &Store{db: db, path: path}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		if errors.Is(err, errForeign) {
			return nil, fmt.Errorf("open %s: %v; pass another --db", path, err)
		}
		if strings.Contains(err.Error(), "not a database") || strings.Contains(err.Error(), "malformed") {
			return nil, fmt.Errorf("open %s: not a reasonbench database or corrupt (%v); move it aside or pass another --db", path, err)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// Cache lookups, one per call, read in parallel with the writer: in
	// WAL mode readers neither wait for it nor block it.
	s.rdb, err = sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)&_pragma=cache_size(-256)")
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	s.rdb.SetMaxOpenConns(readers)
	s.reads = make(chan func())
	for range readers {
		go func() {
			for f := range s.reads {
				f()
			}
		}()
	}
	if err := s.prepare(ctx); err != nil {
		s.rdb.Close()
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return s, nil
}

// readers is the number of reading connections.
const readers = 2

// onReader runs f, a read of the response cache, on one of the long-lived
// reading goroutines. SQLite's interpreter (transpiled to Go) needs a deep
// stack: run on the short-lived goroutine of each request, it grew and
// copied that goroutine's stack on every call, a tenth of a rerun's time.
func (s *Store) onReader(f func()) {
	if s.reads == nil { // a read-only store
		f()
		return
	}
	done := make(chan struct{})
	s.reads <- func() {
		defer close(done)
		f()
	}
	<-done
}

// Close closes the database. Closing again does nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closeStmts()
		s.codec.close()
		if s.reads != nil {
			close(s.reads)
		}
		if s.rdb != s.db {
			s.rdb.Close()
		}
		s.closeErr = s.db.Close()
	})
	return s.closeErr
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// DB exposes the handle for read-only analysis queries in tests and reports.
func (s *Store) DB() *sql.DB { return s.db }

// migrations are applied in order; user_version records how many ran.
// Never edit a released migration: append a new one.
var migrations = []string{
	// 1: runs, items, calls.
	`CREATE TABLE runs (
		id            INTEGER PRIMARY KEY,
		experiment    TEXT NOT NULL DEFAULT '',
		task          TEXT NOT NULL,
		strategy      TEXT NOT NULL,
		params        TEXT NOT NULL CHECK (json_valid(params)),
		model         TEXT NOT NULL,
		endpoint      TEXT NOT NULL DEFAULT '',
		simulated     INTEGER NOT NULL,
		sim_params    TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(sim_params)),
		seed          INTEGER NOT NULL,
		item_range    TEXT NOT NULL,
		spec          TEXT NOT NULL CHECK (json_valid(spec)),
		code_version  TEXT NOT NULL DEFAULT '',
		status        TEXT NOT NULL,
		started_at    TEXT NOT NULL,
		finished_at   TEXT,
		wall_seconds  REAL NOT NULL DEFAULT 0,
		error         TEXT NOT NULL DEFAULT ''
	);
	CREATE TABLE items (
		run_id            INTEGER NOT NULL REFERENCES runs(id),
		idx               INTEGER NOT NULL,
		key               TEXT NOT NULL,
		input             TEXT NOT NULL,
		output            TEXT NOT NULL,
		correct           INTEGER NOT NULL,
		score             REAL NOT NULL,
		metrics           TEXT NOT NULL CHECK (json_valid(metrics)),
		detail            TEXT NOT NULL CHECK (json_valid(detail)),
		prompt_tokens     INTEGER NOT NULL,
		completion_tokens INTEGER NOT NULL,
		calls             INTEGER NOT NULL,
		requests          INTEGER NOT NULL,
		cost              REAL NOT NULL,
		wall_seconds      REAL NOT NULL,
		error             TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (run_id, idx)
	);
	CREATE TABLE calls (
		id                INTEGER PRIMARY KEY,
		run_id            INTEGER NOT NULL REFERENCES runs(id),
		item_idx          INTEGER NOT NULL,
		purpose           TEXT NOT NULL,
		request           TEXT NOT NULL CHECK (json_valid(request)),
		response          TEXT NOT NULL CHECK (json_valid(response)),
		prompt_tokens     INTEGER NOT NULL,
		completion_tokens INTEGER NOT NULL,
		requests          INTEGER NOT NULL,
		cost              REAL NOT NULL,
		latency_ms        REAL NOT NULL,
		cache_hit         INTEGER NOT NULL DEFAULT 0,
		error             TEXT NOT NULL DEFAULT '',
		created_at        TEXT NOT NULL
	);
	CREATE INDEX calls_by_item ON calls(run_id, item_idx);`,
	// 2: search trees, agent trajectories, long-term memory.
	`CREATE TABLE nodes (
		run_id   INTEGER NOT NULL REFERENCES runs(id),
		item_idx INTEGER NOT NULL,
		node_id  INTEGER NOT NULL,
		parent   INTEGER NOT NULL,
		depth    INTEGER NOT NULL,
		thought  TEXT NOT NULL,
		value    REAL NOT NULL,
		selected INTEGER NOT NULL,
		pruned   INTEGER NOT NULL,
		terminal INTEGER NOT NULL,
		PRIMARY KEY (run_id, item_idx, node_id)
	);
	CREATE TABLE steps (
		run_id      INTEGER NOT NULL REFERENCES runs(id),
		item_idx    INTEGER NOT NULL,
		trial       INTEGER NOT NULL,
		step        INTEGER NOT NULL,
		kind        TEXT NOT NULL,
		content     TEXT NOT NULL,
		PRIMARY KEY (run_id, item_idx, trial, step)
	);
	CREATE TABLE reflections (
		id           INTEGER PRIMARY KEY,
		task         TEXT NOT NULL,
		instance_key TEXT NOT NULL,
		memory       TEXT NOT NULL,
		run_id       INTEGER NOT NULL REFERENCES runs(id),
		trial        INTEGER NOT NULL,
		text         TEXT NOT NULL,
		created_at   TEXT NOT NULL
	);
	CREATE INDEX reflections_by_instance ON reflections(task, instance_key, memory, id);`,
	// 3: checkpoints of items in progress (multi-trial strategies resume mid-item).
	`CREATE TABLE checkpoints (
		run_id     INTEGER NOT NULL REFERENCES runs(id),
		item_idx   INTEGER NOT NULL,
		next_trial INTEGER NOT NULL,
		state      TEXT NOT NULL CHECK (json_valid(state)),
		call_id    INTEGER NOT NULL,
		PRIMARY KEY (run_id, item_idx)
	);`,
	// 4: exact replay cache of responses, keyed by the full request.
	`CREATE TABLE cache (
		key        TEXT PRIMARY KEY,
		response   TEXT NOT NULL CHECK (json_valid(response)),
		latency_ms REAL NOT NULL,
		created_at TEXT NOT NULL
	);`,
	// 5: what makes two runs the same configuration (experiment files
	// continue the runs they already have).
	`ALTER TABLE runs ADD COLUMN config_key TEXT NOT NULL DEFAULT '';
	CREATE INDEX runs_by_config ON runs(experiment, config_key);`,
	// 6: prompt template texts by content hash (runs record the hashes).
	`CREATE TABLE prompts (
		hash TEXT PRIMARY KEY,
		name TEXT NOT NULL,
		text TEXT NOT NULL
	);`,
	// 7: MCTS visit counts of tree nodes (0 for BFS/DFS trees).
	`ALTER TABLE nodes ADD COLUMN visits INTEGER NOT NULL DEFAULT 0;`,
	// 8: reasoning tokens (a part of completion tokens) per call and item.
	`ALTER TABLE calls ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE items ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;`,
	// 9: compact storage. Texts (requests, responses, trees) are blobs,
	// stored once and compressed with a dictionary of the prompt
	// templates; an item's calls are one call_batches row per flush; cache
	// entries refer to blobs. migrateCompact (migrate9.go) moves the calls,
	// nodes and cache tables' contents over and drops them.
	`CREATE TABLE dicts (
		id   INTEGER PRIMARY KEY,
		hash BLOB NOT NULL UNIQUE,
		data BLOB NOT NULL
	);
	CREATE TABLE blobs (
		id   INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: a process may remember an id
		hash INTEGER NOT NULL,                  -- first 8 bytes of the content's SHA-256
		data BLOB NOT NULL                      -- codec byte, then the (compressed) content
	);
	CREATE INDEX blobs_by_hash ON blobs(hash);
	CREATE TABLE call_batches (
		last_id               INTEGER PRIMARY KEY, -- id of the batch's last call
		run_id                INTEGER NOT NULL REFERENCES runs(id),
		item_idx              INTEGER NOT NULL,
		calls                 INTEGER NOT NULL,
		requests              INTEGER NOT NULL,
		prompt_tokens         INTEGER NOT NULL,
		completion_tokens     INTEGER NOT NULL,
		reasoning_tokens      INTEGER NOT NULL,
		cost                  REAL NOT NULL,
		hits                  INTEGER NOT NULL, -- cache hits, and what they would have cost
		hit_prompt_tokens     INTEGER NOT NULL,
		hit_completion_tokens INTEGER NOT NULL,
		hit_cost              REAL NOT NULL,
		data                  BLOB NOT NULL     -- codec byte, then the call records
	);
	CREATE INDEX call_batches_by_item ON call_batches(run_id, item_idx);
	CREATE TABLE trees (
		run_id   INTEGER NOT NULL REFERENCES runs(id),
		item_idx INTEGER NOT NULL,
		blob     INTEGER NOT NULL,
		PRIMARY KEY (run_id, item_idx)
	) WITHOUT ROWID;
	CREATE TABLE gc (generation INTEGER NOT NULL); -- counts collections of unused blobs
	INSERT INTO gc VALUES (0);
	CREATE TABLE cache_v9 (
		key        BLOB PRIMARY KEY, -- 16 bytes of the SHA-256 of the request key
		request    INTEGER,          -- blob ids
		response   INTEGER NOT NULL,
		latency_us INTEGER NOT NULL,
		run_id     INTEGER           -- the run that stored it
	) WITHOUT ROWID;`,
	// 10: programs a model wrote, run in the sandbox: one row per
	// execution, keyed by its site in the strategy's or scorer's program.
	`CREATE TABLE executions (
		run_id      INTEGER NOT NULL REFERENCES runs(id),
		item_idx    INTEGER NOT NULL,
		site        TEXT NOT NULL,
		program     TEXT NOT NULL,
		stdin       TEXT NOT NULL,
		status      TEXT NOT NULL,
		exit_code   INTEGER NOT NULL,
		signal      TEXT NOT NULL,
		stdout      TEXT NOT NULL,
		stderr      TEXT NOT NULL,
		truncated   INTEGER NOT NULL,
		duration_ms REAL NOT NULL,
		PRIMARY KEY (run_id, item_idx, site)
	) WITHOUT ROWID;`,
	// 11: the process working on a run (one writer per run): who, and when
	// it last said it was alive.
	`CREATE TABLE leases (
		run_id       INTEGER PRIMARY KEY REFERENCES runs(id),
		holder       TEXT NOT NULL CHECK (json_valid(holder)),
		acquired_at  TEXT NOT NULL,
		heartbeat_ms INTEGER NOT NULL
	);`,
	// 12: an item's events (model calls' roles and identities, tool calls,
	// user turns, verifier scores, its verdict) with the calls of the
	// same flush: the events package's encoding, compressed as data is;
	// NULL in batches written before.
	`ALTER TABLE call_batches ADD COLUMN events BLOB;`,
}

// refuseForeign refuses an existing SQLite file with tables and no
// reasonbench schema version, without writing it.
func refuseForeign(ctx context.Context, path string) error {
	db, _, err := openRO(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	// Read together, in one snapshot: another process creating the
	// database may commit its schema between two statements, and a
	// version read before it beside tables counted after looks foreign.
	var version, tables int
	if err := db.QueryRowContext(ctx, `SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master)`).Scan(&version, &tables); err != nil {
		return fmt.Errorf("open %s: %s", path, firstLine(err))
	}
	if version == 0 && tables > 0 {
		return fmt.Errorf("open %s: %v; pass another --db", path, errForeign)
	}
	return nil
}

// errForeign refuses a SQLite file that holds another application's tables.
var errForeign = errors.New("not a reasonbench database (it holds other tables and no reasonbench schema)")

// migrationSteps are Go steps run after the SQL of the migration with the
// same number, in the same transaction, for data SQL alone cannot move.
var migrationSteps = map[int]func(context.Context, *Store, *sql.Tx) error{
	9: migrateCompact,
}

func (s *Store) migrate(ctx context.Context) error {
	version, err := s.firstVersion(ctx)
	if err != nil {
		return err
	}
	if version > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this build knows (%d); upgrade bench", version, len(migrations))
	}
	if version == len(migrations) {
		return nil
	}
	// Several processes may open a new database at once. The transaction
	// takes the write lock first (_txlock=immediate), and the version is
	// read again under it: a process that waited finds the work done.
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if version > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this build knows (%d); upgrade bench", version, len(migrations))
	}
	if version == 0 {
		// A new database is empty: a SQLite file of another application's
		// (tables, no schema version) is not made a reasonbench database.
		var tables int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&tables); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if tables > 0 {
			return errForeign
		}
	}
	for i := version; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
		if step := migrationSteps[i+1]; step != nil {
			if err := step(ctx, s, tx); err != nil {
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, len(migrations))); err != nil {
		return fmt.Errorf("migrate to version %d: %w", len(migrations), err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate to version %d: %w", len(migrations), err)
	}
	return nil
}

// firstVersion reads the schema version on the first connection. Opening
// a new file switches it to WAL mode, which SQLite answers with SQLITE_BUSY,
// without waiting, while another process switches it too: that is retried
// for as long as busy_timeout would have waited.
func (s *Store) firstVersion(ctx context.Context) (int, error) {
	var version int
	deadline := time.Now().Add(10 * time.Second)
	for wait := time.Millisecond; ; wait = min(2*wait, 100*time.Millisecond) {
		err := s.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version)
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return version, err
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// ErrNotFound is returned when a run does not exist.
var ErrNotFound = errors.New("not found")

// SchemaVersion is the schema version this build writes (PRAGMA
// user_version after every migration).
func SchemaVersion() int { return len(migrations) }
