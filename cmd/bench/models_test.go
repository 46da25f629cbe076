package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/render"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/param"
)

// Tests of the settings for today's models and servers, through the
// simulator served over HTTP on 127.0.0.1 (bench serve-sim itself, or its
// handler behind a recorder of request bodies) and openai-go.

// startServeSim runs `bench serve-sim` with args on a free loopback port
// until the test ends, and returns its base URL.
func startServeSim(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cmdServeSim(ctx, append([]string{"--addr", "127.0.0.1:0"}, args...), pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("serve-sim %v: %v (%v)", args, err, <-done)
	}
	go io.Copy(io.Discard, pr)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve-sim: %v", err)
		}
	})
	i := strings.Index(line, "http://")
	return strings.Fields(line[i:])[0]
}

// recordingSim is serve-sim's handler behind a recorder of every model
// request's path and body (not the GET /v1/models probe a run starts with,
// which the probe's own tests check).
type recordingSim struct {
	URL    string
	mu     sync.Mutex
	paths  []string
	bodies []map[string]json.RawMessage
}

func newRecordingSim(t *testing.T, o llm.ServerOptions) *recordingSim {
	t.Helper()
	m, err := bench.NewSim(sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	inner := llm.NewServer(m, o)
	rs := &recordingSim{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.TrimSuffix(r.URL.Path, "/") == "/v1/models" {
			inner.ServeHTTP(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var body map[string]json.RawMessage
		_ = json.Unmarshal(b, &body)
		rs.mu.Lock()
		rs.paths = append(rs.paths, r.URL.Path)
		rs.bodies = append(rs.bodies, body)
		rs.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	rs.URL = ts.URL + "/v1"
	return rs
}

// take returns and forgets the requests recorded so far.
func (rs *recordingSim) take() ([]string, []map[string]json.RawMessage) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	p, b := rs.paths, rs.bodies
	rs.paths, rs.bodies = nil, nil
	return p, b
}

// runJSON runs `bench run ... --json` and returns its summary.
func runJSON(t *testing.T, args ...string) bench.Summary {
	t.Helper()
	code, out, stderr := cli(t, append(append([]string{"run"}, args...), "--json")...)
	if code != 0 {
		t.Fatalf("bench run %v: exit %d: %s", args, code, stderr)
	}
	var s bench.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	return s
}

// runItems reads a run's items and calls back from its database.
func runItems(t *testing.T, db string, runID int64) ([]store.Item, []store.Call) {
	t.Helper()
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	items, err := st.Items(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	calls, err := st.Calls(context.Background(), runID, -1)
	if err != nil {
		t.Fatal(err)
	}
	return items, calls
}

// sameItems reports whether two runs gave every item the same output and score.
func sameItems(t *testing.T, what string, a, b []store.Item) {
	t.Helper()
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("%s: %d items against %d", what, len(a), len(b))
	}
	for i := range a {
		if a[i].Index != b[i].Index || a[i].Output != b[i].Output || a[i].Score != b[i].Score {
			t.Errorf("%s: item %d: %q (%v) against %q (%v)", what, a[i].Index, a[i].Output, a[i].Score, b[i].Output, b[i].Score)
		}
	}
}

func oneLine(t *testing.T, what, stderr string) {
	t.Helper()
	if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 {
		t.Errorf("%s: %d lines of error, want one:\n%s", what, n+1, stderr)
	}
}

// A reasoning model's refusals: a server rejecting temperature fails the
// run with one line naming the flag; with --set temperature=default no
// temperature is sent, the run succeeds and its tables say the model
// sampled at its own default. The same for max_tokens and --param.
func TestReasoningModelEmulation(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "b.db")
	url := startServeSim(t, "--reject-param", "temperature")
	base := []string{"--db", db, "--base-url", url, "--model", "sim", "--range", "900:903"}

	for _, strat := range [][]string{
		{"--task", "game24", "--strategy", "cotsc", "--set", "k=5"},
		{"--task", "game24", "--strategy", "tot", "--set", "b=1"},
	} {
		args := append(append([]string{"run"}, base...), strat...)
		code, _, stderr := cli(t, args...)
		if code != 2 || !strings.Contains(stderr, "the server rejects temperature: pass --set temperature=default") {
			t.Errorf("%v: exit %d, stderr %q", strat, code, stderr)
		}
		oneLine(t, "rejected temperature", stderr)

		s := runJSON(t, append(append(append([]string{}, base...), strat...), "--set", "temperature=default")...)
		if s.Status != "done" || s.N != 3 {
			t.Fatalf("%v with temperature=default: %+v", strat, s)
		}
		var params map[string]any
		if err := json.Unmarshal(s.Params, &params); err != nil || params["temperature"] != "default" {
			t.Errorf("recorded params %s", s.Params)
		}
		_, calls := runItems(t, db, s.RunID)
		for _, c := range calls {
			var req map[string]json.RawMessage
			if err := json.Unmarshal(c.Request, &req); err != nil || string(req["temperature"]) != "null" {
				t.Fatalf("recorded request %s: temperature %s, want null", c.Request, req["temperature"])
			}
		}
		code, out, stderr := cli(t, "report", "--db", db, "--runs", itoa64(s.RunID))
		if code != 0 || !strings.Contains(out, "temperature=default") || !strings.Contains(out, render.TemperatureDefaultNote) {
			t.Errorf("report of a temperature=default run:\n%s%s", out, stderr)
		}
	}

	// LATS has two temperatures; the error names both settings.
	code, _, stderr := cli(t, append(append([]string{"run"}, base...), "--task", "hotpotqa", "--range", "0:1", "--strategy", "lats", "--set", "iterations=2")...)
	if code != 2 || !strings.Contains(stderr, "pass --set temperature=default --set value_temperature=default") {
		t.Errorf("lats: exit %d, stderr %q", code, stderr)
	}

	// max_tokens: the reference ToT protocol sends it.
	url = startServeSim(t, "--reject-param", "max_tokens", "--reject-param", "reasoning_effort")
	preset := []string{"run", "--db", db, "--base-url", url, "--model", "sim", "--preset", "tot-game24/tot-b1", "--range", "900:901"}
	code, _, stderr = cli(t, preset...)
	if code != 2 || !strings.Contains(stderr, "the server rejects max_tokens: pass --max-tokens-field max_completion_tokens") {
		t.Errorf("max_tokens: exit %d, stderr %q", code, stderr)
	}
	oneLine(t, "rejected max_tokens", stderr)
	if code, _, stderr := cli(t, append(preset, "--max-tokens-field", "max_completion_tokens")...); code != 0 {
		t.Errorf("with --max-tokens-field max_completion_tokens: exit %d: %s", code, stderr)
	}
	code, _, stderr = cli(t, append(preset, "--max-tokens-field", "max_completion_tokens", "--param", "reasoning_effort=high")...)
	if code != 2 || !strings.Contains(stderr, "the server rejects reasoning_effort: drop --param reasoning_effort=high") {
		t.Errorf("reasoning_effort: exit %d, stderr %q", code, stderr)
	}
}

func itoa64(n int64) string { b, _ := json.Marshal(n); return string(b) }

// Inline thinking (a thinking model served without a reasoning parser):
// the simulator's thinking is a draft that misleads any parser reading it,
// yet Game of 24 and ReAct score exactly what they score without thinking,
// because the thinking is split off; it is stored as the call's reasoning
// and its tokens are recorded and reported. With --think keep the parsers
// read the thinking and are misled.
func TestInlineThinkingScoresTheAnswer(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	plain := startServeSim(t)
	inline := startServeSim(t, "--think-inline")
	field := startServeSim(t, "--reasoning-field", "reasoning")
	for _, tc := range []struct {
		name   string
		args   []string
		misled bool // whether reading the thinking changes the scores
	}{
		{"game24 cot", []string{"--task", "game24", "--strategy", "cot", "--set", "k=4", "--range", "900:906"}, false},
		{"game24 tot", []string{"--task", "game24", "--strategy", "tot", "--set", "b=1", "--range", "900:906"}, true},
		{"hotpotqa react", []string{"--task", "hotpotqa", "--strategy", "react", "--range", "24:30"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(url string, extra ...string) (bench.Summary, []store.Item, []store.Call) {
				s := runJSON(t, append(append([]string{"--db", db, "--base-url", url, "--model", "sim"}, tc.args...), extra...)...)
				items, calls := runItems(t, db, s.RunID)
				return s, items, calls
			}
			ref, refItems, _ := run(plain)
			s, items, calls := run(inline)
			sameItems(t, "inline thinking split", refItems, items)
			if s.Accuracy != ref.Accuracy || s.ReasoningTokens == 0 || s.CompletionTokens <= ref.CompletionTokens {
				t.Errorf("split: accuracy %v (plain %v), reasoning tokens %d, completion %d (plain %d)",
					s.Accuracy, ref.Accuracy, s.ReasoningTokens, s.CompletionTokens, ref.CompletionTokens)
			}
			for _, c := range calls {
				var resp llm.Response
				if err := json.Unmarshal(c.Response, &resp); err != nil {
					t.Fatal(err)
				}
				if c.ReasoningTokens == 0 {
					t.Errorf("call %d (%s): no reasoning tokens recorded", c.ID, c.Purpose)
				}
				for _, ch := range resp.Choices {
					if strings.Contains(ch.Content, "<think>") || strings.Contains(ch.Content, "draft") ||
						!strings.HasPrefix(ch.Reasoning, "The user wants an answer") {
						t.Fatalf("call %d stored content %q reasoning %q: the thinking is not split off", c.ID, ch.Content, ch.Reasoning)
					}
				}
			}
			code, out, _ := cli(t, "report", "--db", db, "--runs", itoa64(s.RunID))
			if code != 0 || !strings.Contains(out, "reasoning") || !strings.Contains(out, itoa64(int64(s.ReasoningTokens))) {
				t.Errorf("report lacks the reasoning tokens %d:\n%s", s.ReasoningTokens, out)
			}

			_, fieldItems, fieldCalls := run(field)
			sameItems(t, "reasoning field", refItems, fieldItems)
			if !strings.Contains(string(fieldCalls[0].Response), "The user wants an answer") {
				t.Errorf("reasoning from the field not stored: %s", fieldCalls[0].Response)
			}

			k, keptItems, keptCalls := run(inline, "--think", "keep")
			if !strings.Contains(string(keptCalls[0].Response), `"content":"\u003cthink\u003e`) && !strings.Contains(string(keptCalls[0].Response), `"content":"<think>`) {
				t.Errorf("--think keep changed the content: %s", keptCalls[0].Response)
			}
			differs := k.Accuracy != ref.Accuracy
			for i := range keptItems {
				differs = differs || keptItems[i].Score != refItems[i].Score
			}
			if differs != tc.misled {
				t.Errorf("--think keep: results differ %v, want %v (accuracy %v against %v)", differs, tc.misled, k.Accuracy, ref.Accuracy)
			}
		})
	}
}

// --param values reach the server verbatim, JSON as JSON, with every call;
// they are recorded with the run and its calls, shown in reports, and part
// of the cache key; an experiment file's model: block does the same.
func TestModelParamsReachTheServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	rs := newRecordingSim(t, llm.ServerOptions{})
	args := []string{"--db", db, "--base-url", rs.URL, "--model", "sim", "--task", "game24", "--strategy", "cot", "--set", "k=3", "--range", "900:903"}
	params := []string{"--param", "reasoning_effort=high", "--param", `chat_template_kwargs={"enable_thinking": false}`, "--param", "top_k=20"}
	s := runJSON(t, append(args, params...)...)
	_, bodies := rs.take()
	if len(bodies) != 3 {
		t.Fatalf("%d requests, want 3", len(bodies))
	}
	for _, b := range bodies {
		var kw map[string]any
		if string(b["reasoning_effort"]) != `"high"` || string(b["top_k"]) != "20" || json.Unmarshal(b["chat_template_kwargs"], &kw) != nil || kw["enable_thinking"] != false {
			t.Fatalf("request body %v", b)
		}
	}
	_, calls := runItems(t, db, s.RunID)
	if !strings.Contains(string(calls[0].Request), `"extra":{"chat_template_kwargs":{"enable_thinking":false},"reasoning_effort":"high","top_k":20}`) {
		t.Errorf("recorded request %s", calls[0].Request)
	}
	want := `chat_template_kwargs={"enable_thinking":false} reasoning_effort=high top_k=20`
	if s.ModelParams != want {
		t.Errorf("summary model params %q, want %q", s.ModelParams, want)
	}
	if code, out, _ := cli(t, "report", "--db", db, "--runs", itoa64(s.RunID)); code != 0 || !strings.Contains(out, "model params") || !strings.Contains(out, want) {
		t.Errorf("report:\n%s", out)
	}

	// The same parameters: answered from the cache. Others: sent again.
	runJSON(t, append(args, params...)...)
	if _, b := rs.take(); len(b) != 0 {
		t.Errorf("a rerun with the same parameters made %d requests", len(b))
	}
	runJSON(t, append(args, "--param", "reasoning_effort=low")...)
	if _, b := rs.take(); len(b) != 3 || string(b[0]["reasoning_effort"]) != `"low"` {
		t.Errorf("other parameters answered from the cache: %v", b)
	}

	file := filepath.Join(dir, "exp.yaml")
	yaml := "name: params\ntask: game24\nrange: \"900:902\"\nbase_url: " + rs.URL + "\nmodel:\n  name: sim\n  params:\n    reasoning_effort: medium\n    chat_template_kwargs: {enable_thinking: false}\nstrategies:\n  - io: {k: 2}\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := cli(t, "run", "--db", db, "-f", file); code != 0 {
		t.Fatalf("experiment: %s", stderr)
	}
	_, bodies = rs.take()
	if len(bodies) != 2 || string(bodies[0]["reasoning_effort"]) != `"medium"` || string(bodies[0]["chat_template_kwargs"]) != `{"enable_thinking":false}` {
		t.Errorf("experiment requests %v", bodies)
	}
}

// The completions API: io, cot, cotsc and tot (and the ToT paper's presets,
// and the Reflexion reference agents) send one user turn, posted verbatim
// as the prompt to /v1/completions, with the same results as on chat;
// strategies whose requests are conversations are refused before the run.
func TestCompletionsAPI(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	rs := newRecordingSim(t, llm.ServerOptions{})
	// One call at a time: the presets' run-wide value cache makes the calls
	// depend on the order puzzles run in.
	base := []string{"--db", db, "--base-url", rs.URL, "--model", "sim", "--cache", "off", "--concurrency", "1"}
	check := func(what string, args []string) {
		t.Helper()
		chat := runJSON(t, append(append([]string{}, base...), args...)...)
		rs.take()
		comp := runJSON(t, append(append(append([]string{}, base...), args...), "--api", "completions")...)
		paths, bodies := rs.take()
		if len(paths) == 0 {
			t.Fatalf("%s: no requests", what)
		}
		for i, p := range paths {
			if p != "/v1/completions" || bodies[i]["messages"] != nil || bodies[i]["prompt"] == nil {
				t.Fatalf("%s: request %d to %s: %v", what, i, p, bodies[i])
			}
		}
		a, _ := runItems(t, db, chat.RunID)
		b, _ := runItems(t, db, comp.RunID)
		sameItems(t, what+" chat against completions", a, b)
		if comp.ModelParams != "api=completions" || comp.Calls != chat.Calls {
			t.Errorf("%s: model params %q, calls %d (chat %d)", what, comp.ModelParams, comp.Calls, chat.Calls)
		}
	}
	for _, args := range [][]string{
		{"--task", "game24", "--strategy", "io", "--set", "k=3", "--range", "900:902"},
		{"--task", "game24", "--strategy", "cot", "--set", "k=3", "--range", "900:902"},
		{"--task", "game24", "--strategy", "cotsc", "--set", "k=5", "--range", "900:902"},
		{"--task", "game24", "--strategy", "tot", "--set", "b=2", "--range", "900:902"},
		{"--task", "game24", "--strategy", "tot", "--set", "generate=sample", "--set", "evaluate=vote", "--set", "b=1", "--range", "900:902"},
		{"--preset", "tot-game24/io", "--range", "900:902"},
		{"--preset", "tot-game24/cot", "--range", "900:902"},
		{"--preset", "tot-game24/cotsc", "--range", "900:902"},
		{"--preset", "tot-game24/tot-b1", "--range", "900:902"},
		{"--preset", "tot-game24/tot-b5", "--range", "900:901"},
		{"--preset", "reflexion-hotpotqa/cot-context-reflexion", "--range", "0:2"},
		{"--preset", "reflexion-hotpotqa/react-reflexion", "--range", "0:2"},
	} {
		check(strings.Join(args, " "), args)
	}

	for _, tc := range []struct{ args []string }{
		{[]string{"--task", "hotpotqa", "--strategy", "react"}},
		{[]string{"--task", "hotpotqa", "--strategy", "lats"}},
		{[]string{"--task", "hotpotqa", "--strategy", "reflexion", "--set", "actor=react"}},
	} {
		args := append(append(append([]string{"run"}, base...), tc.args...), "--api", "completions", "--range", "0:2")
		code, _, stderr := cli(t, args...)
		if code != 2 || !strings.Contains(stderr, "needs --api chat") {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, stderr)
		}
		oneLine(t, "multi-turn on completions", stderr)
	}
	if paths, _ := rs.take(); len(paths) != 0 {
		t.Errorf("refused runs sent %d requests", len(paths))
	}
}

// Every strategy either declares that it needs the chat API or runs on
// /v1/completions, where a request of more than one user turn fails the
// run: so no strategy sends a conversation without saying so. Each runs
// its registry Probe.
func TestEveryStrategyOnCompletions(t *testing.T) {
	t.Parallel() // slow and self-contained: see cli
	db := filepath.Join(t.TempDir(), "b.db")
	url := startServeSim(t)
	for _, spec := range strategies.Registry() {
		p := spec.Probe
		if _, err := bench.LookupTask(p.Task); err != nil {
			t.Logf("%s: no task %s in this build (%v)", spec.Name, p.Task, err)
			continue
		}
		args := []string{"run", "--db", db, "--base-url", url, "--model", "sim", "--api", "completions",
			"--task", p.Task, "--strategy", spec.Name, "--range", p.Range}
		for _, k := range slices.Sorted(maps.Keys(p.Params)) {
			args = append(args, "--set", k+"="+fmt.Sprint(p.Params[k]))
		}
		v, err := param.Resolve(spec.Params, p.Params)
		if err != nil {
			t.Fatalf("%s: probe: %v", spec.Name, err)
		}
		s, err := spec.New(v)
		if err != nil {
			t.Fatal(err)
		}
		co, chatOnly := s.(strategies.ChatOnly)
		needsChat := chatOnly && co.NeedsChat() != ""
		code, _, stderr := cli(t, args...)
		switch {
		case needsChat && (code != 2 || !strings.Contains(stderr, "needs --api chat")):
			t.Errorf("%s needs chat: exit %d, stderr %q", spec.Name, code, stderr)
		case !needsChat && code != 0:
			t.Errorf("%s on completions: exit %d: %s", spec.Name, code, stderr)
		}
	}
}

// A server that reports no usage: runs complete, with the tokens counted
// locally and marked estimated in the stored responses.
func TestServerWithoutUsage(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "b.db")
	url := startServeSim(t, "--no-usage")
	s := runJSON(t, "--db", db, "--base-url", url, "--model", "sim", "--task", "game24", "--strategy", "tot", "--set", "b=1", "--range", "900:902")
	if s.Status != "done" || s.N != 2 || s.Calls == 0 || s.PromptTokens == 0 || s.CompletionTokens == 0 {
		t.Errorf("summary %+v", s)
	}
	code, out, stderr := cli(t, "export", "1", "--calls", "--db", db)
	if code != 0 || !strings.Contains(out, `\"estimated\":true`) && !strings.Contains(out, `"estimated":true`) {
		t.Errorf("export: exit %d (%s); no call marked estimated", code, stderr)
	}
}

func TestModelFlagsBadInput(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "b.db")
	run := []string{"run", "--db", db, "--task", "game24", "--strategy", "cot", "--range", "900:901"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--param", "temperature=0.2"}, "--param temperature: bench sets temperature itself; use --set temperature=VALUE or --set temperature=default"},
		{[]string{"--param", "max_tokens=100"}, "use --set max_tokens=N and --max-tokens-field"},
		{[]string{"--param", "=x"}, "want NAME=VALUE"},
		{[]string{"--param", "bad name=1"}, "want a request field name"},
		{[]string{"--api", "responses"}, `--api "responses": want one of chat, completions`},
		{[]string{"--think", "hide"}, `--think "hide": want one of split, keep`},
		{[]string{"--think-tags", "<think>"}, "--think-tags"},
		{[]string{"--max-tokens-field", "max_length"}, "--max-tokens-field"},
		{[]string{"--set", "temperature=hot"}, "want a number or default"},
	} {
		code, _, stderr := cli(t, append(slices.Clone(run), tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
		oneLine(t, strings.Join(tc.args, " "), stderr)
	}
	code, _, stderr := cli(t, "serve-sim", "--think-inline", "--reasoning-field", "reasoning")
	if code != 2 || !strings.Contains(stderr, "pick one place") {
		t.Errorf("serve-sim --think-inline --reasoning-field: exit %d, %q", code, stderr)
	}
	// bench estimate takes the same flags.
	code, out, stderr := cli(t, "estimate", "--task", "game24", "--strategy", "cot", "--range", "900:902", "--model", "gpt-4o",
		"--api", "completions", "--param", "reasoning_effort=high", "--think", "keep", "--skills", "0.5")
	if code != 0 || !strings.Contains(out, "prompt tokens") {
		t.Errorf("estimate with model flags: exit %d: %s%s", code, out, stderr)
	}
}

// bench serve-sim as an offline model for streaming clients: openai-go's
// streaming chat and completions clients, include_usage, thinking inline
// or in a field, with its reasoning tokens in the usage chunk.
func TestServeSimStreamingClients(t *testing.T) {
	t.Parallel()
	prompt := renderedPrompt(t, "game24/cot", "4 5 6 10")
	for _, tc := range []struct {
		flags []string
		field string // "" for inline thinking
	}{
		{[]string{"--think-inline"}, ""},
		{[]string{"--reasoning-field", "reasoning"}, "reasoning"},
	} {
		url := startServeSim(t, tc.flags...)
		client := openai.NewClient(option.WithBaseURL(url), option.WithAPIKey("unused"), option.WithMaxRetries(0))
		ctx := context.Background()

		chat := client.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
			Model: "sim", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
			N: openai.Int(2), Seed: openai.Int(1), Temperature: openai.Float(0.7),
			StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		})
		var acc openai.ChatCompletionAccumulator
		reasoning := map[int64]string{}
		for chat.Next() {
			ch := chat.Current()
			acc.AddChunk(ch)
			for _, c := range ch.Choices {
				var piece string
				if raw := c.Delta.JSON.ExtraFields[tc.field].Raw(); tc.field != "" && json.Unmarshal([]byte(raw), &piece) == nil {
					reasoning[c.Index] += piece
				}
			}
		}
		if err := chat.Err(); err != nil {
			t.Fatalf("%v chat stream: %v", tc.flags, err)
		}
		if len(acc.Choices) != 2 || acc.Usage.CompletionTokensDetails.ReasoningTokens == 0 || acc.Usage.PromptTokens == 0 {
			t.Fatalf("%v: accumulated %d choices, usage %+v", tc.flags, len(acc.Choices), acc.Usage)
		}
		for _, c := range acc.Choices {
			answer, thinking, found := llm.SplitThinking(c.Message.Content, llm.DefaultThinkTags)
			if tc.field == "" && (!found || !strings.Contains(thinking, "A first draft") || !strings.Contains(answer, "Answer:")) {
				t.Errorf("inline: streamed content %q", c.Message.Content)
			}
			if tc.field != "" && (found || !strings.Contains(c.Message.Content, "Answer:")) {
				t.Errorf("field: streamed content %q", c.Message.Content)
			}
		}
		if tc.field != "" && (reasoning[0] != sim.Thought || reasoning[1] != sim.Thought) {
			t.Errorf("reasoning field deltas %v", reasoning)
		}

		comp := client.Completions.NewStreaming(ctx, openai.CompletionNewParams{
			Model: "sim", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)},
			Seed: openai.Int(1), StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		})
		var text strings.Builder
		var usage openai.CompletionUsage
		for comp.Next() {
			ch := comp.Current()
			for _, c := range ch.Choices {
				text.WriteString(c.Text)
			}
			if len(ch.Choices) == 0 {
				usage = ch.Usage
			}
		}
		if err := comp.Err(); err != nil {
			t.Fatalf("%v completions stream: %v", tc.flags, err)
		}
		if usage.CompletionTokensDetails.ReasoningTokens == 0 || !strings.Contains(text.String(), "Answer:") ||
			strings.HasPrefix(text.String(), "<think>") != (tc.field == "") {
			t.Errorf("%v: streamed completion %q, usage %+v", tc.flags, text.String(), usage)
		}
	}
}

// renderedPrompt renders a bundled template for one input.
func renderedPrompt(t *testing.T, name, input string) string {
	t.Helper()
	lib, err := prompts.WithOverrides("")
	if err != nil {
		t.Fatal(err)
	}
	s, err := lib.Render(name, strategies.PromptData{Input: input})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A server that refuses n > 1 (llama.cpp): the run fails with one line
// naming --max-n 1, and with it gives the results of a server honouring n.
func TestServerRefusingN(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "b.db")
	args := []string{"--db", db, "--model", "sim", "--task", "game24", "--strategy", "cotsc", "--set", "k=5", "--range", "900:904"}
	url := startServeSim(t, "--reject-param", "n")
	code, _, stderr := cli(t, append(append([]string{"run"}, args...), "--base-url", url)...)
	if code != 2 || !strings.Contains(stderr, "the server rejects n: pass --max-n 1") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	oneLine(t, "rejected n", stderr)
	got := runJSON(t, append(args, "--base-url", url, "--max-n", "1")...)
	ref := runJSON(t, append(args, "--base-url", startServeSim(t))...)
	a, _ := runItems(t, db, ref.RunID)
	b, _ := runItems(t, db, got.RunID)
	sameItems(t, "--max-n 1 against n honoured", a, b)
	if got.Requests != 5*ref.Requests {
		t.Errorf("%d requests with --max-n 1, %d with n honoured", got.Requests, ref.Requests)
	}
}
