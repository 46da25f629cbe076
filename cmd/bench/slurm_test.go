package main

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/store"
)

// clusterDoc is the page whose example scripts and commands the tests run.
const clusterDoc = "../../docs/cluster.md"

// docBlocks reads the fenced blocks of a markdown file that follow a marker
// line <!-- KIND: NAME -->, by name.
func docBlocks(t *testing.T, path, kind string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	marker := regexp.MustCompile(`^<!-- ` + kind + `: (\S+) -->$`)
	blocks := map[string]string{}
	sc := bufio.NewScanner(f)
	name, in := "", false
	var body strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case in && line == "```":
			blocks[name], name, in = body.String(), "", false
			body.Reset()
		case in:
			body.WriteString(line + "\n")
		case name != "" && strings.HasPrefix(line, "```"):
			in = true
		case name != "":
			t.Fatalf("%s: marker %s: %s is not followed by a fenced block", path, kind, name)
		default:
			if m := marker.FindStringSubmatch(line); m != nil {
				name = m[1]
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

// TestClusterDocShowsTheExamples: every example file the cluster page
// shows is shown as it is in examples/.
func TestClusterDocShowsTheExamples(t *testing.T) {
	t.Parallel()
	files := docBlocks(t, clusterDoc, "file")
	for _, want := range []string{"examples/slurm/shards.sbatch", "examples/slurm/merge.sbatch", "examples/k8s/shards-job.yaml"} {
		if _, ok := files[want]; !ok {
			t.Errorf("%s does not show %s (a <!-- file: %s --> block)", clusterDoc, want, want)
		}
	}
	for path, shown := range files {
		b, err := os.ReadFile(filepath.Join("../..", path))
		if err != nil {
			t.Errorf("%s shows %s: %v", clusterDoc, path, err)
			continue
		}
		if string(b) != shown {
			t.Errorf("%s's copy of %s differs from the file: copy the file into the page", clusterDoc, path)
		}
	}
}

// requireSlurm skips the test unless a Slurm controller answers and a node
// is up; with BENCH_REQUIRE_SLURM=1 (CI) it fails instead.
func requireSlurm(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("submits jobs to Slurm")
	}
	// sinfo retries a controller that is down for 10 s; 3 s tell.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	why := ""
	if _, err := exec.LookPath("sbatch"); err != nil {
		why = "sbatch is not installed"
	} else if out, err := exec.CommandContext(ctx, "sinfo", "-h", "-o", "%T").CombinedOutput(); ctx.Err() != nil {
		why = "no Slurm controller answers sinfo within 3 s"
	} else if err != nil {
		why = fmt.Sprintf("sinfo: %v: %s", err, strings.TrimSpace(string(out)))
	} else if !regexp.MustCompile(`(?m)^(idle|mixed|allocated)`).Match(out) {
		why = fmt.Sprintf("no Slurm node is up (sinfo says %q)", strings.TrimSpace(string(out)))
	}
	if why == "" {
		return
	}
	if os.Getenv("BENCH_REQUIRE_SLURM") == "1" {
		t.Fatalf("BENCH_REQUIRE_SLURM=1 but %s; start a one-node cluster with scripts/slurm/local-cluster.sh start", why)
	}
	t.Skipf("%s (scripts/slurm/local-cluster.sh start makes a one-node cluster)", why)
}

// slurmSite is a submission folder: bench (benchBinary), the repository's examples/, logs/ and the jobs' scratch.
type slurmSite struct {
	t       *testing.T
	dir     string
	scratch string
	blocks  map[string]string
	jobs    []string // submitted, cancelled when the test ends
}

func newSlurmSite(t *testing.T) *slurmSite {
	dir := t.TempDir()
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	// As a checkout after make build: bin/bench and examples/.
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"bin/bench": benchBinary(t), "examples": examples} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	s := &slurmSite{t: t, dir: dir, scratch: filepath.Join(dir, "scratch"), blocks: docBlocks(t, clusterDoc, "run")}
	if err := os.Mkdir(s.scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if len(s.jobs) > 0 {
			exec.Command("scancel", s.jobs...).Run()
		}
	})
	return s
}

// bash runs the doc's blocks in order (edited by edit, which must change
// each block it is given text for), after the assignments in env, in the
// submission folder, and returns what they print. The jobs inherit this
// environment (sbatch --export=ALL).
func (s *slurmSite) bash(env []string, names []string, edit map[string][2]string) string {
	t := s.t
	t.Helper()
	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&script, "export %s=%q\n", k, v)
	}
	for _, n := range names {
		b, ok := s.blocks[n]
		if !ok {
			t.Fatalf("%s has no <!-- run: %s --> block", clusterDoc, n)
		}
		if e, ok := edit[n]; ok {
			if !strings.Contains(b, e[0]) {
				t.Fatalf("block %s no longer contains %q", n, e[0])
			}
			b = strings.Replace(b, e[0], e[1], 1)
		}
		script.WriteString(b)
		if n == "setup" {
			for _, kv := range env { // the test's own settings win over the doc's examples
				k, v, _ := strings.Cut(kv, "=")
				if strings.HasPrefix(k, "OVERRIDE_") {
					fmt.Fprintf(&script, "export %s=%q\n", strings.TrimPrefix(k, "OVERRIDE_"), v)
				}
			}
		}
	}
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), childEnv+"=1", "TMPDIR="+s.scratch)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the doc's %v blocks: %v\n%s", names, err, out)
	}
	for _, m := range regexp.MustCompile(`job (\d+)`).FindAllStringSubmatch(string(out), -1) {
		s.jobs = append(s.jobs, m[1])
	}
	return string(out)
}

// jobIDs reads "NAME: job N, merge: job M" as the blocks print it.
func jobIDs(t *testing.T, out string) (shards, merge string) {
	t.Helper()
	m := regexp.MustCompile(`: job (\d+), merge: job (\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no job ids in %q", out)
	}
	return m[1], m[2]
}

// jobStates is each task of a job and its state (scontrol, which keeps
// finished jobs for MinJobAge); a pending job whose dependency can never be
// met is "NEVER".
func jobStates(t *testing.T, id string) map[string]string {
	t.Helper()
	out, err := exec.Command("scontrol", "-o", "show", "job", id).CombinedOutput()
	if err != nil {
		t.Fatalf("scontrol show job %s: %v: %s", id, err, out)
	}
	field := func(line, name string) string {
		m := regexp.MustCompile(`(?:^| )` + name + `=(\S*)`).FindStringSubmatch(line)
		if m == nil {
			return ""
		}
		return m[1]
	}
	states := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		task := field(line, "ArrayTaskId")
		if task == "" {
			task = field(line, "JobId")
		}
		st := field(line, "JobState")
		if st == "PENDING" && field(line, "Reason") == "DependencyNeverSatisfied" {
			st = "NEVER"
		}
		states[task] = st
	}
	return states
}

// waitJob waits until every task of a job has ended and returns their states.
func (s *slurmSite) waitJob(id string, timeout time.Duration) map[string]string {
	t := s.t
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		states := jobStates(t, id)
		done := true
		for _, st := range states {
			switch st {
			case "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "RESIZING", "SUSPENDED":
				done = false
			}
		}
		if done {
			return states
		}
		if time.Now().After(deadline) {
			s.logs()
			t.Fatalf("job %s has not ended after %v: %v", id, timeout, states)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// wantCompleted fails unless every task of the job completed.
func (s *slurmSite) wantCompleted(id string, timeout time.Duration) {
	s.t.Helper()
	for task, st := range s.waitJob(id, timeout) {
		if st != "COMPLETED" {
			s.logs()
			s.t.Fatalf("job %s task %s is %s", id, task, st)
		}
	}
}

// log is the output file of a job's array task (shards.sbatch's
// logs/shard-%A_%a.out).
func (s *slurmSite) log(job string, task int) string {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, "logs", fmt.Sprintf("shard-%s_%d.out", job, task)))
	if err != nil {
		s.logs()
		s.t.Fatalf("job %s task %d: %v", job, task, err)
	}
	return string(b)
}

// killShardBench kills with SIGKILL the bench process of the running
// array task whose scratch database is under scratch (shards.sbatch's
// $SCRATCH/shard.db), found by its command line, at a moment when its
// write-ahead log holds items the database file does not (bench stopped
// with SIGSTOP to look): it returns the items stored then, or 0 when the
// log held none of its own (just checkpointed: bench is let go, to be
// tried again).
func killShardBench(t *testing.T, scratch string, task int) int {
	t.Helper()
	prefix := filepath.Join(scratch, fmt.Sprintf("rb-shard-%d.", task))
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		i := slices.Index(args, "--db")
		if len(args) < 2 || args[1] != "run" || i < 0 || i+1 >= len(args) || !strings.HasPrefix(args[i+1], prefix) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatalf("kill -STOP %d (task %d's bench): %v", pid, task, err)
		}
		all := scratchItems(t, scratch, task)
		main := itemsOf(t, args[i+1])
		if all <= main {
			syscall.Kill(pid, syscall.SIGCONT)
			return 0
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatalf("kill -9 %d (task %d's bench): %v", pid, task, err)
		}
		t.Logf("task %d's bench killed with %d items stored, %d of them in the database file", task, all, max(main, 0))
		return all
	}
	t.Fatalf("no bench process runs on %s*", prefix)
	return 0
}

// itemsOf counts the items of a database file as it is on disk without
// its write-ahead log (read from a copy of the file alone): -1 when the
// file holds no items table yet.
func itemsOf(t *testing.T, db string) int {
	t.Helper()
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "file-alone.db")
	if err := os.WriteFile(cp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	conn, err := sql.Open("sqlite", "file:"+cp+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRow(`SELECT COUNT(*) FROM items`).Scan(&n); err != nil {
		return -1
	}
	return n
}

// logs prints the jobs' output files, for a failure.
func (s *slurmSite) logs() {
	files, _ := filepath.Glob(filepath.Join(s.dir, "logs", "*"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		s.t.Logf("%s:\n%s", filepath.Base(f), b)
	}
}

// sameRun fails unless the merged database holds the reference run's
// items, item for item, and the same report (tokens, calls, metrics). With
// resumed, a shard was interrupted and continued: the calls its unfinished
// items had made are answered from its response cache then, which the
// report counts as cache hits; the items are the same.
func sameRun(t *testing.T, ref, merged string, resumed bool) {
	t.Helper()
	want, got := shardRunItems(t, ref)[1], shardRunItems(t, merged)[1]
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("merged run holds %d items, the unsharded %d", len(got), len(want))
	}
	if d := differingItems(t, want, got); len(d) > 0 {
		t.Fatalf("%d of %d merged items differ from the unsharded run: %v", len(d), len(want), d)
	}
	w, g := reportRows(t, ref), reportRows(t, merged)
	for _, rows := range [][]map[string]any{w, g} {
		for _, r := range rows {
			if resumed {
				for _, k := range []string{"cache_hits", "saved_tokens", "saved_cost", "saved_prompt_tokens", "saved_completion_tokens", "requests"} {
					delete(r, k)
				}
			}
		}
	}
	if fmt.Sprint(w) != fmt.Sprint(g) {
		t.Errorf("report of the unsharded run:\n%v\nof the merged shards:\n%v", w, g)
	}
}

// TestSlurmArrayMerges is the test on a real Slurm cluster: the
// commands of docs/cluster.md submit examples/slurm/shards.sbatch as a
// 4-task array of the ToT preset with value_cache=item over 40 puzzles and
// merge.sbatch after it; the merged run is the unsharded run item for item.
// Then the same with --array=0-3%2 against a slow model server, task 2
// cancelled with scancel mid-run (its log says SIGTERM, then copies) and
// task 3's bench killed with SIGKILL (its write-ahead log is folded into
// the copy: no item it had stored is lost), both resubmitted as the doc
// says: each continues its shard's run (the same run, started by the first
// attempt), and the merge is again the unsharded run.
func TestSlurmArrayMerges(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
	requireSlurm(t)
	s := newSlurmSite(t)
	// The run the doc's setup names, unsharded.
	cmd := exec.Command("bash", "-c", s.blocks["setup"]+`printf %s "$BENCH_ARGS"`)
	cmd.Dir = s.dir
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("the doc's setup block: %v", err)
	}
	args := strings.Fields(string(b))
	ref := filepath.Join(t.TempDir(), "ref.db")
	refDone := unsharded(t, append(args, "--db", ref))

	t.Run("array", func(t *testing.T) {
		start := time.Now()
		_, merge := jobIDs(t, s.bash(nil, []string{"setup", "submit"}, nil))
		s.wantCompleted(merge, 5*time.Minute)
		t.Logf("4-task array and merge: %.1f s", time.Since(start).Seconds())
		refDone(t)
		sameRun(t, ref, filepath.Join(s.dir, "merged.db"), false)
		shards, _ := filepath.Glob(filepath.Join(s.dir, "shards", "*"))
		if len(shards) != 4 {
			t.Errorf("shards/ holds %v; want shard-0.db to shard-3.db only (and no holder file left)", shards)
		}
	})

	t.Run("cancelled-and-resubmitted", func(t *testing.T) {
		// A model server slow enough (20 ms a call, 2 at a time) that a
		// shard takes seconds, so that scancel lands mid-run.
		url, _ := startServeSimProcess(t, "--latency", "20ms")
		model := []string{"--base-url", url}
		env := []string{"OVERRIDE_OUT=" + filepath.Join(s.dir, "slow", "shards"),
			"OVERRIDE_BENCH_ARGS=" + strings.Join(append(append(args[:len(args):len(args)], model...), "--concurrency", "2"), " ")}
		start := time.Now()
		jid, merge := jobIDs(t, s.bash(env, []string{"setup", "submit"},
			map[string][2]string{"submit": {"--array=0-$((SHARDS - 1))", "--array=0-$((SHARDS - 1))%2"}}))
		slowRef := filepath.Join(t.TempDir(), "slow-ref.db")
		slowRefDone := unsharded(t, append(append(args[:len(args):len(args)], model...), "--db", slowRef, "--concurrency", "16"))
		if out, _ := exec.Command("scontrol", "-o", "show", "job", jid).Output(); !strings.Contains(string(out), "ArrayTaskThrottle=2") {
			t.Errorf("the array is not limited to 2 tasks at once: %s", out)
		}
		// Once its scratch database holds a few items, cancel task 2
		// (scancel: SIGTERM); kill task 3's bench outright (SIGKILL, as the
		// kernel's OOM killer does) while its write-ahead log holds items.
		cancelled, killed := false, 0
		for deadline := time.Now().Add(3 * time.Minute); !cancelled || killed == 0; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				s.logs()
				t.Fatalf("tasks 2 and 3 stored no items in 3 minutes: %v", jobStates(t, jid))
			}
			states := jobStates(t, jid)
			for task, done := range map[string]bool{"2": cancelled, "3": killed > 0} {
				if st := states[task]; !done && st != "RUNNING" && st != "PENDING" && st != "" {
					s.logs()
					t.Fatalf("task %s is %s before it could be stopped (is the model server slow enough?)", task, st)
				}
			}
			if n := scratchItems(t, s.scratch, 2); !cancelled && n >= 2 {
				if out, err := exec.Command("scancel", jid+"_2").CombinedOutput(); err != nil {
					t.Fatalf("scancel: %v: %s", err, out)
				}
				cancelled = true
			}
			if killed == 0 && scratchItems(t, s.scratch, 3) >= 1 {
				killed = killShardBench(t, s.scratch, 3)
			}
		}
		states := s.waitJob(jid, 5*time.Minute)
		for task, want := range map[string]string{"0": "COMPLETED", "1": "COMPLETED", "2": "CANCELLED", "3": "FAILED"} {
			if states[task] != want {
				s.logs()
				t.Fatalf("task %s is %s, want %s (%v)", task, states[task], want, states)
			}
		}
		// The cancelled task says so in its log, then copies its database.
		log2 := s.log(jid, 2)
		if i, j := strings.Index(log2, "shard 2/4: SIGTERM, stopping"), strings.Index(log2, "shard 2/4: database copied to"); i < 0 || j < i {
			t.Errorf("the cancelled task's log lacks its SIGTERM line before the copy:\n%s", log2)
		}
		shard2 := filepath.Join(s.dir, "slow", "shards", "shard-2.db")
		runs := storeRuns(t, shard2)
		kept := len(shardRunItems(t, shard2)[1])
		if len(runs) != 1 || runs[0].Status == store.StatusDone || kept == 0 || kept >= 10 {
			t.Fatalf("cancelled shard 2 copied back %d runs, %d items; want its unfinished run with some of its 10 items", len(runs), kept)
		}
		// The killed bench's write-ahead log is folded into the copy: every
		// item it held when killed is there.
		shard3 := filepath.Join(s.dir, "slow", "shards", "shard-3.db")
		runs3 := storeRuns(t, shard3)
		if kept3 := len(shardRunItems(t, shard3)[1]); len(runs3) != 1 || runs3[0].Status == store.StatusDone || kept3 < killed || kept3 >= 10 {
			s.logs()
			t.Fatalf("killed shard 3 copied back %d runs, %d items; want its unfinished run with at least the %d items it had stored", len(runs3), kept3, killed)
		}
		if log3 := s.log(jid, 3); !strings.Contains(log3, "shard 3/4: database copied to") || !strings.Contains(log3, "(bench exit 137)") {
			t.Errorf("the killed task's log:\n%s", log3)
		}
		firstStart := map[string]time.Time{"2": runs[0].StartedAt, "3": runs3[0].StartedAt}
		first := merge
		if st := jobStates(t, first)[first]; st != "NEVER" && st != "PENDING" {
			t.Errorf("the first merge job is %s; want it pending on a dependency never met", st)
		}

		// The doc's resubmit block, for the killed task 3 too.
		again, merge := jobIDs(t, s.bash(append(env, "mid="+first), []string{"setup", "resubmit"},
			map[string][2]string{"resubmit": {"--array=2 ", "--array=2,3 "}}))
		s.wantCompleted(merge, 5*time.Minute)
		if st := jobStates(t, first)[first]; st != "CANCELLED" {
			t.Errorf("the first merge job is %s; the doc's resubmit block cancels it", st)
		}
		t.Logf("array of 4 (%%2), task 2 cancelled, task 3 killed, both resubmitted, merged: %.1f s", time.Since(start).Seconds())
		// Each resubmitted task continued its shard's run (the run its first
		// attempt started), not a run of its own from the start.
		for _, task := range []int{2, 3} {
			db := filepath.Join(s.dir, "slow", "shards", fmt.Sprintf("shard-%d.db", task))
			runs := storeRuns(t, db)
			if len(runs) != 1 || runs[0].Status != store.StatusDone || len(shardRunItems(t, db)[1]) != 10 {
				t.Errorf("resubmitted shard %d holds %d runs (the first %s); want its one run continued to its 10 items", task, len(runs), runs[0].Status)
			} else if was := firstStart[fmt.Sprint(task)]; !runs[0].StartedAt.Equal(was) {
				t.Errorf("resubmitted shard %d's run started at %v, its first attempt's at %v: it started over", task, runs[0].StartedAt, was)
			}
			if log := s.log(again, task); !strings.Contains(log, fmt.Sprintf("shard %d/4: continuing from %s", task, db)) {
				t.Errorf("resubmitted task %d's log does not say it continues:\n%s", task, log)
			}
		}
		slowRefDone(t)
		sameRun(t, slowRef, filepath.Join(s.dir, "slow", "merged.db"), true)
	})

	if left, _ := filepath.Glob(filepath.Join(s.scratch, "*")); len(left) > 0 {
		t.Errorf("the scripts left scratch behind: %v", left)
	}
}

// unsharded starts `bench run ARGS` in the background (while the jobs
// run); the function it returns waits for it and fails the test if it
// failed. It is the reference the shards' merge must equal, so it runs
// as the shards do, from the build without the race detector (benchBinary):
// under it, its two runs of 40 ToT puzzles took 7 s of CPU, not 1.
func unsharded(t *testing.T, args []string) func(*testing.T) {
	done := make(chan string, 1)
	cmd := exec.Command(benchBinary(t), append([]string{"run"}, args...)...)
	go func() {
		out, err := cmd.CombinedOutput()
		msg := ""
		if err != nil {
			msg = fmt.Sprintf("%v: %s", err, out)
		}
		done <- msg
	}()
	return func(t *testing.T) {
		t.Helper()
		if msg := <-done; msg != "" {
			t.Fatalf("the unsharded run: %s", msg)
		}
	}
}

// scratchItems counts the items a running shard task has stored in its
// database on scratch (0 while there is none).
func scratchItems(t *testing.T, scratch string, task int) int {
	t.Helper()
	dbs, _ := filepath.Glob(filepath.Join(scratch, fmt.Sprintf("rb-shard-%d.*", task), "shard.db"))
	if len(dbs) == 0 {
		return 0
	}
	conn, err := sql.Open("sqlite", "file:"+dbs[0]+"?mode=ro")
	if err != nil {
		return 0
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRow(`SELECT COUNT(*) FROM items`).Scan(&n); err != nil {
		return 0 // not created yet, or gone
	}
	return n
}
