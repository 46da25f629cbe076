package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSlurmShardHeldRefused: a shard task submitted while another task
// holds the shard (a requeue while the first still runs on a node Slurm
// lost touch with) is refused without touching the shard's database; once
// the holder's heartbeat is stale, a task takes the shard and runs it, and
// leaves no holder file.
func TestSlurmShardHeldRefused(t *testing.T) {
	requireSlurm(t)
	s := newSlurmSite(t)
	out := filepath.Join(s.dir, "held")
	env := []string{"OVERRIDE_OUT=" + out, "OVERRIDE_BENCH_ARGS=--task game24 --strategy io --range 900:904"}
	holder := filepath.Join(out, "shard-0.holder")
	submit := map[string][2]string{"submit": {`jid=$(sbatch --parsable --array=0-$((SHARDS - 1)) examples/slurm/shards.sbatch)
mid=$(sbatch --parsable --dependency=afterok:"$jid" examples/slurm/merge.sbatch)`, `jid=$(sbatch --parsable --array=0 examples/slurm/shards.sbatch)
mid=$jid`}}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(holder, []byte("job 7 (restart 0) on node-lost, pid 99\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	jid, _ := jobIDs(t, s.bash(env, []string{"setup", "submit"}, submit))
	if st := s.waitJob(jid, 3*time.Minute); st["0"] != "FAILED" {
		t.Fatalf("a shard held by a live task: %v, want FAILED", st)
	}
	if log := s.log(jid, 0); !strings.Contains(log, "job 7 (restart 0) on node-lost, pid 99 is still working on this shard") {
		t.Errorf("the refused task's log: %q", log)
	}
	if _, err := os.Stat(filepath.Join(out, "shard-0.db")); err == nil {
		t.Error("the refused task wrote the shard's database")
	}
	if b, _ := os.ReadFile(holder); !strings.Contains(string(b), "node-lost") {
		t.Errorf("the refused task took the holder file: %q", b)
	}
	// The holder gone for over a minute: its file is stale.
	old := time.Now().Add(-2 * time.Minute)
	if err := os.Chtimes(holder, old, old); err != nil {
		t.Fatal(err)
	}
	jid, _ = jobIDs(t, s.bash(env, []string{"setup", "submit"}, submit))
	s.wantCompleted(jid, 3*time.Minute)
	if _, err := os.Stat(filepath.Join(out, "shard-0.db")); err != nil {
		t.Errorf("the task that took the stale shard stored nothing: %v", err)
	}
	if _, err := os.Stat(holder); err == nil {
		t.Error("a finished task left its holder file")
	}
}
