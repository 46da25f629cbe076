package view

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/store"
)

var (
	bigOnce sync.Once
	bigPath string
	bigRun  int64
	bigErr  error
)

// bigDB makes a 1000-puzzle ToT run (b=5) on the simulator: about 50,000
// calls, as the speed target asks.
func bigDB(b *testing.B) (string, int64) {
	bigOnce.Do(func() {
		dir, err := os.MkdirTemp("", "benchview-big")
		if err != nil {
			bigErr = err
			return
		}
		bigPath = filepath.Join(dir, "big.db")
		ctx := context.Background()
		st, err := store.Open(ctx, bigPath)
		if err != nil {
			bigErr = err
			return
		}
		defer st.Close()
		cfg := bench.DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range, cfg.Params = "game24", "tot", "0:1000", map[string]any{"b": 5}
		sum, err := (&bench.Engine{Store: st}).Run(ctx, cfg)
		bigRun, bigErr = sum.RunID, err
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigPath, bigRun
}

// BenchmarkRunPage serves /runs/ID of the big run; the target is < 300 ms.
func BenchmarkRunPage(b *testing.B) {
	path, id := bigDB(b)
	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	tot, err := st.Totals(ctx, id)
	if err != nil {
		b.Fatal(err)
	}
	h, err := New(st, cat)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, page := range []struct{ name, path string }{
		{"run", "/runs/" + formatInt(id)},
		{"run_filtered", "/runs/" + formatInt(id) + "?filter=wrong&page=2"},
		{"runs", "/"},
		{"item", "/runs/" + formatInt(id) + "/items/500"},
	} {
		b.Run(page.name, func(b *testing.B) {
			for b.Loop() {
				resp, err := http.Get(srv.URL + page.path)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("GET %s: %d", page.path, resp.StatusCode)
				}
			}
			b.ReportMetric(float64(tot.Calls), "calls_in_run")
		})
	}
}
