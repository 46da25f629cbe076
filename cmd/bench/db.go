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

func openStore(ctx context.Context, path string) (*store.Store, error) {
	st, err := store.Open(ctx, path)
	if err != nil {
		return nil, usageError{err}
	}
	return st, nil
}
