package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/store"
)

// BenchmarkStoreToT1000 is the store at research scale (issue 13): ToT b=5
// over 1,000 Game of 24 puzzles on the simulator (50,249 calls) into a new
// database, then the same run again, every call answered from the cache. It
// reports the database's bytes per call after the first run (target ≤ 300),
// the rerun's wall time (≤ 2 s) and the bytes per call the rerun added
// (≤ 50). Peak memory is a property of the process: make bench-store
// measures it on bin/bench with /usr/bin/time.
func BenchmarkStoreToT1000(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range, cfg.Params = "game24", "tot", "0:1000", map[string]any{"b": 5}
	ctx := context.Background()
	for range b.N {
		path := filepath.Join(b.TempDir(), "tot1000.db")
		run := func() (time.Duration, int, int64) {
			st, err := store.Open(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			sum, err := (&Engine{Store: st}).Run(ctx, cfg)
			wall := time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			if err := st.Close(); err != nil { // checkpoints the WAL into the file
				b.Fatal(err)
			}
			info, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			return wall, sum.Calls, info.Size()
		}
		firstWall, calls, first := run()
		rerunWall, rerunCalls, second := run()
		if rerunCalls != calls {
			b.Fatalf("rerun made %d calls, the first run %d", rerunCalls, calls)
		}
		b.ReportMetric(float64(calls), "calls")
		b.ReportMetric(firstWall.Seconds(), "run_s")
		b.ReportMetric(float64(first)/float64(calls), "B/call")
		b.ReportMetric(rerunWall.Seconds(), "rerun_s")
		b.ReportMetric(float64(second-first)/float64(calls), "rerun_B/call")
	}
}
