package view

import (
	"context"
	"crypto/sha256"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/tools"
	"github.com/reasonbench/reasonbench/tools/toolstest"
)

// fixture is a database made by real runs on the simulator, shared by the
// tests of this package (it takes a few seconds to make).
type fixture struct {
	path string
	runs map[string]int64 // strategy → run id
	err  error
}

var (
	fixOnce sync.Once
	fix     fixture
)

// testRuns are the runs the fixture makes: every strategy the item page has
// a view for.
var testRuns = []struct {
	name, task, strategy, rng string
	params                    map[string]any
}{
	{"tot", "game24", "tot", "900:906", map[string]any{"b": 2}},
	{"cotsc", "game24", "cotsc", "900:906", map[string]any{"k": 5}},
	{"cot", "game24", "cot", "900:906", nil},
	{"react", "hotpotqa", "react", "0:4", nil},
	{"reflexion", "hotpotqa", "reflexion", "0:4", nil},
	{"selfrefine", "hotpotqa", "selfrefine", "0:4", nil},
	{"debate", "hotpotqa", "debate", "0:3", map[string]any{"agents": 3, "rounds": 2}},
	{"bon", "gsm8k", "bon", "0:2", map[string]any{"n": 4, "temperature": 0.7}},
	// ReAct with an MCP server's tools (makeDB serves it), then the same
	// run again: its model calls from the cache, its tool calls replayed.
	{"mcp", "file:sums", "react", "0:2", map[string]any{"protocol": "tools"}},
	{"mcp-rerun", "file:sums", "react", "0:2", map[string]any{"protocol": "tools"}},
}

func makeDB(ctx context.Context, dir string) (string, map[string]int64, error) {
	path := filepath.Join(dir, "view.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		return "", nil, err
	}
	defer st.Close()
	eng := &bench.Engine{Store: st}
	ids := map[string]int64{}
	_, calc := toolstest.HTTP("1.0")
	defer calc.Close()
	sums := filepath.Join(dir, "sums.jsonl")
	if err := os.WriteFile(sums, []byte(`{"question": "What is the sum of 12 and 30?", "answer": "42"}`+"\n"+
		`{"question": "What is the sum of 7 and 8?", "answer": "15"}`+"\n"), 0o644); err != nil {
		return "", nil, err
	}
	for _, r := range testRuns {
		cfg := bench.DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range, cfg.Params, cfg.Concurrency = r.task, r.strategy, r.rng, r.params, 4
		if r.task == "file:sums" {
			cfg.Task = "file:" + sums
			cfg.MCP = []tools.Server{{Name: "calc", URL: calc.URL}}
			cfg.Sim.Skill, cfg.Sim.Slip = 1, 0 // the simulated tool user picks get-sum
		}
		if r.task == "game24" { // an experiment with CoT-SC as its baseline
			cfg.Experiment, cfg.Baseline = "g24", "cotsc"
		}
		sum, err := eng.Run(ctx, cfg)
		if err != nil {
			return "", nil, err
		}
		ids[r.name] = sum.RunID
	}
	// A run still in progress (as another process's bench run leaves it),
	// for the runs page's live updates.
	id, err := st.CreateRun(ctx, store.Run{Task: "game24", Strategy: "cot", Model: bench.SimModel, Simulated: true, Range: "900:910"})
	if err != nil {
		return "", nil, err
	}
	ids["running"] = id
	return path, ids, nil
}

func testDB(t *testing.T) fixture {
	t.Helper()
	fixOnce.Do(func() {
		dir, err := os.MkdirTemp("", "benchview")
		if err != nil {
			fix.err = err
			return
		}
		fix.path, fix.runs, fix.err = makeDB(context.Background(), dir)
	})
	if fix.err != nil {
		t.Fatal(fix.err)
	}
	return fix
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fix.path != "" {
		os.RemoveAll(filepath.Dir(fix.path))
	}
	os.Exit(code)
}

// server opens the fixture read-only and serves it.
func server(t *testing.T) (*httptest.Server, fixture) {
	t.Helper()
	f := testDB(t)
	st, err := store.OpenReadOnly(context.Background(), f.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h, err := New(st, cat)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, f
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func formatInt(id int64) string { return strconv.FormatInt(id, 10) }

type pageCase struct {
	name   string
	path   string
	status int
	want   []string // substrings the page must contain
}

func pageCases(f fixture) []pageCase {
	id := func(s string) string { return formatInt(f.runs[s]) }
	return []pageCase{
		{"runs", "/", 200, []string{"Runs", "tot", "cotsc", "reflexion", "selfrefine", "simulated", "95% CI", `href="/runs/` + id("tot") + `"`, `data-running="1"`, "game24/", "· bundled"}},
		{"run", "/runs/" + id("tot"), 200, []string{"Run " + id("tot") + ": tot on game24", "any_at_b", "<svg", "95% Wilson", `href="/runs/` + id("tot") + `/items/900"`, "page 1 of 1"}},
		{"run filter correct", "/runs/" + id("tot") + "?filter=correct", 200, []string{"matching", `class="pill on" href="/runs/` + id("tot") + `?filter=correct#items"`}},
		{"run filter wrong", "/runs/" + id("cot") + "?filter=wrong", 200, []string{"wrong"}},
		{"run filter failed", "/runs/" + id("cot") + "?filter=failed", 200, []string{"No items match."}},
		{"run filter hit_limit", "/runs/" + id("react") + "?filter=hit_limit", 200, []string{"matching"}},
		{"run search", "/runs/" + id("tot") + "?q=4+5+6+10", 200, []string{"1 matching", "/items/900"}},
		{"run bad filter", "/runs/" + id("tot") + "?filter=nope", 400, []string{"filter &#34;nope&#34;"}},
		{"run reflexion plots", "/runs/" + id("reflexion"), 200, []string{"after_trial_1", "<svg"}},
		{"tot item", "/runs/" + id("tot") + "/items/900", 200, []string{"Tree", `class="tree"`, "value", "nd-0", "Answer:", "Model calls", "propose", "expand all",
			`<code class="small">s1/f0/propose</code>`}},
		{"cotsc item", "/runs/" + id("cotsc") + "/items/901", 200, []string{"Vote", "votes", "winner", "samples", "gold answer", "answer the scorer extracted", `id="extracted"><code>`}},
		{"debate item", "/runs/" + id("debate") + "/items/1", 200, []string{"Debate", "3 agents × 2 rounds", `<table class="debate">`, "<th>agent 3</th>", "majority", `href="#call-`}},
		{"cot item", "/runs/" + id("cot") + "/items/900", 200, []string{"Final output", "Model calls"}},
		{"react item", "/runs/" + id("react") + "/items/1", 200, []string{"Trajectory", "observation", "action", "Search["}},
		{"reflexion item", "/runs/" + id("reflexion") + "/items/0", 200, []string{"Trials", "Trial 1", "reflections in its prompt"}},
		{"selfrefine item", "/runs/" + id("selfrefine") + "/items/0", 200, []string{"Iterations", "Iteration 1", "feedback"}},
		{"compare", "/compare?runs=" + id("tot") + "," + id("cotsc") + "," + id("cot"), 200, []string{"Compare runs", "the runs disagree on", "run " + id("tot") + " · tot",
			"Paired against run " + id("tot"), "Newcombe", "McNemar", "p (Holm)", "<th>gold</th>", "by rule", "<code>", "· bundled"}},
		{"experiment", "/experiments/g24", 200, []string{"Experiment g24", "3 runs, 3 configurations", "baseline <b>cotsc k=5</b>",
			"vs baseline", "paired", "<svg", "Frontier", `id="frontier"`, "<td>tot b=2</td>"}},
		{"unknown experiment", "/experiments/nope", 404, []string{"experiment &#34;nope&#34;"}},
		{"runs link experiments", "/", 200, []string{`<a href="/experiments/g24">g24</a>`}},
		{"compare all", "/compare?runs=" + id("tot") + "," + id("cot") + "&all=1", 200, []string{"/items/905"}},
		{"progress", "/runs/" + id("tot") + "/progress", 200, []string{`"status":"done"`, `"done":6`}},
		{"progress running", "/runs/" + id("running") + "/progress", 200, []string{`"status":"running"`, `"done":`}},
		{"asset", "/assets/app.js", 200, []string{"nodepanel"}},
		{"unknown run", "/runs/999", 404, []string{"404", "run 999"}},
		{"bad run id", "/runs/abc", 404, []string{"not a run id"}},
		{"unknown item", "/runs/" + id("tot") + "/items/5", 404, []string{"404", "item 5"}},
		{"unknown progress", "/runs/999/progress", 404, []string{"error"}},
		{"unknown page", "/nope", 404, []string{"no page at /nope"}},
		{"compare one run", "/compare?runs=" + id("tot"), 400, []string{"two or more runs"}},
		{"compare other tasks", "/compare?runs=" + id("tot") + "," + id("react"), 400, []string{"same task"}},
		{"compare unknown run", "/compare?runs=" + id("tot") + ",999", 404, []string{"run 999"}},
		{"compare garbage", "/compare?runs=x", 400, []string{"comma-separated"}},
	}
}

func TestHandlers(t *testing.T) {
	srv, f := server(t)
	for _, c := range pageCases(f) {
		t.Run(c.name, func(t *testing.T) {
			status, body := get(t, srv.URL+c.path)
			if status != c.status {
				t.Fatalf("GET %s: status %d, want %d\n%s", c.path, status, c.status, body)
			}
			for _, w := range c.want {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s: page lacks %q", c.path, w)
				}
			}
		})
	}
}

// TestNothingWritten exercises every handler and checks the database file
// and its WAL are untouched.
func TestNothingWritten(t *testing.T) {
	f := testDB(t)
	before := fileState(t, f.path)
	walBefore := fileState(t, f.path+"-wal")
	srv, _ := server(t)
	for _, c := range pageCases(f) {
		get(t, srv.URL+c.path)
	}
	srv.Close()
	if after := fileState(t, f.path); after != before {
		t.Errorf("database changed: %+v → %+v", before, after)
	}
	if after := fileState(t, f.path+"-wal"); after.size > walBefore.size {
		t.Errorf("WAL grew: %+v → %+v", walBefore, after)
	}
}

type state struct {
	size  int64
	mtime time.Time
	sum   [32]byte
}

func fileState(t *testing.T, path string) state {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return state{}
	}
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return state{size: info.Size(), mtime: info.ModTime(), sum: sha256.Sum256(b)}
}

func TestLineDiff(t *testing.T) {
	cases := []struct {
		a, b string
		want string
	}{
		{"a\nb\nc", "a\nb\nc", "  a|  b|  c"},
		{"a\nb\nc", "a\nx\nc", "  a|- b|+ x|  c"},
		{"", "a", "- |+ a"},
		{"a\nb", "b", "- a|  b"},
		{"a", "a\nb", "  a|+ b"},
	}
	for _, c := range cases {
		var parts []string
		for _, l := range lineDiff(c.a, c.b) {
			parts = append(parts, l.Op+" "+l.Text)
		}
		if got := strings.Join(parts, "|"); got != c.want {
			t.Errorf("lineDiff(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

func TestNodeNumbers(t *testing.T) {
	for _, tc := range []struct {
		node store.Node
		want string
	}{
		{store.Node{Value: 20.001}, "value=20 "},
		{store.Node{Value: 0.5, Visits: 7}, "value=0.5 visits=7 "},
	} {
		got := ""
		for _, n := range numbers(tc.node) {
			got += n.Name + "=" + n.Value + " "
		}
		if got != tc.want {
			t.Errorf("numbers(%+v) = %q, want %q", tc.node, got, tc.want)
		}
	}
}
