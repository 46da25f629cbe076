package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// k8sJob is the part of a Job manifest the shards depend on.
type k8sJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy string         `yaml:"restartPolicy"`
				Containers    []k8sContainer `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sContainer struct {
	Name    string   `yaml:"name"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
}

// TestK8sJobManifest checks examples/k8s/shards-job.yaml without a
// Kubernetes cluster (none can run here): it is an Indexed Job whose
// BENCH_SHARDS equals its completions, and its shard container's shell
// command, run for each JOB_COMPLETION_INDEX as a pod would (its paths moved
// to a temporary folder, the model server replaced by bench serve-sim),
// gives shard databases that merge to the unsharded run; a retried pod of
// a finished index adds no run.
func TestK8sJobManifest(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
	b, err := os.ReadFile("../../examples/k8s/shards-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job k8sJob
	if err := yaml.Unmarshal(b, &job); err != nil {
		t.Fatalf("shards-job.yaml: %v", err)
	}
	spec := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || spec.CompletionMode != "Indexed" || spec.Completions < 2 || spec.Parallelism < 1 ||
		spec.Template.Spec.RestartPolicy != "Never" {
		t.Fatalf("not an Indexed Job of several completions: %+v", job)
	}
	var shard *k8sContainer
	for i, c := range spec.Template.Spec.Containers {
		if c.Name == "shard" {
			shard = &spec.Template.Spec.Containers[i]
		}
	}
	if shard == nil || len(shard.Args) != 1 || strings.Join(shard.Command, " ") != "/bin/sh -c" {
		t.Fatalf("want a container named shard running one /bin/sh -c command: %+v", spec.Template.Spec.Containers)
	}
	shards := ""
	for _, e := range shard.Env {
		if e.Name == "BENCH_SHARDS" {
			shards = e.Value
		}
	}
	if shards != fmt.Sprint(spec.Completions) {
		t.Fatalf("BENCH_SHARDS is %q, completions %d: they must be equal", shards, spec.Completions)
	}
	script := shard.Args[0]
	if !strings.Contains(script, "--shard auto ") {
		t.Fatalf("the shard command does not take its shard from the index (--shard auto): %s", script)
	}

	dir := t.TempDir()
	url, _ := startServeSimProcess(t)
	exp := filepath.Join(dir, "experiment.yaml")
	if err := os.WriteFile(exp, []byte("name: k8s\ntask: game24\nrange: \"900:911\"\nseeds: [1]\nstrategies:\n  - cotsc: {k: 4}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{bin, filepath.Join(dir, "results"), filepath.Join(dir, "scratch")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(benchBinary(t), filepath.Join(bin, "bench")); err != nil {
		t.Fatal(err)
	}
	local := script
	for from, to := range map[string]string{"/results/": dir + "/results/", "/scratch/": dir + "/scratch/",
		"/work/experiment.yaml": exp, "http://127.0.0.1:8000/v1": url} {
		if !strings.Contains(local, from) {
			t.Fatalf("the shard command no longer names %s: %s", from, script)
		}
		local = strings.ReplaceAll(local, from, to)
	}
	var env []string // a pod's: no Slurm variable (Slurm's would win)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLURM_") && !strings.HasPrefix(kv, "JOB_COMPLETION_INDEX=") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+bin+":"+os.Getenv("PATH"), childEnv+"=1", "BENCH_SHARDS="+shards)
	pod := func(index int) {
		t.Helper()
		os.Remove(filepath.Join(dir, "scratch", "shard.db")) // each pod has an empty scratch
		cmd := exec.Command("/bin/sh", "-c", local)
		cmd.Env = append(env, fmt.Sprintf("JOB_COMPLETION_INDEX=%d", index))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pod %d: %v\n%s", index, err, out)
		}
	}
	var dbs []string
	for i := range spec.Completions {
		pod(i)
		dbs = append(dbs, filepath.Join(dir, "results", fmt.Sprintf("shard-%d.db", i)))
		if n, want := len(shardRunItems(t, dbs[i])[1]), 11/spec.Completions+btoi(i < 11%spec.Completions); n != want {
			t.Fatalf("index %d: shard database holds %d items, want %d (positions %d, %d+%d, ...)", i, n, want, i, i, spec.Completions)
		}
	}
	pod(2) // a retried pod: continues the done shard, adds no run
	if runs := storeRuns(t, dbs[2]); len(runs) != 1 {
		t.Errorf("index 2 run again: %d runs in its database, want 1", len(runs))
	}
	merged, ref := filepath.Join(dir, "all.db"), filepath.Join(dir, "ref.db")
	if code, out, stderr := cli(t, append([]string{"merge", "--complete", "--out", merged}, dbs...)...); code != 0 {
		t.Fatalf("merge: %s%s", out, stderr)
	}
	if code, _, stderr := cli(t, "run", "-f", exp, "--model", "Qwen/Qwen2.5-7B-Instruct", "--base-url", url, "--db", ref); code != 0 {
		t.Fatalf("unsharded run: %s", stderr)
	}
	sameRun(t, ref, merged, false)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
