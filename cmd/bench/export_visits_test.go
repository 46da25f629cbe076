package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportCarriesVisits: an MCTS run's exported tree has each node's
// visit count, as bench show prints it; the root is visited by every
// iteration the item ran.
func TestExportCarriesVisits(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "m.db")
	if code, _, stderr := cli(t, "run", "--db", db, "--task", "game24", "--strategy", "mcts", "--range", "900:902",
		"--set", "iterations=5", "--set", "solved_value=2"); code != 0 {
		t.Fatalf("run: %d %s", code, stderr)
	}
	code, stdout, stderr := cli(t, "export", "1", "--db", db)
	if code != 0 {
		t.Fatalf("export: %d %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want header + 2 items", len(lines))
	}
	for _, line := range lines[1:] {
		var item struct {
			Metrics map[string]float64
			Tree    []struct {
				ID, Parent int
				Visits     *int
			}
		}
		if err := json.Unmarshal([]byte(line), &item); err != nil {
			t.Fatal(err)
		}
		if len(item.Tree) == 0 || item.Tree[0].Visits == nil {
			t.Fatalf("tree without visits: %.300s", line)
		}
		if got, want := *item.Tree[0].Visits, int(item.Metrics["iterations"]); got != want || want == 0 {
			t.Errorf("root visited %d times, item ran %d iterations", got, want)
		}
	}
}
