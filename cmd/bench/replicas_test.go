package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/store"
)

// startServeSimProcess runs `bench serve-sim` as a child process
// (benchBinary) on a free loopback port, so that a test can SIGKILL it; it
// returns the base URL and the process.
func startServeSimProcess(t *testing.T, args ...string) (string, *os.Process) {
	t.Helper()
	cmd := exec.Command(benchBinary(t), append([]string{"serve-sim", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("serve-sim: %v", err)
	}
	go io.Copy(io.Discard, out)
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("serve-sim said %q", line)
	}
	return strings.Fields(line[i:])[0], cmd.Process
}

// TestReplicasOneKilledMidRun runs against three serve-sim replicas with
// --base-url A,B,C, SIGKILLs one when a quarter of the items are stored,
// and checks that the run completes with the numbers of a run against one
// endpoint and that the live replicas served a fair share each.
func TestReplicasOneKilledMidRun(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
	if testing.Short() {
		t.Skip("starts child processes")
	}
	var urls []string
	var procs []*os.Process
	for range 3 {
		u, p := startServeSimProcess(t, "--latency", "4ms")
		urls, procs = append(urls, u), append(procs, p)
	}
	dir := t.TempDir()
	args := func(db, base string) []string {
		return []string{"run", "--db", db, "--base-url", base, "--task", "game24", "--strategy", "tot", "--set", "b=1",
			"--range", "900:940", "--concurrency", "6", "--json"}
	}
	decode := func(out string) bench.Summary {
		t.Helper()
		var s bench.Summary
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("%v: %q", err, out)
		}
		return s
	}
	code, out, stderr := cli(t, args(filepath.Join(dir, "one.db"), urls[0])...)
	if code != 0 {
		t.Fatalf("one endpoint: %s", stderr)
	}
	ref := decode(out)

	db := filepath.Join(dir, "three.db")
	type result struct {
		code        int
		out, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, out, stderr := cli(t, args(db, strings.Join(urls, ","))...)
		done <- result{code, out, stderr}
	}()
	deadline := time.Now().Add(stallLimit)
	for countItems(t, db) < 10 {
		if time.Now().After(deadline) {
			t.Fatalf("fewer than 10 items stored in %v", stallLimit)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := procs[2].Kill(); err != nil {
		t.Fatal(err)
	}
	killedAt := countItems(t, db)
	res := <-done
	if res.code != 0 {
		t.Fatalf("three replicas, one killed: exit %d: %s", res.code, res.stderr)
	}
	if killedAt >= 40 {
		t.Fatalf("the run finished before the replica was killed")
	}
	got := decode(res.out)
	if got.N != ref.N || got.Accuracy != ref.Accuracy || got.Calls != ref.Calls || got.PromptTokens != ref.PromptTokens ||
		got.CompletionTokens != ref.CompletionTokens || got.Metrics["any_at_b"] != ref.Metrics["any_at_b"] {
		t.Errorf("three replicas, one killed at %d items:\n%+v\none endpoint:\n%+v", killedAt, got, ref)
	}
	// Item for item, the same outputs.
	one, three := shardRunItems(t, filepath.Join(dir, "one.db"))[1], shardRunItems(t, db)[1]
	for i := range one {
		if one[i].Output != three[i].Output || one[i].Correct != three[i].Correct {
			t.Errorf("item %d: %q over three replicas, %q over one", one[i].Index, three[i].Output, one[i].Output)
		}
	}

	st, err := store.OpenExisting(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run, err := st.GetRun(context.Background(), got.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Replicas []llm.ReplicaStat `json:"replicas"`
	}
	if err := json.Unmarshal(run.Spec, &spec); err != nil || len(spec.Replicas) != 3 {
		t.Fatalf("run record's replicas: %s (%v)", run.Spec, err)
	}
	var total int64
	for _, r := range spec.Replicas {
		total += r.Served
	}
	a, b, c := spec.Replicas[0], spec.Replicas[1], spec.Replicas[2]
	t.Logf("killed replica C at %d of 40 items; served A %d, B %d, C %d (C failed %d attempts); endpoint %s", killedAt, a.Served, b.Served, c.Served, c.Failed, run.Endpoint)
	if a.Name != llmPublic(urls[0]) || c.Name != llmPublic(urls[2]) || !strings.Contains(run.Endpoint, ",") {
		t.Errorf("replicas recorded as %+v, endpoint %q", spec.Replicas, run.Endpoint)
	}
	// The live replicas share what C did not serve evenly (least in flight),
	// and C served only until it was killed.
	for _, r := range []llm.ReplicaStat{a, b} {
		if float64(r.Served) < 0.3*float64(total) {
			t.Errorf("live replica %s served %d of %d calls; want a fair share", r.Name, r.Served, total)
		}
	}
	if ratio := float64(a.Served) / float64(b.Served); ratio < 0.8 || ratio > 1.25 {
		t.Errorf("live replicas served %d and %d: not an even split", a.Served, b.Served)
	}
	if c.Served == 0 || c.Served >= a.Served || c.Failed == 0 {
		t.Errorf("killed replica served %d (failed %d); want some calls before it died, fewer than a live one, and failures after", c.Served, c.Failed)
	}
}

func llmPublic(u string) string { return bench.PublicEndpoint(u) }

func TestReplicaLine(t *testing.T) {
	t.Parallel()
	got := replicaLine([]llm.ReplicaStat{{Name: "a", Served: 412}, {Name: "b", Served: 398}, {Name: "c", Served: 7, Aside: true}})
	if got != " replicas 412 398 7(aside)" {
		t.Errorf("progress line part %q", got)
	}
	if replicaLine(nil) != "" {
		t.Errorf("one endpoint shows replicas")
	}
}
