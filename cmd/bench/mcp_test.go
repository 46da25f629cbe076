package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tools"
	"github.com/reasonbench/reasonbench/tools/toolstest"
)

// mcpChildEnv makes the test binary a stdio MCP server (toolstest) that
// reports the variable's value as its version.
const mcpChildEnv = "REASONBENCH_TEST_AS_MCP"

// sumsFile writes n questions whose answers get-sum gives.
func sumsFile(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"question": "What is the sum of %d and %d?", "answer": "%d"}`+"\n", 10+i, 3*i+1, 10+i+3*i+1)
	}
	return writeText(t, dir, "q.jsonl", b.String())
}

// countingSim serves the simulator over HTTP and counts the model
// requests that reach it (POSTs: not the GET /v1/models probe a run
// starts with).
func countingSim(t *testing.T) (*httptest.Server, *atomic.Int64) {
	return countingSimAt(t, 5*time.Millisecond)
}

func countingSimAt(t *testing.T, latency time.Duration) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	p := sim.DefaultParams()
	p.Skill, p.Slip = 1, 0
	return countingSimWith(t, p, latency)
}

// countingSimWith is the simulator with parameters p served on loopback,
// with the count of requests that reached the model (POSTs: not the GET
// /v1/models probe).
func countingSimWith(t *testing.T, p sim.Params, latency time.Duration) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	m, err := bench.NewSim(p)
	if err != nil {
		t.Fatal(err)
	}
	inner := llm.NewServer(m, llm.ServerOptions{Latency: latency})
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			served.Add(1)
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &served
}

// stdioServer is --mcp's COMMAND running this test binary as a stdio MCP
// server (its environment is bench's minimal one plus what env sets).
func stdioServer(version string) string {
	return "env " + mcpChildEnv + "=" + version + " " + os.Args[0]
}

// runFlat runs bench with args (ending in --json) and returns its summary
// and the summary's flattened metrics.
func runFlat(t *testing.T, what string, args ...string) (bench.Summary, map[string]any) {
	t.Helper()
	code, out, stderr := cli(t, args...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", what, code, stderr)
	}
	var s bench.Summary
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	return s, m
}

// itemToolCalls reads the tool calls stored in a run's item details.
func itemToolCalls(t *testing.T, db string, run int64) [][]reading.ReActAction {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	items, err := st.Items(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]reading.ReActAction
	for _, it := range items {
		var tr reading.ReActTrajectory
		if err := json.Unmarshal(it.Detail, &tr); err != nil {
			t.Fatal(err)
		}
		var acts []reading.ReActAction
		for _, s := range tr.Steps {
			for _, a := range s.Actions {
				if a.External != nil {
					acts = append(acts, a)
				}
			}
		}
		out = append(out, acts)
	}
	return out
}

// TestMCPToolsAnswerAndReplay is the first criterion over stdio,
// streamable HTTP and --mcp-config: a file task with no tools of its own,
// react protocol=tools acting with an MCP server's get-sum, answers the
// sums and stores every call with its item; a rerun into the same
// database makes no model request and no tool call and stores the same
// outputs.
func TestMCPToolsAnswerAndReplay(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
	srv, served := countingSim(t)
	dir := t.TempDir()
	q := sumsFile(t, dir, 6)
	httpSrv, ts := toolstest.HTTP("1.0")
	defer ts.Close()
	config := writeText(t, dir, "mcp.json", fmt.Sprintf(`{"mcpServers": {"calc": {"command": "env", "args": [%q, %q], "env": {"X": "1"}}}}`,
		mcpChildEnv+"=1.0", os.Args[0]))
	for _, c := range []struct {
		name   string
		server []string
	}{
		{"stdio", []string{"--mcp", "calc=" + stdioServer("1.0")}},
		{"http", []string{"--mcp", "calc=" + ts.URL}},
		{"config", []string{"--mcp-config", config}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "b.db")
			args := append([]string{"run", "--db", db, "--base-url", srv.URL + "/v1", "--task", "file:" + q, "--strategy", "react",
				"--set", "protocol=tools", "--concurrency", "3", "--json"}, c.server...)
			served.Store(0)
			before := httpSrv.Calls()
			ref, m := runFlat(t, "first run", args...)
			if ref.Accuracy != 1 || m["tool_calls"] != 1.0 || m["tool_errors"] != 0.0 || served.Load() != 12 {
				t.Fatalf("first run: accuracy %v, metrics %v, %d requests", ref.Accuracy, m, served.Load())
			}
			calls := itemToolCalls(t, db, ref.RunID)
			for i, acts := range calls {
				if len(acts) != 1 || acts[0].External.Tool != "get-sum" || acts[0].External.Server != "calc" || acts[0].External.Cached ||
					!strings.HasPrefix(acts[0].Observation, "The sum of") || acts[0].External.LatencyMS <= 0 {
					t.Errorf("item %d tool calls: %+v", i, acts)
				}
			}
			if c.name == "http" && httpSrv.Calls()-before != 6 {
				t.Errorf("the HTTP server answered %d calls, want 6", httpSrv.Calls()-before)
			}
			served.Store(0)
			before = httpSrv.Calls()
			// At another concurrency: the same run, replayed.
			again, _ := runFlat(t, "rerun", append(slices.Clone(args), "--concurrency", "1")...)
			if served.Load() != 0 || again.Accuracy != 1 || again.RunID == ref.RunID {
				t.Errorf("rerun: %d model requests, accuracy %v", served.Load(), again.Accuracy)
			}
			if httpSrv.Calls() != before {
				t.Errorf("rerun made %d tool calls", httpSrv.Calls()-before)
			}
			for i, acts := range itemToolCalls(t, db, again.RunID) {
				if len(acts) != 1 || !acts[0].External.Cached || acts[0].Observation != calls[i][0].Observation || acts[0].External.ID != calls[i][0].External.ID {
					t.Errorf("rerun item %d: %+v, first %+v", i, acts, calls[i])
				}
			}
			sameOutputs(t, db, ref.RunID, db, again.RunID)
			// Shown and exported with the item: the trajectory's tool_call
			// step, the detail's record.
			code, out, _ := cli(t, "show", "--db", db, "--item", "0", fmt.Sprint(again.RunID))
			if code != 0 || !strings.Contains(out, "tool_call:") || !strings.Contains(out, "calc get-sum {") || !strings.Contains(out, "· replayed · ok") {
				t.Errorf("bench show: %s", out)
			}
			code, out, _ = cli(t, "export", "--db", db, fmt.Sprint(ref.RunID))
			if code != 0 || strings.Count(out, `"tool_call":{"id":"calc/get-sum/`) != 6 || !strings.Contains(out, `"latency_ms":`) {
				t.Errorf("bench export: %s", clipTest(out, 3000))
			}
		})
	}
}

// TestMCPToolsEveryAgent: react's text, JSON and XML protocols (the tools
// described in the prompt from the server's schema), reflexion with a
// react actor and lats answer the sums with the server's get-sum, and a
// rerun replays every tool call.
func TestMCPToolsEveryAgent(t *testing.T) {
	t.Parallel()
	srv, served := countingSim(t)
	dir := t.TempDir()
	q := sumsFile(t, dir, 4)
	httpSrv, ts := toolstest.HTTP("1.0")
	defer ts.Close()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"react text", []string{"--strategy", "react", "--set", "protocol=text"}},
		{"react json", []string{"--strategy", "react", "--set", "protocol=json"}},
		{"react xml", []string{"--strategy", "react", "--set", "protocol=xml"}},
		{"reflexion react", []string{"--strategy", "reflexion", "--set", "actor=react", "--set", "protocol=tools"}},
		{"lats", []string{"--strategy", "lats", "--set", "iterations=2", "--set", "n_generate=1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "b.db")
			args := append([]string{"run", "--db", db, "--base-url", srv.URL + "/v1", "--task", "file:" + q,
				"--mcp", "calc=" + ts.URL, "--concurrency", "2", "--json"}, c.args...)
			before := httpSrv.Calls()
			ref, m := runFlat(t, "first run", args...)
			if ref.Accuracy != 1 || m["tool_calls"].(float64) < 1 || m["tool_errors"] != 0.0 || httpSrv.Calls() == before {
				code, out, _ := cli(t, "show", "--db", db, "--item", "0", fmt.Sprint(ref.RunID))
				t.Fatalf("first run: accuracy %v, metrics %v\n%d %s", ref.Accuracy, m, code, out)
			}
			served.Store(0)
			before = httpSrv.Calls()
			again, m2 := runFlat(t, "rerun", args...)
			if served.Load() != 0 || httpSrv.Calls() != before || again.Accuracy != 1 || m2["tool_calls"] != m["tool_calls"] {
				t.Errorf("rerun: %d model requests, %d tool calls, metrics %v (first %v)", served.Load(), httpSrv.Calls()-before, m2, m)
			}
			sameOutputs(t, db, ref.RunID, db, again.RunID)
		})
	}
}

// TestMCPRunKilledResumes: a react run over a stdio server killed with
// SIGKILL resumes to the uninterrupted run's numbers and outputs.
func TestMCPRunKilledResumes(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
	if testing.Short() {
		t.Skip("starts child processes")
	}
	srv, _ := countingSimAt(t, 20*time.Millisecond)
	dir := t.TempDir()
	q := sumsFile(t, dir, 16)
	args := func(db string) []string {
		return []string{"run", "--db", db, "--base-url", srv.URL + "/v1", "--task", "file:" + q, "--strategy", "react",
			"--set", "protocol=tools", "--mcp", "calc=" + stdioServer("1.0"), "--concurrency", "2", "--json"}
	}
	ref, got, _ := killAndResume(t, "react over mcp", dir, args, 4, 16)
	if ref.Accuracy != 1 {
		t.Errorf("reference accuracy %v", ref.Accuracy)
	}
	sameOutputs(t, filepath.Join(dir, "ref.db"), ref.RunID, filepath.Join(dir, "killed.db"), got.RunID)
}

// TestMCPMisbehavingServerAndSecrets: tools that fail, hang, crash their
// server, answer garbage or 10 MB give their items error observations (or
// a capped one) and the run finishes every item; the server never sees
// the run's API key; a server that cannot start stops the run before it
// is stored, in one line naming it; --mcp on a strategy without tools is
// refused; --tool-cache off calls again on a rerun and is recorded.
func TestMCPMisbehavingServerAndSecrets(t *testing.T) {
	srv, _ := countingSim(t)
	dir := t.TempDir()
	q := writeText(t, dir, "bad.jsonl", strings.Join([]string{
		`{"question": "Will the fail tool work?", "answer": "no"}`,
		`{"question": "Please hang for a while.", "answer": "no"}`,
		`{"question": "Return a big result of 10 MB.", "answer": "no"}`,
		`{"question": "Answer with garbage bytes.", "answer": "no"}`,
		`{"question": "Crash the process now.", "answer": "no"}`,
		`{"question": "What environment variables does the server process see (get env)?", "answer": "no"}`,
		`{"question": "What is the sum of 2 and 3?", "answer": "5"}`,
	}, "\n")+"\n")
	// The hang has a server and a short timeout of its own; the others,
	// 10 MB through a race-built server on a loaded machine included, a
	// generous one.
	config := writeText(t, dir, "mcp.json", fmt.Sprintf(`{"mcpServers": {
		"slow": {"command": "env", "args": [%q, %q, %q], "timeout": 3},
		"bad": {"command": "env", "args": [%q, %q, %q], "timeout": 120}}}`,
		mcpChildEnv+"=1.0", toolstest.OnlyEnv+"=hang", os.Args[0], mcpChildEnv+"=1.0", toolstest.WithoutEnv+"=hang", os.Args[0]))
	t.Setenv("OPENAI_API_KEY", "sk-never-for-tools")
	db := filepath.Join(dir, "b.db")
	args := []string{"run", "--db", db, "--base-url", srv.URL + "/v1", "--task", "file:" + q, "--strategy", "react",
		"--set", "protocol=tools", "--set", "max_steps=2", "--mcp-config", config, "--concurrency", "1", "--json"}
	code, out, stderr := cli(t, args...)
	var sum bench.Summary
	var m map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &sum) != nil || json.Unmarshal([]byte(out), &m) != nil {
		t.Fatalf("misbehaving: exit %d: %s %s", code, out, stderr)
	}
	if sum.N != 7 || sum.Status != "done" || sum.Accuracy < 1.0/7-1e-9 || m["tool_errors"].(float64) == 0 {
		t.Fatalf("run: %+v %v", sum, m)
	}
	// The hang, the garbage and the crash failed their server: counted in
	// the summary and warned about, the tool's own refusal not.
	warning := fmt.Sprintf("warning: run %d: 3 tool calls failed", sum.RunID)
	if sum.ToolFailures != 3 || m["tool_failures"] != 3.0 || !strings.Contains(stderr, warning) {
		t.Errorf("tool failures %d (%v in the JSON), stderr %q, want 3 and %q", sum.ToolFailures, m["tool_failures"], stderr, warning)
	}
	if code, out, _ := cli(t, "report", "--db", db, "--format", "csv"); code != 0 || !strings.Contains(out, "tool_failures") {
		t.Errorf("report: exit %d, no tool_failures column:\n%s", code, out)
	}
	calls := itemToolCalls(t, db, sum.RunID)
	for i, want := range []string{"failed on purpose", "no answer within 3s", "", "the server failed", "the server failed", "", ""} {
		if len(calls[i]) == 0 {
			t.Errorf("item %d made no tool call", i)
			continue
		}
		c := calls[i][0].External
		t.Logf("item %d: %s → %q", i, c.Tool, clipTest(calls[i][0].Observation, 120))
		if !strings.Contains(c.Error, want) || (want == "") != (c.Error == "") || strings.Contains(c.Error, "\n") {
			t.Errorf("item %d (%s): error %q, want %q", i, c.Tool, c.Error, want)
		}
		if len(calls[i][0].Observation) > 9000 {
			t.Errorf("item %d: observation of %d bytes", i, len(calls[i][0].Observation))
		}
	}
	// bench report --by tool: per tool of the run, and (all).
	code, out, stderr = cli(t, "report", "--db", db, "--by", "tool", "--format", "json")
	var rows []render.ToolRow
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil {
		t.Fatalf("report --by tool: exit %d %s %s", code, out, stderr)
	}
	byTool := map[string]render.ToolRow{}
	for _, r := range rows {
		byTool[r.Tool] = r
	}
	all := byTool["(all)"]
	if byTool["fail"].Calls != 1 || byTool["fail"].Success != 0 || byTool["get-sum"].Success != 1 || byTool["hang"].LatencyMS < 2900 || byTool["hang"].Server != "slow" || byTool["big"].Server != "bad" ||
		all.Calls != 7 || all.Errors != 4 || all.CallsPerItem == nil || all.CallsPerItem.Mean != 1 || all.StepsPerItem == nil || all.StepsPerItem.Max != 2 {
		t.Errorf("report --by tool: %s", out)
	}
	if env := calls[5][0]; env.External.Tool != "get-env" || !strings.Contains(env.Observation, "PATH=") || strings.Contains(env.Observation, "sk-never-for-tools") {
		t.Errorf("get-env: %+v", env)
	}

	// A server that cannot start: exit 2, one line naming it, no run.
	empty := filepath.Join(dir, "none.db")
	code, _, stderr = cli(t, "run", "--db", empty, "--task", "file:"+q, "--strategy", "react", "--mcp", "gone="+filepath.Join(dir, "no-such-server"))
	if code != 2 || !strings.HasPrefix(stderr, "bench run: mcp server gone (") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("unstartable server: exit %d %q", code, stderr)
	}
	code, _, stderr = cli(t, "run", "--db", empty, "--task", "file:"+q, "--strategy", "cot", "--mcp", "calc="+stdioServer("1.0"))
	if code != 2 || !strings.Contains(stderr, "strategy cot acts with no tools") {
		t.Errorf("--mcp on cot: exit %d %q", code, stderr)
	}

	// --tool-cache off: the rerun calls the tools again (and the model
	// answers from the cache), recorded in the run's configuration.
	httpSrv, ts := toolstest.HTTP("1.0")
	defer ts.Close()
	sums := sumsFile(t, t.TempDir(), 3)
	live := []string{"run", "--db", db, "--base-url", srv.URL + "/v1", "--task", "file:" + sums, "--strategy", "react",
		"--set", "protocol=tools", "--mcp", "calc=" + ts.URL, "--tool-cache", "off", "--json"}
	runFlat(t, "live", live...)
	before := httpSrv.Calls()
	again, _ := runFlat(t, "live rerun", live...)
	if httpSrv.Calls()-before != 3 {
		t.Errorf("--tool-cache off rerun made %d tool calls, want 3", httpSrv.Calls()-before)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run, err := st.GetRun(context.Background(), again.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(run.Spec), `"tool_cache":"off"`) || !strings.Contains(string(run.Spec), `"reported":"toolstest 1.0"`) ||
		strings.Contains(string(run.Spec), "sk-never-for-tools") {
		t.Errorf("recorded spec: %s", run.Spec)
	}
}

func clipTest(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// TestMCPServerEverything: the run with the npm server-everything
// (scripts/install-mcp-servers.sh; skipped without it unless
// BENCH_REQUIRE_MCP=1) over stdio: the sums are answered with its get-sum
// and a rerun makes no model request and replays every tool call.
func TestMCPServerEverything(t *testing.T) {
	t.Parallel()
	path, _ := filepath.Abs("../../scripts/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("BENCH_REQUIRE_MCP") == "1" {
			t.Fatal(err)
		}
		t.Skipf("server-everything not installed (scripts/install-mcp-servers.sh): %v", err)
	}
	srv, served := countingSim(t)
	dir := t.TempDir()
	q := sumsFile(t, dir, 4)
	db := filepath.Join(dir, "b.db")
	args := []string{"run", "--db", db, "--base-url", srv.URL + "/v1", "--task", "file:" + q, "--strategy", "react",
		"--set", "protocol=tools", "--mcp", "everything=node " + path + " stdio", "--json"}
	ref, m := runFlat(t, "server-everything", args...)
	if ref.Accuracy != 1 || m["tool_calls"] != 1.0 {
		t.Fatalf("accuracy %v, metrics %v", ref.Accuracy, m)
	}
	first := itemToolCalls(t, db, ref.RunID)
	served.Store(0)
	again, _ := runFlat(t, "rerun", args...)
	for i, acts := range itemToolCalls(t, db, again.RunID) {
		if len(acts) != 1 || acts[0].External.Tool != "get-sum" || !acts[0].External.Cached || acts[0].Observation != first[i][0].Observation {
			t.Errorf("item %d: %+v", i, acts)
		}
	}
	if served.Load() != 0 {
		t.Errorf("rerun made %d model requests", served.Load())
	}
}

// TestMCPResumeRefusesAChangedServer: a run killed mid-way whose server
// then lists another tool set is not resumed (the mix would be two
// configurations), in one line naming the server.
func TestMCPResumeRefusesAChangedServer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a child process")
	}
	srv, _ := countingSimAt(t, 30*time.Millisecond)
	v1, v2 := toolstest.New("1.0").Handler(), toolstest.New("2.0").Handler()
	var current atomic.Pointer[http.Handler]
	current.Store(&v1)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*current.Load()).ServeHTTP(w, r) }))
	defer ts.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	q := sumsFile(t, dir, 12)
	killAfter(t, []string{"run", "--db", db, "--base-url", srv.URL + "/v1", "--task", "file:" + q, "--strategy", "react",
		"--set", "protocol=tools", "--mcp", "calc=" + ts.URL, "--concurrency", "1"}, db, 2, 12)
	current.Store(&v2)
	code, _, stderr := cli(t, "resume", "--last", "--db", db)
	if code != 2 || !strings.Contains(stderr, "mcp server calc lists other tools than when the run started") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("resume with a changed server: exit %d %q", code, stderr)
	}
	current.Store(&v1)
	if code, _, stderr := cli(t, "resume", "--last", "--db", db); code != 0 {
		t.Errorf("resume with the same server: exit %d %q", code, stderr)
	}
}

// TestMCPFlagsBadInput: every bad --mcp, --mcp-config or --tool-cache is
// exit 2 and one line naming the fix.
func TestMCPFlagsBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	q := sumsFile(t, dir, 1)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--mcp", "noname"}, "want NAME=COMMAND or NAME=http://HOST/PATH"},
		{[]string{"--mcp", "bad name=cmd"}, "want 1-40 letters, digits, _ or -"},
		{[]string{"--mcp", "x=sh -c 'open"}, "unclosed ' quote"},
		{[]string{"--mcp", "x=a", "--mcp", "x=b"}, "mcp server x is configured twice"},
		{[]string{"--mcp-config", filepath.Join(dir, "missing.json")}, "--mcp-config: open"},
		{[]string{"--mcp-config", writeText(t, dir, "empty.json", `{"mcpServers": {}}`)}, "no servers"},
		{[]string{"--mcp-config", writeText(t, dir, "junk.json", `{mcp`)}, "not JSON"},
		{[]string{"--mcp", "x=a", "--tool-cache", "sometimes"}, `--tool-cache "sometimes": want one of readwrite, off`},
	} {
		args := append([]string{"run", "--db", filepath.Join(dir, "b.db"), "--task", "file:" + q, "--strategy", "react"}, c.args...)
		code, _, stderr := cli(t, args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d %q, want one line with %q", c.args, code, stderr, c.want)
		}
	}
}

// TestMCPServeHotpotQA: ReAct on HotpotQA whose search and lookup come
// from `bench mcp serve --task hotpotqa` (over stdio and over streamable
// HTTP for native tool calls; over HTTP for the text and JSON protocols)
// gives the built-in tools' trajectories, field by field: the served
// tools take the task's tools' places (the same names, order and
// schemas), and every call of them goes to the server and is recorded
// with its action.
func TestMCPServeHotpotQA(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
	dir := t.TempDir()
	run := func(name, protocol string, extra ...string) (bench.Summary, []store.Item) {
		t.Helper()
		db := filepath.Join(dir, name+"-"+protocol+".db")
		args := append([]string{"run", "--db", db, "--task", "hotpotqa", "--range", "0:5", "--strategy", "react",
			"--set", "protocol=" + protocol, "--seed", "7", "--concurrency", "2", "--json"}, extra...)
		sum, _ := runFlat(t, name, args...)
		if sum.N != 5 || sum.Status != "done" {
			t.Fatalf("%s: %+v", name, sum)
		}
		st, err := store.Open(context.Background(), db)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		items, err := st.Items(context.Background(), sum.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if name == "stdio" {
			r, err := st.GetRun(context.Background(), sum.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(r.Spec), `"reported":"reasonbench hotpotqa 1"`) {
				t.Errorf("recorded spec: %s", r.Spec)
			}
		}
		return sum, items
	}
	task, err := bench.OpenTask("hotpotqa", "", "")
	if err != nil {
		t.Fatal(err)
	}
	insts, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	served, err := tools.Serve("hotpotqa", task.(tasks.Toolbox), insts, 0)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(served.Handler())
	defer ts.Close()
	builtin := map[string][]store.Item{}
	builtinSum := map[string]bench.Summary{}
	for _, c := range []struct{ name, protocol, server string }{
		{"stdio", "tools", "env " + childEnv + "=1 " + os.Args[0] + " mcp serve --task hotpotqa"},
		{"http", "tools", ts.URL},
		{"http", "text", ts.URL},
		{"http", "json", ts.URL},
	} {
		if builtin[c.protocol] == nil {
			builtinSum[c.protocol], builtin[c.protocol] = run("builtin", c.protocol)
		}
		sum, got := run(c.name, c.protocol, "--mcp", "hotpot="+c.server)
		what := c.name + " " + c.protocol
		if sum.Accuracy != builtinSum[c.protocol].Accuracy {
			t.Errorf("%s: accuracy %v, built-in %v", what, sum.Accuracy, builtinSum[c.protocol].Accuracy)
		}
		calls := sameTrajectories(t, what, builtin[c.protocol], got)
		t.Logf("%s: %d tool calls recorded, accuracy %v", what, calls, sum.Accuracy)
		if calls == 0 {
			t.Errorf("%s: no tool call went to the server", what)
		}
	}
	code, _, stderr := cli(t, "mcp", "serve", "--task", "gsm8k")
	if code != 2 || !strings.Contains(stderr, "task gsm8k offers no tools") {
		t.Errorf("serving a task without tools: exit %d %q", code, stderr)
	}
}

// sameTrajectories compares two react runs' items field by field (step,
// thought, reply, each action's tool, call, observation and validity, the
// output, finish and limit, the score and the metrics they share): want
// acted with the task's tools, got with a server's that replace them,
// whose every search and lookup must be recorded (a call to the server
// named hotpot). It returns got's recorded calls.
func sameTrajectories(t *testing.T, name string, want, got []store.Item) int {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d items, built-in %d", name, len(got), len(want))
	}
	calls := 0
	for i := range want {
		w, g := want[i], got[i]
		if w.Index != g.Index || w.Output != g.Output || w.Correct != g.Correct || w.Score != g.Score || w.Calls != g.Calls {
			t.Errorf("%s item %d: output %q correct %v score %v calls %d; built-in item %d %q %v %v %d",
				name, g.Index, g.Output, g.Correct, g.Score, g.Calls, w.Index, w.Output, w.Correct, w.Score, w.Calls)
		}
		for k, v := range w.Metrics {
			if g.Metrics[k] != v {
				t.Errorf("%s item %d: metric %s %v, built-in %v", name, g.Index, k, g.Metrics[k], v)
			}
		}
		var wt, gt reading.ReActTrajectory
		if err := json.Unmarshal(w.Detail, &wt); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(g.Detail, &gt); err != nil {
			t.Fatal(err)
		}
		if len(wt.Steps) == 0 || len(wt.Steps) != len(gt.Steps) {
			t.Errorf("%s item %d: %d steps, built-in %d", name, g.Index, len(gt.Steps), len(wt.Steps))
			continue
		}
		for s := range wt.Steps {
			ws, gs := wt.Steps[s], gt.Steps[s]
			if ws.Step != gs.Step || ws.Thought != gs.Thought || ws.Reply != gs.Reply || len(ws.Actions) != len(gs.Actions) {
				t.Errorf("%s item %d step %d: %+v\nbuilt-in %+v", name, g.Index, s, gs, ws)
				continue
			}
			for a := range ws.Actions {
				wa, ga := ws.Actions[a], gs.Actions[a]
				if wa.External != nil {
					t.Errorf("built-in item %d step %d: a recorded tool call %+v", w.Index, s, wa.External)
				}
				rec := ga.External
				ga.External = nil
				if wa != ga {
					t.Errorf("%s item %d step %d action %d: %+v\nbuilt-in %+v", name, g.Index, s, a, ga, wa)
				}
				served := ga.Tool == "search" || ga.Tool == "lookup"
				switch {
				case served && !strings.HasPrefix(ga.Observation, "Not run") && rec == nil:
					t.Errorf("%s item %d step %d: %s not recorded", name, g.Index, s, ga.Call)
				case rec != nil && (rec.Server != "hotpot" || rec.Tool != ga.Tool || rec.Result != ga.Observation ||
					!strings.HasPrefix(rec.ID, "hotpot/"+ga.Tool+"/")):
					t.Errorf("%s item %d step %d: recorded %+v for %+v", name, g.Index, s, rec, ga)
				case rec != nil:
					calls++
				}
			}
		}
		wt.Steps, gt.Steps = nil, nil
		if !reflect.DeepEqual(wt, gt) {
			t.Errorf("%s item %d: %+v\nbuilt-in %+v", name, g.Index, gt, wt)
		}
		if g.Metrics["tool_calls"] == 0 {
			t.Errorf("%s item %d: tool_calls %v", name, g.Index, g.Metrics["tool_calls"])
		}
	}
	return calls
}
