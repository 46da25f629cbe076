package bench

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/tasks"
)

// Shard says which part of a run's items one process runs (bench run
// --shard I/N). The units of work are (run, item) pairs in order: the runs
// of an experiment file (configurations × repeats) in file order, the items
// of each run in range order. Unit u belongs to shard u mod N, so every
// shard gets a near-equal share of every configuration, and an experiment of
// many short runs spreads over the shards too. Within one run that is the
// items at positions p ≡ Part (mod Count) of its range: the run's own
// part, which the spec records. An item's seed depends on its index in the
// data set alone (ItemSeed), so shards together equal the unsharded run.
type Shard struct {
	Index int `json:"index"` // the process's shard, 0-based
	Count int `json:"count"` // how many shards in all
	// Part is the run's own residue: it holds the items at positions p of
	// its range with p mod Count == Part.
	Part int `json:"part"`
	// Slot is the run's position in its experiment (0 for a single run):
	// bench merge matches shards of the same slot and refuses them if their
	// configurations differ.
	Slot int `json:"slot,omitempty"`
}

// String is I/N, the process's shard.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// ShardEnv names the variable that gives N to --shard auto under a
// Kubernetes Indexed Job (which numbers its pods but does not say how many
// there are in an environment variable).
const ShardEnv = "BENCH_SHARDS"

// ParseShard reads --shard: "I/N" (0 <= I < N), "auto" (I and N from a
// Slurm job array, or I from a Kubernetes Indexed Job and N from
// $BENCH_SHARDS) or "auto/N" (N given; under Slurm the task id is I, so a
// task resubmitted alone keeps its shard). getenv reads the environment.
func ParseShard(s string, getenv func(string) string) (index, count int, err error) {
	s = strings.TrimSpace(s)
	if s == "auto" || strings.HasPrefix(s, "auto/") {
		flagN := 0
		if rest, ok := strings.CutPrefix(s, "auto/"); ok {
			if flagN, err = strconv.Atoi(rest); err != nil || flagN < 1 {
				return 0, 0, fmt.Errorf("--shard %q: want auto/N with N a whole number of shards, at least 1", s)
			}
		}
		return autoShard(flagN, getenv)
	}
	i, n, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, fmt.Errorf("--shard %q: want I/N (shard I of N, counted from 0, e.g. 0/4) or auto", s)
	}
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if err1 != nil || err2 != nil || count < 1 || index < 0 || index >= count {
		return 0, 0, fmt.Errorf("--shard %q: want I/N with 0 <= I < N (shards are counted from 0, e.g. 0/4 to 3/4)", s)
	}
	return index, count, nil
}

// autoShard reads the shard from the cluster's environment: Slurm's job
// array variables first, then a Kubernetes Indexed Job's completion index.
func autoShard(flagN int, getenv func(string) string) (int, int, error) {
	num := func(name string) (int, bool, error) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, true, fmt.Errorf("--shard auto: %s=%q is not a whole number; unset it, or pass --shard I/N", name, v)
		}
		return n, true, nil
	}
	id, slurm, err := num("SLURM_ARRAY_TASK_ID")
	if err != nil {
		return 0, 0, err
	}
	if slurm && flagN != 0 {
		// auto/N: the task id is the shard, so that a failed task can be
		// resubmitted alone (sbatch --array=I) and still be shard I of N.
		if id < 0 || id >= flagN {
			return 0, 0, fmt.Errorf("--shard auto/%d: SLURM_ARRAY_TASK_ID=%d is not a shard of %d; submit the array as --array=0-%d", flagN, id, flagN, flagN-1)
		}
		return id, flagN, nil
	}
	if slurm {
		count, ok, err := num("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return 0, 0, err
		}
		if !ok {
			return 0, 0, errors.New("--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; pass --shard I/N")
		}
		lo, ok, err := num("SLURM_ARRAY_TASK_MIN")
		if err != nil {
			return 0, 0, err
		}
		if !ok {
			return 0, 0, errors.New("--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN is not; pass --shard I/N")
		}
		step, ok, err := num("SLURM_ARRAY_TASK_STEP")
		if err != nil {
			return 0, 0, err
		}
		if !ok || step < 1 {
			step = 1
		}
		if count == 1 && id != 0 {
			// An array of one task not numbered 0 is most likely one task
			// of a larger array resubmitted alone (sbatch --array=2), which
			// would run the whole range.
			return 0, 0, fmt.Errorf("--shard auto: array task %d is the only task of its array; to rerun one shard of a larger array pass --shard auto/N (or --shard %d/N)", id, id)
		}
		if (id-lo)%step != 0 || (id-lo)/step >= count || id < lo {
			return 0, 0, fmt.Errorf("--shard auto: array task %d of %d starting at %d (step %d) is not one of a contiguous range; submit the array as --array=0-%d", id, count, lo, step, count-1)
		}
		return (id - lo) / step, count, nil
	}
	idx, k8s, err := num("JOB_COMPLETION_INDEX")
	if err != nil {
		return 0, 0, err
	}
	if !k8s {
		return 0, 0, errors.New("--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm job array, sbatch --array) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set; pass --shard I/N")
	}
	count := flagN
	if count == 0 {
		n, ok, err := num(ShardEnv)
		if err != nil {
			return 0, 0, err
		}
		if !ok || n < 1 {
			return 0, 0, fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX is set but not how many shards: set %s to the Job's completions, or pass --shard auto/N", ShardEnv)
		}
		count = n
	}
	if idx < 0 || idx >= count {
		return 0, 0, fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%d is not below the %d shards; make %s (or auto/N) equal the Job's completions", idx, count, ShardEnv)
	}
	return idx, count, nil
}

// ShardRuns gives each configuration (an experiment's runs in order, or
// one run) its part of shard index of count: the configurations left are
// those with items in this shard, each with Shard set. It loads every
// configuration to count its items.
func ShardRuns(cfgs []Config, index, count int) ([]Config, error) {
	if count < 1 || index < 0 || index >= count {
		return nil, fmt.Errorf("shard %d/%d: want 0 <= I < N", index, count)
	}
	var out []Config
	offset := 0 // units before this run, mod count
	for slot, cfg := range cfgs {
		cfg.Shard = nil
		p, err := load(cfg)
		if err != nil {
			return nil, ConfigError{err}
		}
		n := len(p.instances)
		part := ((index-offset)%count + count) % count
		offset = (offset + n) % count
		if part >= n {
			continue // fewer items than shards: none of this run's is ours
		}
		cfg.Shard = &Shard{Index: index, Count: count, Part: part, Slot: slot}
		out = append(out, cfg)
	}
	return out, nil
}

// selectShard keeps the instances of the shard's part: positions p of the
// range with p mod Count == Part. Positions, not data set indexes, so that
// any range splits evenly.
func selectShard(insts []tasks.Instance, rng tasks.Range, s *Shard) ([]tasks.Instance, error) {
	if s == nil {
		return insts, nil
	}
	if s.Count < 1 || s.Part < 0 || s.Part >= s.Count || s.Index < 0 || s.Index >= s.Count {
		return nil, fmt.Errorf("shard %s part %d: want 0 <= I, PART < N", s, s.Part)
	}
	var out []tasks.Instance
	for _, in := range insts {
		if (in.Index-rng.Start)%s.Count == s.Part {
			out = append(out, in)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("shard %s has no items of range %s", s, rng)
	}
	return out, nil
}
