package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/store"
)

// cmdMerge is `bench merge --out OUT.db IN.db...`: the shards of runs
// (bench run --shard) combined into one run per configuration.
func cmdMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", stderr)
	out := fs.String("out", "", "database to merge into (created if missing; merging into it again adds only what is new)")
	complete := fs.Bool("complete", false, "fail (exit 1) when a merged run still lacks items of its range, e.g. in a job that runs after every shard")
	force := fs.Bool("force", false, "merge even runs that a live process holds (a shard still running): their items so far")
	ins, err := parseArgs(fs, args) // flags may come before, between or after the inputs
	if err != nil {
		return err
	}
	if *out == "" {
		return usageError{errors.New("no --out: pass --out MERGED.db and the shards' databases, e.g. bench merge --out all.db shard-*.db")}
	}
	if len(ins) == 0 {
		return usageError{errors.New("no input databases: pass the shards' databases after the flags, e.g. bench merge --out all.db shard-*.db")}
	}
	var infos []os.FileInfo
	outInfo, _ := os.Stat(*out)
	for _, in := range ins {
		fi, err := os.Stat(in)
		if err != nil {
			return usageError{fmt.Errorf("%s: no such database (check the path)", in)}
		}
		if outInfo != nil && os.SameFile(fi, outInfo) {
			return usageError{fmt.Errorf("%s is both --out and an input; merge into another file", in)}
		}
		for j, prev := range infos {
			if os.SameFile(fi, prev) {
				return usageError{fmt.Errorf("%s is given twice (also as %s); name each shard's database once", in, ins[j])}
			}
		}
		infos = append(infos, fi)
	}
	var srcs []store.MergeSource
	for _, in := range ins {
		st, err := openReading(ctx, in)
		if err != nil {
			return err
		}
		defer st.Close()
		if !*force {
			if err := refuseHeld(ctx, st, in); err != nil {
				return err
			}
		}
		srcs = append(srcs, store.MergeSource{Name: filepath.Base(in), Store: st})
	}
	dst, err := openStore(ctx, *out, stderr)
	if err != nil {
		return err
	}
	defer dst.Close()
	if !*force {
		if err := refuseHeld(ctx, dst, *out); err != nil {
			return err
		}
	}
	res, err := store.Merge(ctx, dst, srcs, store.MergeOptions{Describe: bench.MergeInfo})
	if err != nil && outInfo == nil {
		// The merge changed nothing; nor does it leave an empty database
		// where there was none.
		dst.Close()
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			os.Remove(*out + suffix)
		}
	}
	if errors.Is(err, store.ErrMergeMismatch) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	incomplete := 0
	for _, r := range res.Runs {
		verb := "added to"
		if r.Created {
			verb = "new"
		}
		exp := ""
		if r.Experiment != "" {
			exp = " experiment " + r.Experiment
		}
		fmt.Fprintf(stdout, "run %d (%s)%s: %s %s range %s: %d of %d items (%d added) from %s\n",
			r.RunID, verb, exp, r.Task, r.Strategy, r.Range, r.Items, r.Expected, r.Added, strings.Join(r.Sources, ", "))
		if len(r.Missing) > 0 {
			incomplete++
			fmt.Fprintf(stdout, "  missing %d items: %s (a shard failed or is still running: merge again once it finishes, or bench resume %d --db %s)\n",
				len(r.Missing), store.IndexList(r.Missing, 20), r.RunID, *out)
		}
		for _, d := range r.Duplicates {
			how := "the same result"
			if d.Differs {
				how = "a DIFFERENT result"
			}
			fmt.Fprintf(stdout, "  duplicate item %d: kept %s, %s has %s\n", d.Index, d.Kept, d.Other, how)
		}
	}
	if len(res.Runs) == 0 {
		fmt.Fprintln(stdout, "no runs in the inputs")
	}
	if *complete && incomplete > 0 {
		return fmt.Errorf("%d merged run(s) lack items of their range (see above)", incomplete)
	}
	return nil
}

// refuseHeld refuses a database with a run that a live process is writing:
// a shard still running (merge it once it ends), or a run of --out being
// resumed.
func refuseHeld(ctx context.Context, st *store.Store, path string) error {
	held, err := bench.HeldRuns(ctx, st, 0)
	if err != nil {
		return err
	}
	if len(held) == 0 {
		return nil
	}
	h := held[0]
	return usageError{fmt.Errorf("%s: run %d is being written by a live process (pid %d on %s, alive %s ago): merge once it ends, or pass --force to merge the items it has so far",
		path, h.RunID, h.Holder.PID, h.Holder.Host, h.Age.Round(time.Second))}
}
