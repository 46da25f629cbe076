package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
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
func OpenExisting(ctx context.Context, path string) (*Store, error) {
	if err := exists(path); err != nil {
		return nil, err
	}
	return Open(ctx, path)
}

// OpenReadOnly opens an existing database for reading only: SQLite refuses
// every write through it, and nothing is migrated. A schema older or newer
// than this build's is an error that says what to do.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if err := exists(path); err != nil {
		return nil, err
	}
	dsn := "file:" + path + "?mode=ro&_pragma=busy_timeout(10000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	var version int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil {
		db.Close()
		if strings.Contains(err.Error(), "not a database") {
			return nil, fmt.Errorf("open %s: not a reasonbench database or corrupt; pass another --db", path)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	switch {
	case version > len(migrations):
		db.Close()
		return nil, fmt.Errorf("open %s: schema version %d is newer than this build knows (%d); upgrade bench", path, version, len(migrations))
	case version == 0:
		db.Close()
		return nil, fmt.Errorf("open %s: not a reasonbench database (no schema); pass another --db", path)
	case version < len(migrations):
		db.Close()
		return nil, fmt.Errorf("open %s: schema version %d is older than this build's (%d); upgrade it once with any writing command, e.g. bench report --db %s", path, version, len(migrations), path)
	}
	s := &Store{db: db, rdb: db, path: path}
	if err := s.prepare(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return s, nil
}
