package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/store"
)

// defaultDB is where results go unless --db says otherwise.
var defaultDB = filepath.Join("results", "bench.db")

func dbFlag(fs *flag.FlagSet) *string {
	return fs.String("db", defaultDB, "SQLite results database")
}

// openStore opens the database a command writes to, creating it if needed;
// a folder it had to create for it is named on stderr, so a mistyped path
// does not pass unnoticed.
func openStore(ctx context.Context, path string, stderr io.Writer) (*store.Store, error) {
	dir := filepath.Dir(path)
	_, statErr := os.Stat(dir)
	st, err := store.Open(ctx, path)
	if err != nil {
		if why := unwritable(path); why != "" {
			return nil, usageError{fmt.Errorf("cannot write the database %s: %s; pass --db PATH in a folder you can write (report, show and export read a read-only database as it is)", path, why)}
		}
		return nil, usageError{err}
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "bench: created folder %s for the database %s\n", dir, path)
	}
	return st, nil
}

// unwritable says why bench cannot write the database at path (its
// folder or the file read-only to this user, or on a read-only file
// system), or "" when nothing stops it.
func unwritable(path string) string {
	const wOK = 2
	dir := filepath.Dir(path)
	if _, err := os.Stat(path); err == nil {
		if err := syscall.Access(path, wOK); err != nil {
			return fmt.Sprintf("the file is read-only (%v)", err)
		}
	}
	if err := syscall.Access(dir, wOK); err != nil && !errors.Is(err, fs.ErrNotExist) {
		// SQLite writes its journal beside the file.
		return fmt.Sprintf("the folder %s is read-only (%v)", dir, err)
	}
	return ""
}

// openReading opens the database of a command that only reads results
// (report, show, export, plot, compare, power, list --db, db stats): a
// missing file is an error, never an empty database, so a mistyped --db
// does not print an empty table; a read-only database is read in place,
// and a file that is not a reasonbench database is refused unchanged.
func openReading(ctx context.Context, path string) (*store.Store, error) {
	st, err := store.OpenForReading(ctx, path)
	if err != nil {
		return nil, usageError{err}
	}
	return st, nil
}

// openExisting opens the existing database of a command that changes it
// (rm, resume, db vacuum). An older schema is migrated in place.
func openExisting(ctx context.Context, path string) (*store.Store, error) {
	st, err := store.OpenExisting(ctx, path)
	if err != nil {
		return nil, usageError{err}
	}
	return st, nil
}

// cmdDB is `bench db stats|vacuum`: where a database's bytes are, and
// reclaiming the space deleted runs left.
func cmdDB(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	const usage = "usage: bench db stats [--json] | bench db vacuum"
	if len(args) == 0 {
		return usageError{errors.New(usage)}
	}
	sub, args := args[0], args[1:]
	if isHelp(sub) {
		fmt.Fprintln(stderr, usage+"\n  stats   sizes per table and per run, bytes per call (bench db stats -h for flags)\n  vacuum  collect unused texts, release ended processes' leases, shrink the file")
		return flag.ErrHelp
	}
	if sub != "stats" && sub != "vacuum" {
		return usageError{fmt.Errorf("unknown db command %q; %s", sub, usage)}
	}
	fs := newFlags("db "+sub, stderr)
	db := dbFlag(fs)
	asJSON := fs.Bool("json", false, "stats: print the figures as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	open := openReading
	if sub == "vacuum" {
		open = openExisting
	}
	st, err := open(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	if sub == "vacuum" {
		released, err := bench.ReleaseGone(ctx, st)
		if err != nil {
			return err
		}
		for _, id := range released {
			fmt.Fprintf(stdout, "%s: run %d: its process has ended; lease released\n", *db, id)
		}
		before, wal := st.FileSize()
		c, err := st.Vacuum(ctx)
		if err != nil {
			return err
		}
		after, _ := st.FileSize()
		fmt.Fprintf(stdout, "%s: %d unused blobs (%s) collected; %s -> %s\n", *db, c.Blobs, humanBytes(c.Bytes),
			humanBytes(before+wal), humanBytes(after))
		return nil
	}
	stats, err := st.Stats(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(stats)
	}
	writeStats(stdout, stats)
	return nil
}

// writeStats prints Stats for people.
func writeStats(w io.Writer, s store.Stats) {
	fmt.Fprintf(w, "%s: %s (write-ahead log %s, free pages %s), %d calls", s.Path, humanBytes(s.FileBytes),
		humanBytes(s.WALBytes), humanBytes(s.FreeBytes), s.Calls)
	if s.Calls > 0 {
		fmt.Fprintf(w, ", %d bytes per call", (s.FileBytes+s.WALBytes)/int64(s.Calls))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "\ntables (with their indexes):")
	for _, t := range s.Tables {
		rows := ""
		if !strings.HasPrefix(t.Name, "sqlite_") { // SQLite's own
			rows = fmt.Sprintf("%10d rows", t.Rows)
		}
		fmt.Fprintf(w, "  %-16s %10s %s\n", t.Name, humanBytes(t.Bytes), rows)
	}
	fmt.Fprintln(w, "\nruns (rows: its own items, calls, steps; blobs: requests, responses, trees it uses; own: blobs only it uses):")
	fmt.Fprintf(w, "  %5s  %-11s %-9s %-10s %6s %8s %10s %10s %10s %8s\n", "run", "status", "task", "strategy", "items", "calls",
		"rows", "blobs", "own", "B/call")
	for _, r := range s.Runs {
		perCall := "-"
		if r.Calls > 0 {
			perCall = fmt.Sprint((r.RowBytes + r.OwnBytes) / int64(r.Calls))
		}
		fmt.Fprintf(w, "  %5d  %-11s %-9s %-10s %6d %8d %10s %10s %10s %8s\n", r.ID, r.Status, r.Task, r.Strategy, r.Items,
			r.Calls, humanBytes(r.RowBytes), humanBytes(r.BlobBytes), humanBytes(r.OwnBytes), perCall)
	}
}
