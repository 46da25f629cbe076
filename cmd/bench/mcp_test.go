package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
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

// countingSim serves the simulator over HTTP and counts the requests that
// reach it.
func countingSim(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	p := sim.DefaultParams()
	p.Skill, p.Slip = 1, 0
	m, err := bench.NewSim(p)
	if err != nil {
		t.Fatal(err)
	}
	inner := llm.NewServer(m, llm.ServerOptions{Latency: 5 * time.Millisecond})
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
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
func itemToolCalls(t *testing.T, db string, run int64) [][]strategies.ReActAction {
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
	var out [][]strategies.ReActAction
	for _, it := range items {
		var tr strategies.ReActTrajectory
		if err := json.Unmarshal(it.Detail, &tr); err != nil {
			t.Fatal(err)
		}
		var acts []strategies.ReActAction
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
			again, _ := runFlat(t, "rerun", args...)
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
		})
	}
}
