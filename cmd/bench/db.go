package main

import (
	"context"
	"flag"
	"path/filepath"

	"github.com/reasonbench/reasonbench/store"
)

// defaultDB is where results go unless --db says otherwise.
var defaultDB = filepath.Join("results", "bench.db")

func dbFlag(fs *flag.FlagSet) *string {
	return fs.String("db", defaultDB, "SQLite results database")
}

// openStore opens the database a command writes to, creating it if needed.
func openStore(ctx context.Context, path string) (*store.Store, error) {
	st, err := store.Open(ctx, path)
	if err != nil {
		return nil, usageError{err}
	}
	return st, nil
}

// openExisting opens the database of a command that only reads results
// (report, show, export, plot, list --db): a missing file is an error, never
// an empty database, so a mistyped --db does not print an empty table. An
// older schema is migrated in place.
func openExisting(ctx context.Context, path string) (*store.Store, error) {
	st, err := store.OpenExisting(ctx, path)
	if err != nil {
		return nil, usageError{err}
	}
	return st, nil
}
