package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNoDatabase is returned by OpenExisting and OpenReadOnly when the file
// does not exist: a command that only reads must never create one.
var ErrNoDatabase = errors.New("no database")

// exists reports whether a database file is at path, as an error naming
// the path when it is not.
func exists(path string) error {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w at %s", ErrNoDatabase, path)
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if info.IsDir() {
		return fmt.Errorf("open %s: is a folder, not a database file", path)
	}
	return nil
}

// OpenExisting opens the database at path like Open, migrating it to the
// current schema, but fails with ErrNoDatabase instead of creating it.
// A SQLite file that is not a reasonbench database is refused unchanged.
func OpenExisting(ctx context.Context, path string) (*Store, error) {
	version, err := existingVersion(ctx, path)
	if err != nil {
		return nil, err
	}
	if version == 0 {
		return nil, fmt.Errorf("open %s: not a reasonbench database; pass another --db", path)
	}
	return Open(ctx, path)
}

// OpenReadOnly opens an existing database for reading only: SQLite refuses
// every write through it, and nothing is migrated. A schema older or newer
// than this build's, or a file that is not a complete reasonbench
// database, is an error that says what to do. A database the process may
// not write (a read-only folder or file, where SQLite cannot create the
// WAL's shared-memory file) is opened immutable.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if err := exists(path); err != nil {
		return nil, err
	}
	db, version, err := openRO(ctx, path)
	if err != nil {
		return nil, err
	}
	switch {
	case version > len(migrations):
		db.Close()
		return nil, fmt.Errorf("open %s: schema version %d is newer than this build knows (%d); upgrade bench", path, version, len(migrations))
	case version == 0:
		db.Close()
		return nil, fmt.Errorf("open %s: not a reasonbench database; pass another --db", path)
	case version < len(migrations):
		db.Close()
		return nil, fmt.Errorf("open %s: schema version %d is older than this build's (%d); upgrade it once with a command that writes, e.g. bench db vacuum --db %s", path, version, len(migrations), path)
	}
	s := &Store{db: db, rdb: db, path: path}
	if err := s.prepare(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: not a complete reasonbench database (%s); pass another --db", path, firstLine(err))
	}
	return s, nil
}

// OpenForReading opens an existing database for a command that only reads
// (report, show, export, list, plot, compare, db stats): read-only, never
// creating or changing a file that is not a reasonbench database. A
// reasonbench database of an older schema is upgraded in place once when
// it can be written (as every build has done), and otherwise refused with
// what to do.
func OpenForReading(ctx context.Context, path string) (*Store, error) {
	version, err := existingVersion(ctx, path)
	if err != nil {
		return nil, err
	}
	if version > 0 && version < len(migrations) && writable(path) {
		return Open(ctx, path)
	}
	return OpenReadOnly(ctx, path)
}

// existingVersion is the schema version of the existing database at path,
// read without writing it (0: not a reasonbench database).
func existingVersion(ctx context.Context, path string) (int, error) {
	if err := exists(path); err != nil {
		return 0, err
	}
	db, version, err := openRO(ctx, path)
	if err != nil {
		return 0, err
	}
	db.Close()
	return version, nil
}

// openRO opens path with SQLite's read-only mode, immutable where the
// process cannot write the file or its folder, and reads its schema
// version.
func openRO(ctx context.Context, path string) (*sql.DB, int, error) {
	dsn := "file:" + path + "?mode=ro&_pragma=busy_timeout(10000)"
	if !writable(path) {
		// No -shm can be made beside it, so SQLite could not read a WAL
		// database in read-only mode; no writer of ours can be at work.
		dsn = "file:" + path + "?mode=ro&immutable=1"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, 0, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	var version int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		db.Close()
		if strings.Contains(err.Error(), "not a database") {
			return nil, 0, fmt.Errorf("open %s: not a reasonbench database or corrupt; move it aside or pass another --db", path)
		}
		return nil, 0, fmt.Errorf("open %s: %s", path, firstLine(err))
	}
	return db, version, nil
}

// writable reports whether this process may write the file and create
// files beside it (SQLite's journal, WAL and shared-memory files).
func writable(path string) bool {
	return unix.Access(path, unix.W_OK) == nil && unix.Access(filepath.Dir(path), unix.W_OK) == nil
}

func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}
