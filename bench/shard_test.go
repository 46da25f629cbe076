package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/store"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseShard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		arg       string
		env       map[string]string
		index, n  int
		wantError []string
	}{
		{arg: "0/3", index: 0, n: 3},
		{arg: "2/3", index: 2, n: 3},
		{arg: " 1 / 4 ", index: 1, n: 4},
		{arg: "0/1", index: 0, n: 1},
		{arg: "3/3", wantError: []string{"0 <= I < N", "counted from 0"}},
		{arg: "-1/3", wantError: []string{"0 <= I < N"}},
		{arg: "1/0", wantError: []string{"0 <= I < N"}},
		{arg: "a/b", wantError: []string{"I/N"}},
		{arg: "2", wantError: []string{"want I/N", "or auto"}},
		// Slurm: --array=0-2, --array=1-3, --array=10-30:10.
		{arg: "auto", env: map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0"}, index: 2, n: 3},
		{arg: "auto", env: map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1"}, index: 0, n: 3},
		{arg: "auto", env: map[string]string{"SLURM_ARRAY_TASK_ID": "30", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_STEP": "10"}, index: 2, n: 3},
		{arg: "auto/3", env: map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0"}, index: 1, n: 3},
		// auto/N: the task id is the shard, also for a task resubmitted alone.
		{arg: "auto/4", env: map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "1", "SLURM_ARRAY_TASK_MIN": "2"}, index: 2, n: 4},
		{arg: "auto/4", env: map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "5", "SLURM_ARRAY_TASK_MIN": "0"}, wantError: []string{"not a shard of 4", "--array=0-3"}},
		// --array=1,5,9: not contiguous.
		{arg: "auto", env: map[string]string{"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1"}, wantError: []string{"contiguous", "--array=0-2"}},
		{arg: "auto", env: map[string]string{"SLURM_ARRAY_TASK_ID": "1"}, wantError: []string{"SLURM_ARRAY_TASK_COUNT is not"}},
		{arg: "auto", env: map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0"}, wantError: []string{`SLURM_ARRAY_TASK_ID="x"`}},
		// Kubernetes Indexed Job.
		{arg: "auto", env: map[string]string{"JOB_COMPLETION_INDEX": "4", ShardEnv: "5"}, index: 4, n: 5},
		{arg: "auto/5", env: map[string]string{"JOB_COMPLETION_INDEX": "0"}, index: 0, n: 5},
		{arg: "auto", env: map[string]string{"JOB_COMPLETION_INDEX": "4"}, wantError: []string{ShardEnv, "auto/N"}},
		{arg: "auto", env: map[string]string{"JOB_COMPLETION_INDEX": "5", ShardEnv: "5"}, wantError: []string{"not below the 5 shards"}},
		{arg: "auto/0", env: map[string]string{"JOB_COMPLETION_INDEX": "0"}, wantError: []string{"at least 1"}},
		// Neither.
		{arg: "auto", wantError: []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "pass --shard I/N"}},
	} {
		i, n, err := ParseShard(tc.arg, envOf(tc.env))
		if tc.wantError != nil {
			if err == nil {
				t.Errorf("%q %v: no error (got %d/%d)", tc.arg, tc.env, i, n)
				continue
			}
			for _, w := range tc.wantError {
				if !strings.Contains(err.Error(), w) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%q %v: error %q lacks %q", tc.arg, tc.env, err, w)
				}
			}
			continue
		}
		if err != nil || i != tc.index || n != tc.n {
			t.Errorf("%q %v: %d/%d, %v; want %d/%d", tc.arg, tc.env, i, n, err, tc.index, tc.n)
		}
	}
}

// TestShardRunsPartition checks that the shards of an experiment hold every
// (run, item) unit exactly once, near-evenly, whatever the sizes: 90 units,
// in 1 to 97 shards (more shards than units, so some are empty). Its cost
// is a plan per run and shard, so the shard counts are kept small (issue
// 25: 250 shards of 210 units took 27 s under -race on a busy machine).
func TestShardRunsPartition(t *testing.T) {
	t.Parallel()
	ranges := []string{"900:940", "0:2", "5:6", "10:17", "900:940"}
	var cfgs []Config
	for _, r := range ranges {
		c := DefaultConfig()
		c.Task, c.Strategy, c.Range = "game24", "cot", r
		cfgs = append(cfgs, c)
	}
	units := 0
	for _, r := range ranges {
		var lo, hi int
		if _, err := fmtSscan(r, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		units += hi - lo
	}
	for _, n := range []int{1, 2, 3, 7, 97} {
		seen := map[[2]int]int{} // (slot, index) → times
		loads := make([]int, n)
		for i := range n {
			got, err := ShardRuns(cfgs, i, n)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range got {
				if c.Shard == nil || c.Shard.Index != i || c.Shard.Count != n {
					t.Fatalf("shard %d/%d: config has shard %+v", i, n, c.Shard)
				}
				p, err := load(c)
				if err != nil {
					t.Fatal(err)
				}
				for _, in := range p.instances {
					seen[[2]int{c.Shard.Slot, in.Index}]++
				}
				loads[i] += len(p.instances)
			}
		}
		if len(seen) != units {
			t.Errorf("%d shards: %d distinct units, want %d", n, len(seen), units)
		}
		for u, k := range seen {
			if k != 1 {
				t.Errorf("%d shards: unit %v in %d shards", n, u, k)
			}
		}
		lo, hi := loads[0], loads[0]
		for _, l := range loads {
			lo, hi = min(lo, l), max(hi, l)
		}
		if hi-lo > 1 {
			t.Errorf("%d shards: loads %v differ by more than one unit", n, loads)
		}
	}
}

// TestShardKeepsItemSeeds checks that a shard's items send the requests
// (seeds included) they send in the whole run: the seed depends on the data
// set index, not on the item's position in the shard.
func TestShardKeepsItemSeeds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng := &Engine{Store: st}
	c := DefaultConfig()
	c.Task, c.Strategy, c.Range, c.Params = "game24", "cotsc", "900:910", map[string]any{"k": 3}
	whole, err := eng.Run(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := ShardRuns([]Config{c}, 1, 3)
	if err != nil || len(cfgs) != 1 {
		t.Fatal(cfgs, err)
	}
	part, err := eng.Run(ctx, cfgs[0])
	if err != nil {
		t.Fatal(err)
	}
	items, err := st.Items(ctx, part.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 || items[0].Index != 901 || items[2].Index != 907 {
		t.Fatalf("shard 1/3 of 900:910 holds %d items", len(items))
	}
	for _, it := range items {
		got, err := st.Calls(ctx, part.RunID, it.Index)
		if err != nil {
			t.Fatal(err)
		}
		want, err := st.Calls(ctx, whole.RunID, it.Index)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || len(got) != len(want) {
			t.Fatalf("item %d: %d calls in the shard, %d in the run", it.Index, len(got), len(want))
		}
		for i := range got {
			if string(got[i].Request) != string(want[i].Request) || string(got[i].Response) != string(want[i].Response) {
				t.Errorf("item %d call %d: the shard sent\n%s\nthe run\n%s", it.Index, i, got[i].Request, want[i].Request)
			}
		}
	}
	r, err := st.GetRun(ctx, part.RunID)
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.GetRun(ctx, whole.RunID)
	if err != nil {
		t.Fatal(err)
	}
	info, err := MergeInfo(r)
	if err != nil {
		t.Fatal(err)
	}
	if r.ConfigKey == w.ConfigKey || info.Key != w.ConfigKey || info.Shard == nil || info.Shard.Part != 1 || r.Range != "900:910" {
		t.Errorf("shard key %s, unsharded key %s, run key %s, shard %+v, range %s: want a key of its own, the run's as unsharded key, the whole range",
			r.ConfigKey, info.Key, w.ConfigKey, info.Shard, r.Range)
	}
}

func fmtSscan(r string, lo, hi *int) (int, error) {
	return fmt.Sscanf(strings.Replace(r, ":", " ", 1), "%d %d", lo, hi)
}

// TestExperimentBaseURLs checks an experiment file's model.base_urls: the
// replicas become the run's endpoints; a malformed list is refused at its
// line.
func TestExperimentBaseURLs(t *testing.T) {
	t.Parallel()
	file := "task: game24\nrange: 900:901\nmodel:\n  name: m\n  base_urls: [http://a:8000/v1, http://b:8000/v1]\nstrategies:\n  - cot: {}\n"
	exp, err := ParseExperiment("e.yaml", []byte(file), DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := exp.Runs[0].Endpoints(); fmt.Sprint(got) != "[http://a:8000/v1 http://b:8000/v1]" {
		t.Errorf("endpoints %v", got)
	}
	for _, bad := range []string{"base_urls: http://a/v1", "base_urls: []", "base_urls: [ftp://a]", `base_urls: ["http://a/v1,http://b/v1"]`} {
		f := strings.Replace(file, "base_urls: [http://a:8000/v1, http://b:8000/v1]", bad, 1)
		if _, err := ParseExperiment("e.yaml", []byte(f), DefaultConfig(), 0); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v; want one line", bad, err)
		}
	}
}
