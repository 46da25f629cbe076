package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/store"
)

// reportRows is `bench report --format json` with the wall time, which no
// two runs share, left out.
func reportRows(t *testing.T, db string) []map[string]any {
	t.Helper()
	code, out, stderr := cli(t, "report", "--db", db, "--format", "json")
	if code != 0 {
		t.Fatalf("report %s: %s", db, stderr)
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, r := range rows {
		delete(r, "wall_seconds")
	}
	return rows
}

// runItems reads every item of a database's runs, by run.
func shardRunItems(t *testing.T, db string) map[int64][]store.Item {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenExisting(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, err := st.Runs(ctx, store.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64][]store.Item{}
	for _, r := range runs {
		items, err := st.Items(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		for i := range items {
			items[i].WallSeconds = 0 // time, not a result
		}
		out[r.ID] = items
	}
	return out
}

// differingItems gives the indexes of the items of got that differ from
// want's at the same position, in output and verdict or anywhere else
// (usage, cost, detail; not the run id or wall time), and logs the first.
func differingItems(t *testing.T, want, got []store.Item) []int {
	t.Helper()
	outcome := func(it store.Item) string {
		return fmt.Sprintf("%d %q %q %v %v %v", it.Index, it.Key, it.Output, it.Correct, it.Score, it.Metrics)
	}
	whole := func(it store.Item) string {
		it.RunID, it.WallSeconds = 0, 0
		return fmt.Sprintf("%+v %s", it, it.Detail)
	}
	var differ []int
	for i := range max(len(want), len(got)) {
		if i >= len(want) || i >= len(got) {
			differ = append(differ, i)
			continue
		}
		if w, g := want[i], got[i]; outcome(w) != outcome(g) || whole(w) != whole(g) {
			if len(differ) == 0 {
				t.Logf("item %d, expected: %s\ngot: %s", w.Index, outcome(w), outcome(g))
			}
			differ = append(differ, w.Index)
		}
	}
	return differ
}

// dump is every row of every table, sorted: two equal dumps are two equal
// databases.
func dumpDB(t *testing.T, db string) string {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.Query(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	var sb strings.Builder
	for _, tb := range tables {
		rows, err := conn.Query(`SELECT * FROM "` + tb + `"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		var lines []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, fmt.Sprintf("%q", vals))
		}
		rows.Close()
		slices.Sort(lines)
		fmt.Fprintf(&sb, "%s %d\n%s\n", tb, len(lines), strings.Join(lines, "\n"))
	}
	return sb.String()
}

// TestShardRefusesOrderedRuns: the ToT reference presets keep a value
// prompt's first asker's value across the run, puzzles in order, which a
// shard cannot know; they are refused a shard with exit 2, naming why.
func TestShardRefusesOrderedRuns(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "b.db")
	code, _, stderr := cli(t, "run", "--preset", "tot-game24/tot-b5", "--range", "900:902", "--db", db, "--shard", "0/2")
	if code != 2 || !strings.Contains(stderr, "--shard") || !strings.Contains(stderr, "run it unsharded") {
		t.Errorf("sharded tot-b5: exit %d: %s", code, stderr)
	}
}

// TestShardsMergeToTheUnshardedRun is the test: CoT-SC and ToT b=5
// over puzzles 900-909 as 3 shards (the last with --shard auto under a
// Slurm array's variables), merged, give item for item the outputs and
// verdicts of the unsharded run and the same report; merging again changes
// nothing; a shard of another configuration is refused, naming the field.
// The issue ran the presets' 100 puzzles (900-999); 10 make the same
// uneven split (4, 3, 3: one more in the first shard), share ToT's
// run-wide value draws across shards alike, and cost a tenth of the time
// (issues 25 and 34: this test was most of `make test`).
func TestShardsMergeToTheUnshardedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 10 puzzles twice per strategy")
	}
	const n = 10 // puzzles 900 to 900+n-1; n%3 == 1 (the split below)
	dir := t.TempDir()
	prices := filepath.Join(dir, "prices.json")
	// Priced, so that every item has a cost the merge must carry.
	if err := os.WriteFile(prices, []byte(`{"sim": {"prompt": 30, "completion": 60}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, preset string
		set          []string
		// sharedCache: a run-wide shared draw is made once per process,
		// so the hits (and what they saved) depend on the split.
		sharedCache bool
	}{
		{name: "cotsc", preset: "tot-game24/cotsc"},
		// The preset's own run-wide value cache makes each puzzle depend on
		// the puzzles before it, so it is refused a shard
		// (TestShardRefusesOrderedRuns); the harness protocol's shares each
		// value prompt's draw across the run: every shard draws it alike
		// and counts it as made, so items, usage and cost are the
		// unsharded run's; only which calls were answered by another item's
		// draw (cache_hits, what that saved, requests sent) depends on how
		// the items were split.
		{name: "tot-b5-harness-run-cache", preset: "tot-game24/tot-b5", set: []string{"--set", "protocol=harness"}, sharedCache: true},
		{name: "tot-b5-item-cache", preset: "tot-game24/tot-b5", set: []string{"--set", "value_cache=item"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := func(n string) string { return filepath.Join(dir, tc.name+"-"+n+".db") }
			args := func(d string, extra ...string) []string {
				a := append([]string{"run", "--preset", tc.preset, "--range", fmt.Sprintf("900:%d", 900+n), "--db", d, "--prices", prices, "--json"}, tc.set...)
				return append(a, extra...)
			}
			if code, _, stderr := cli(t, args(db("full"))...); code != 0 {
				t.Fatalf("unsharded run: %s", stderr)
			}
			for i := range 2 {
				if code, _, stderr := cli(t, args(db(fmt.Sprint(i)), "--shard", fmt.Sprintf("%d/3", i))...); code != 0 {
					t.Fatalf("shard %d: %s", i, stderr)
				}
			}
			// sbatch --array=1-3: the third task has id 3.
			t.Setenv("SLURM_ARRAY_TASK_ID", "3")
			t.Setenv("SLURM_ARRAY_TASK_MIN", "1")
			t.Setenv("SLURM_ARRAY_TASK_COUNT", "3")
			if code, _, stderr := cli(t, args(db("2"), "--shard", "auto")...); code != 0 {
				t.Fatalf("shard auto: %s", stderr)
			}
			shards := []string{db("0"), db("1"), db("2")}
			for i, s := range shards {
				items := shardRunItems(t, s)[1]
				if want := n/3 + max(0, 1-i); len(items) != want { // positions i, i+3, ... of n
					t.Fatalf("shard %d holds %d items", i, len(items))
				}
			}
			code, out, stderr := cli(t, append([]string{"merge", "--out", db("merged")}, shards...)...)
			if code != 0 {
				t.Fatalf("merge: exit %d: %s", code, stderr)
			}
			if !strings.Contains(out, fmt.Sprintf("%d of %d items (%d added)", n, n, n)) || strings.Contains(out, "missing") || strings.Contains(out, "duplicate") {
				t.Errorf("merge said:\n%s", out)
			}

			want, got := shardRunItems(t, db("full"))[1], shardRunItems(t, db("merged"))[1]
			if len(got) != n || len(want) != n {
				t.Fatalf("%d merged items, %d unsharded", len(got), len(want))
			}
			// Outputs and verdicts, item for item, and the whole item (usage,
			// cost, detail).
			differ := differingItems(t, want, got)
			if len(differ) > 0 {
				t.Fatalf("%d of %d items differ from the unsharded run: %v", len(differ), n, differ)
			}
			w, g := reportRows(t, db("full")), reportRows(t, db("merged"))
			if tc.sharedCache {
				for _, rows := range [][]map[string]any{w, g} {
					for _, r := range rows {
						for _, k := range []string{"cache_hits", "saved_tokens", "saved_cost", "saved_prompt_tokens", "saved_completion_tokens", "requests"} {
							delete(r, k)
						}
					}
				}
			}
			if fmt.Sprint(w) != fmt.Sprint(g) {
				t.Errorf("report of the unsharded run:\n%v\nof the merged shards:\n%v", w, g)
			}
			if got[0].Cost <= 0 {
				t.Errorf("item cost %v: the priced run should cost something", got[0].Cost)
			}

			before := dumpDB(t, db("merged"))
			if code, out, stderr := cli(t, append([]string{"merge", "--out", db("merged")}, shards...)...); code != 0 || !strings.Contains(out, "(0 added)") {
				t.Fatalf("merging again: exit %d: %s%s", code, out, stderr)
			}
			if after := dumpDB(t, db("merged")); after != before {
				t.Errorf("merging again changed the database")
			}

			// Shard 1 of another seed does not belong with shard 0.
			if code, _, stderr := cli(t, args(db("seed2"), "--shard", "1/3", "--seed", "2")...); code != 0 {
				t.Fatalf("shard of seed 2: %s", stderr)
			}
			code, _, stderr = cli(t, "merge", "--out", db("bad"), db("0"), db("seed2"))
			if code != 2 || !strings.Contains(stderr, "seed differs") || !strings.Contains(stderr, `"1"`) || !strings.Contains(stderr, `"2"`) ||
				strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("merging shards of seeds 1 and 2: exit %d, stderr %q; want exit 2 and one line naming the seed", code, stderr)
			}
		})
	}
}

// TestExperimentShardsMerge shards an experiment file (2 configurations ×
// 2 seeds) into 3, merges, and checks the merged experiment is the
// unsharded one: the same report, and `bench run -f` on the merged database
// finds every run done and starts none. One shard is stopped by its cost
// ceiling, resumed (bench resume works on an unfinished shard) and
// continued by the same command.
func TestExperimentShardsMerge(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
	dir := t.TempDir()
	exp := filepath.Join(dir, "exp.yaml")
	if err := os.WriteFile(exp, []byte("name: sharded\ntask: game24\nrange: 900:911\nseeds: [1, 2]\nstrategies:\n  - cotsc: {k: [2, 4]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prices := filepath.Join(dir, "prices.json")
	if err := os.WriteFile(prices, []byte(`{"sim": {"prompt": 30, "completion": 60}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	db := func(n string) string { return filepath.Join(dir, n+".db") }
	run := func(d string, extra ...string) (int, string, string) {
		return cli(t, append([]string{"run", "-f", exp, "--db", d, "--prices", prices, "--concurrency", "1"}, extra...)...)
	}
	if code, _, stderr := run(db("full")); code != 0 {
		t.Fatalf("unsharded: %s", stderr)
	}
	// Shard 1 stops at a low ceiling, then resumes each of its runs.
	if code, _, stderr := run(db("s1"), "--shard", "1/3", "--max-cost", "0.01"); code != 1 || !strings.Contains(stderr, "max-cost") {
		t.Fatalf("capped shard: exit %d: %s", code, stderr)
	}
	for {
		code, out, stderr := cli(t, "resume", "--last", "--db", db("s1"), "--max-cost", "0")
		if code != 0 {
			if strings.Contains(stderr, "no unfinished run") {
				break
			}
			t.Fatalf("resume shard: %s%s", out, stderr)
		}
	}
	// The shard's other runs never started: the same command continues.
	if code, _, stderr := run(db("s1"), "--shard", "1/3"); code != 0 {
		t.Fatalf("continuing shard 1: %s", stderr)
	}
	for _, i := range []string{"0", "2"} {
		if code, _, stderr := run(db("s"+i), "--shard", i+"/3"); code != 0 {
			t.Fatalf("shard %s: %s", i, stderr)
		}
	}
	code, out, stderr := cli(t, "merge", db("s0"), db("s1"), db("s2"), "--out", db("merged"))
	if code != 0 || strings.Count(out, "11 of 11 items") != 4 || strings.Contains(out, "missing") {
		t.Fatalf("merge: exit %d\n%s%s", code, out, stderr)
	}
	report := func(d string) string {
		code, out, stderr := cli(t, "report", "--db", d, "--experiment", "sharded", "--format", "json")
		if code != 0 {
			t.Fatalf("report: %s", stderr)
		}
		var rep struct {
			Configurations []map[string]any `json:"configurations"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Configurations {
			delete(r, "wall_seconds")
		}
		return fmt.Sprint(rep.Configurations)
	}
	if w, g := report(db("full")), report(db("merged")); w != g || !strings.Contains(w, "accuracy") {
		t.Errorf("experiment report unsharded:\n%s\nmerged:\n%s", w, g)
	}
	// The merged runs are the experiment's: run -f finds them done.
	if code, _, stderr := run(db("merged")); code != 0 {
		t.Fatalf("run -f on the merged database: %s", stderr)
	}
	if n := len(shardRunItems(t, db("merged"))); n != 4 {
		t.Errorf("run -f on the merged database left %d runs; want the 4 merged ones", n)
	}
	full, merged := shardRunItems(t, db("full")), shardRunItems(t, db("merged"))
	for id, items := range full {
		for i, it := range items {
			g := merged[id][i] // same order of runs: file order
			it.RunID, g.RunID = 0, 0
			if fmt.Sprintf("%+v", it) != fmt.Sprintf("%+v", g) {
				t.Errorf("run %d item %d differs after sharding", id, it.Index)
			}
		}
	}
	// Estimate counts one shard's items.
	code, out, stderr = cli(t, "estimate", "-f", exp, "--shard", "0/3", "--skills", "0.5", "--json")
	if code != 0 {
		t.Fatalf("estimate: %s", stderr)
	}
	var est struct {
		Rows []struct{ Items int } `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &est); err != nil {
		t.Fatal(err)
	}
	items := 0
	for _, r := range est.Rows {
		items += r.Items
	}
	if items != 15 { // 44 units, shard 0 of 3
		t.Errorf("estimate of shard 0/3 counts %d items; want 15 of 44", items)
	}
}

// TestShardAndMergeBadInput checks that bad --shard and merge command
// lines exit 2 with one line naming the fix.
func TestShardAndMergeBadInput(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.db")
	if code, _, stderr := cli(t, "run", "--task", "game24", "--strategy", "io", "--range", "900:902", "--db", a); code != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--task", "game24", "--strategy", "io", "--shard", "3/3", "--db", filepath.Join(dir, "x.db")}, "0 <= I < N"},
		{[]string{"run", "--task", "game24", "--strategy", "io", "--shard", "auto", "--db", filepath.Join(dir, "x.db")}, "pass --shard I/N"},
		{[]string{"run", "--task", "game24", "--strategy", "io", "--shard", "0/2", "--repeats", "2", "--db", filepath.Join(dir, "x.db")}, "--experiment NAME"},
		{[]string{"estimate", "--task", "game24", "--strategy", "io", "--shard", "x"}, "want I/N"},
		{[]string{"merge", a}, "no --out"},
		{[]string{"merge", "--out", filepath.Join(dir, "m.db")}, "no input databases"},
		{[]string{"merge", "--out", a, a}, "both --out and an input"},
		{[]string{"merge", "--out", filepath.Join(dir, "m.db"), a, a}, "given twice"},
		{[]string{"merge", "--out", filepath.Join(dir, "m.db"), filepath.Join(dir, "nope.db")}, "no such database"},
	} {
		t.Setenv("SLURM_ARRAY_TASK_ID", "")
		t.Setenv("JOB_COMPLETION_INDEX", "")
		code, _, stderr := cli(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", tc.args, code, stderr, tc.want)
		}
	}
	// Shards of two seeds are refused in one line naming the seed, and
	// the output the merge would have created is not left behind.
	for i, seed := range []string{"1", "2"} {
		args := []string{"run", "--task", "game24", "--strategy", "io", "--range", "900:902", "--seed", seed,
			"--shard", fmt.Sprintf("%d/2", i), "--db", filepath.Join(dir, "seed"+seed+".db")}
		if code, _, stderr := cli(t, args...); code != 0 {
			t.Fatal(stderr)
		}
	}
	merged := filepath.Join(dir, "refused.db")
	code, _, stderr := cli(t, "merge", "--out", merged, filepath.Join(dir, "seed1.db"), filepath.Join(dir, "seed2.db"))
	if code != 2 || !strings.Contains(stderr, "seed differs") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("merging shards of seeds 1 and 2: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(merged); !os.IsNotExist(err) {
		t.Errorf("a refused merge left %s behind (%v)", merged, err)
	}
	// A shard with no item of a short range says so and succeeds.
	code, _, stderr = cli(t, "run", "--task", "game24", "--strategy", "io", "--range", "900:902", "--shard", "2/3", "--db", filepath.Join(dir, "y.db"))
	if code != 0 || !strings.Contains(stderr, "nothing to run") {
		t.Errorf("empty shard: exit %d, %q", code, stderr)
	}
}
