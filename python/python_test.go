// Package python holds the tests of the Python side of the program protocol
// (python/reasonbench.py, the examples, the openai stand-in): each example
// runs with the system's /usr/bin/python3 against serve-sim's handler on
// loopback, fed one item on standard input, as `bench run --strategy
// program` runs it; TestMinimalExampleAsBenchRun runs one through bench
// run itself (bench's and cmd/bench's program tests run cotsc.py so).
package python

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/cmd/bench/benchtest"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

// python is the interpreter CI installs (scripts/install-sandbox.sh).
const python = "/usr/bin/python3"

func needPython(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s absent (%v): scripts/install-sandbox.sh installs it; the Python examples are untested here", python, err)
	}
}

// seen is one request the endpoint received.
type seen struct {
	Path   string
	Header http.Header
	Body   map[string]any
}

// endpoint is serve-sim's handler on 127.0.0.1 behind a recorder of every
// request.
type endpoint struct {
	URL  string // base URL ending in /v1
	mu   sync.Mutex
	reqs []seen
}

func (e *endpoint) requests() []seen {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]seen(nil), e.reqs...)
}

func (e *endpoint) reset() {
	e.mu.Lock()
	e.reqs = nil
	e.mu.Unlock()
}

var simOnce = sync.OnceValues(func() (*sim.Model, error) { return bench.NewSim(sim.DefaultParams()) })

// sharedSim is one simulated model for the package's tests (it memoises
// what it works out, so building it once keeps them fast).
func sharedSim(t testing.TB) *sim.Model {
	t.Helper()
	m, err := simOnce()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func startSim(t testing.TB) *endpoint {
	t.Helper()
	inner := llm.NewServer(sharedSim(t), llm.ServerOptions{})
	e := &endpoint{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(raw, &body)
		e.mu.Lock()
		e.reqs = append(e.reqs, seen{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
		e.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(raw))
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	e.URL = ts.URL + "/v1"
	return e
}

// programItem is the JSON object bench sends a program for an instance.
func programItem(task string, inst tasks.Instance, params map[string]any) map[string]any {
	if params == nil {
		params = map[string]any{}
	}
	item := map[string]any{"index": inst.Index, "id": inst.Key, "input": inst.Input, "task": task, "params": params}
	// The reading the task's prompts show, in its default mode, as the
	// native strategies render it.
	if spec, err := bench.LookupTask(task); err == nil {
		if cr, ok := spec.New().(tasks.ContextRenderer); ok && len(cr.Contexts()) > 0 {
			if c, err := cr.RenderContext(inst, cr.Contexts()[0]); err == nil && c != "" {
				item["context"] = c
			}
		}
	}
	return item
}

// runProgram runs a Python program on one item against the endpoint at
// baseURL with the protocol's environment, and returns its last stdout
// line decoded, its exit error and its stderr: the protocol without bench,
// so a test sees every request the example sends.
func runProgram(t *testing.T, baseURL, script string, item map[string]any, extraEnv ...string) (map[string]any, error, string) {
	t.Helper()
	in, err := json.Marshal(item)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, script)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE=1", "PYTHONNOUSERSITE=1",
		"OPENAI_BASE_URL=" + baseURL, "OPENAI_API_BASE=" + baseURL, "OPENAI_API_KEY=test-token",
		"BENCH_MODEL=sim", "BENCH_ITEM_INDEX=" + strconv.Itoa(intOf(item["index"]))}, extraEnv...)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	lines := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
	var out map[string]any
	if runErr == nil {
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &out); err != nil {
			t.Fatalf("%s: last stdout line %q is not a JSON answer: %v (stderr %s)", script, lines[len(lines)-1], err, stderr.String())
		}
	}
	return out, runErr, stderr.String()
}

func intOf(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case float64:
		return int(x)
	}
	return 0
}

func instances(t testing.TB, task string, from, to int) (tasks.Task, []tasks.Instance) {
	t.Helper()
	spec, err := bench.LookupTask(task)
	if err != nil {
		t.Fatal(err)
	}
	tk := spec.New()
	all, err := tk.Instances()
	if err != nil {
		t.Fatal(err)
	}
	return tk, tasks.Select(all, tasks.Range{Start: from, End: to})
}

// nativeRequests runs a native strategy on an instance over the simulator
// and returns the requests it sent.
func nativeRequests(t *testing.T, strategy string, params map[string]any, task tasks.Task, inst tasks.Instance) []llm.Request {
	t.Helper()
	_, reqs := nativeSolve(t, strategy, params, task, inst, 7)
	return reqs
}

// nativeSolve runs a native strategy on an instance over the simulator,
// its calls seeded from itemSeed, and returns its result and requests.
func nativeSolve(t *testing.T, strategy string, params map[string]any, task tasks.Task, inst tasks.Instance, itemSeed int64) (strategies.Result, []llm.Request) {
	t.Helper()
	m := sharedSim(t)
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	spec, err := strategies.Lookup(strategy)
	if err != nil {
		t.Fatal(err)
	}
	v, err := param.Resolve(spec.Params, params)
	if err != nil {
		t.Fatal(err)
	}
	strat, err := spec.New(v)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var reqs []llm.Request
	rec := llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		mu.Lock()
		reqs = append(reqs, req)
		mu.Unlock()
		return m.Sample(ctx, req)
	})
	env := strategies.Env{Sampler: llm.Chain(rec, llm.Identify(itemSeed, 1)), Task: task, Prompts: lib, Seed: itemSeed}
	res, err := strat.Solve(context.Background(), env, inst)
	if err != nil {
		t.Fatal(err)
	}
	return res, reqs
}

// The Python CoT-SC sends the native cotsc's request: the same prompt byte
// for byte as one user message, n=k, the same temperature, its call named
// as the native call is; and answers in the task's shape.
func TestCoTSCSendsTheNativePrompt(t *testing.T) {
	needPython(t)
	e := startSim(t)
	for _, c := range []struct {
		task     string
		from, to int
	}{{"game24", 900, 903}, {"gsm8k", 0, 3}, {"hotpotqa", 0, 3}} {
		task, insts := instances(t, c.task, c.from, c.to)
		for _, inst := range insts {
			native := nativeRequests(t, "cotsc", map[string]any{"k": 4}, task, inst)
			if len(native) != 1 {
				t.Fatalf("native cotsc sent %d requests", len(native))
			}
			e.reset()
			out, err, stderr := runProgram(t, e.URL, "examples/cotsc.py", programItem(c.task, inst, map[string]any{"k": 4}))
			if err != nil {
				t.Fatalf("%s %s: %v: %s", c.task, inst.Key, err, stderr)
			}
			reqs := e.requests()
			if len(reqs) != 1 || reqs[0].Path != "/v1/chat/completions" {
				t.Fatalf("%s %s: program sent %+v", c.task, inst.Key, reqs)
			}
			body := reqs[0].Body
			msgs, _ := body["messages"].([]any)
			if len(msgs) != 1 {
				t.Fatalf("%s %s: messages %v", c.task, inst.Key, body["messages"])
			}
			msg := msgs[0].(map[string]any)
			if msg["role"] != "user" || msg["content"] != native[0].Messages[0].Content || len(native[0].Messages) != 1 {
				t.Errorf("%s %s: prompt differs from the native cotsc's:\nprogram %q\nnative  %q", c.task, inst.Key, msg["content"], native[0].Messages[0].Content)
			}
			if body["n"] != float64(native[0].N) || native[0].Temperature == nil || body["temperature"] != *native[0].Temperature {
				t.Errorf("%s %s: n %v temperature %v, native n %d temperature %v", c.task, inst.Key, body["n"], body["temperature"], native[0].N, native[0].Temperature)
			}
			if got := reqs[0].Header.Get("X-Bench-Call"); got != native[0].Call {
				t.Errorf("%s %s: call %q, native %q", c.task, inst.Key, got, native[0].Call)
			}
			if reqs[0].Header.Get("Authorization") != "Bearer test-token" || body["model"] != "sim" {
				t.Errorf("%s %s: key %q model %v", c.task, inst.Key, reqs[0].Header.Get("Authorization"), body["model"])
			}
			output, _ := out["output"].(string)
			if k, ok := task.AnswerKey(inst, output, task.VoteKeys()[0]); !ok || k == "" {
				t.Errorf("%s %s: output %q gives no answer", c.task, inst.Key, output)
			}
		}
	}
}

// The Python vote is bench's: each chain's key equals the task's vote key
// (game24 line, gsm8k's numeric answer), and the chosen chain is the one
// strategies.Vote chooses, over the simulator's real chains.
func TestCoTSCVotesAsBench(t *testing.T) {
	needPython(t)
	e := startSim(t)
	disagreements := 0
	chains := 0
	for _, c := range []struct {
		task     string
		from, to int
	}{{"game24", 900, 908}, {"gsm8k", 10, 18}, {"hotpotqa", 10, 18}} {
		task, insts := instances(t, c.task, c.from, c.to)
		for _, inst := range insts {
			out, err, stderr := runProgram(t, e.URL, "examples/cotsc.py", programItem(c.task, inst, map[string]any{"k": 10, "detail": true}))
			if err != nil {
				t.Fatalf("%s %s: %v: %s", c.task, inst.Key, err, stderr)
			}
			var d struct {
				Keys    []*string `json:"keys"`
				Outputs []string  `json:"outputs"`
				Winner  int       `json:"winner"`
			}
			raw, _ := json.Marshal(out["detail"])
			if err := json.Unmarshal(raw, &d); err != nil || len(d.Outputs) != 10 || len(d.Keys) != 10 {
				t.Fatalf("%s %s: detail %s (%v)", c.task, inst.Key, raw, err)
			}
			goKey := task.VoteKeys()[0]
			for i, o := range d.Outputs {
				chains++
				want, ok := task.AnswerKey(inst, o, goKey)
				if got := d.Keys[i]; (got == nil) == ok || (ok && *got != want) {
					disagreements++
					t.Errorf("%s %s chain %d: Python key %v, bench's %q (%v) for %q", c.task, inst.Key, i, deref(got), want, ok, o)
				}
			}
			v := strategies.Vote(task, inst, d.Outputs, "")
			if v.Winner != d.Winner || out["output"] != pick(d.Outputs, v.Winner) {
				t.Errorf("%s %s: Python chose chain %d, strategies.Vote %d (%+v)", c.task, inst.Key, d.Winner, v.Winner, v.Counts)
			}
		}
	}
	t.Logf("%d chains, %d vote keys differ from bench's", chains, disagreements)
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func pick(outs []string, i int) string {
	if i < 0 {
		return ""
	}
	return outs[i]
}

// The Python ToT BFS asks the native harness's prompts (its first request
// is the native tot's first, byte for byte), answers with an Answer line
// the task can read, and stays within BFS's call bound.
func TestToTBFSOnGame24(t *testing.T) {
	needPython(t)
	e := startSim(t)
	task, insts := instances(t, "game24", 900, 904)
	space := task.(tasks.ThoughtSpace)
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	solved := 0
	for _, inst := range insts {
		e.reset()
		out, err, stderr := runProgram(t, e.URL, "examples/tot_bfs.py", programItem("game24", inst, map[string]any{"detail": true}))
		if err != nil {
			t.Fatalf("%s: %v: %s", inst.Key, err, stderr)
		}
		output, _ := out["output"].(string)
		if _, ok := game24.LastAnswerLine(output); !ok {
			t.Errorf("%s: output %q has no Answer line", inst.Key, output)
		}
		if task.Score(inst, output).Correct {
			solved++
		}
		reqs := e.requests()
		native := nativeRequests(t, "tot", nil, task, inst)
		first := reqs[0].Body["messages"].([]any)[0].(map[string]any)["content"]
		if first != native[0].Messages[0].Content {
			t.Errorf("%s: first prompt %q, native tot's %q", inst.Key, first, native[0].Messages[0].Content)
		}
		// Every prompt it sent is the native thought space's propose or
		// value prompt of a state it reached.
		states, _ := out["states"].([]any)
		allowed := map[string]bool{}
		for _, s := range append([]any{""}, states...) {
			st, _ := s.(string)
			if p, err := space.ProposePrompt(lib, inst, st); err == nil {
				allowed[p] = true
			}
			if p, ok, err := space.ValuePrompt(lib, inst, st); err == nil && ok {
				allowed[p] = true
			}
		}
		continuations := 0
		for i, r := range reqs {
			p, _ := r.Body["messages"].([]any)[0].(map[string]any)["content"].(string)
			if !allowed[p] {
				t.Errorf("%s: request %d's prompt is no native prompt of a reached state: %q", inst.Key, i, p)
			}
			if strings.Contains(p, "Input: "+inst.Input+"\nSteps:\n") {
				continuations++
			}
		}
		if len(states) == 0 || continuations == 0 {
			t.Errorf("%s: %d states, %d final-step prompts: the check saw too little", inst.Key, len(states), continuations)
		}
		// Four steps; at most b=5 proposals a step after the first, and a
		// value call per candidate: bounded far below an unbounded loop.
		if len(reqs) < 5 || len(reqs) > 4*(5+5*64) {
			t.Errorf("%s: %d requests", inst.Key, len(reqs))
		}
		t.Logf("%s: %d calls (native tot: %d), correct %v", inst.Key, len(reqs), len(native), task.Score(inst, output).Correct)
	}
	t.Logf("tot_bfs.py solved %d of %d on the simulator", solved, len(insts))
}

// The ten-line example answers in the task's shape.
func TestMinimalExample(t *testing.T) {
	needPython(t)
	e := startSim(t)
	task, insts := instances(t, "gsm8k", 0, 2)
	for _, inst := range insts {
		out, err, stderr := runProgram(t, e.URL, "examples/minimal.py", programItem("gsm8k", inst, nil))
		if err != nil {
			t.Fatalf("%v: %s", err, stderr)
		}
		if _, ok := task.AnswerKey(inst, out["output"].(string), "answer"); !ok {
			t.Errorf("%s: output %q", inst.Key, out["output"])
		}
		if rs := e.requests(); len(rs) == 0 || rs[len(rs)-1].Body["n"] != float64(5) {
			t.Errorf("requests %+v", rs)
		}
	}
}

// reference_wrapper.py runs a reference's solve unchanged: the stand-in
// reference in testdata/fakeref calls the 0.x module API behind backoff and
// the 1.x client, through the openai stand-in (always, and when the real
// package is missing), and its printing goes to stderr, not the answer.
func TestReferenceWrapper(t *testing.T) {
	needPython(t)
	e := startSim(t)
	prompts, _ := filepath.Abs("../prompts")
	_, insts := instances(t, "game24", 900, 901)
	for _, shim := range []string{"always", "auto"} {
		e.reset()
		item := programItem("game24", insts[0], map[string]any{"checkout": "testdata/fakeref", "n_generate_sample": "2", "shim": shim})
		out, err, stderr := runProgram(t, e.URL, "examples/reference_wrapper.py", item, "BENCH_PROMPTS="+prompts)
		if err != nil {
			t.Fatalf("shim=%s: %v: %s", shim, err, stderr)
		}
		if _, ok := game24.LastAnswerLine(out["output"].(string)); !ok {
			t.Errorf("shim=%s: output %q", shim, out["output"])
		}
		if !strings.Contains(stderr, "stand-in solving "+insts[0].Input) {
			t.Errorf("shim=%s: the reference's print is not on stderr: %q", shim, stderr)
		}
		reqs := e.requests()
		if len(reqs) != 3 {
			t.Fatalf("shim=%s: %d requests, want the 0.x call, the 1.x client's and the 1.x module's", shim, len(reqs))
		}
		b0, b1, b2 := reqs[0].Body, reqs[1].Body, reqs[2].Body
		if b0["n"] != float64(2) || b0["temperature"] != 0.7 || b0["model"] != "sim" || b1["n"] != float64(1) || b1["model"] != "sim" ||
			b2["n"] != float64(1) || b2["model"] != "sim" {
			t.Errorf("shim=%s: bodies %v / %v / %v", shim, b0, b1, b2)
		}
		if _, sent := b0["stop"]; sent {
			t.Errorf("shim=%s: stop=None was sent: %v", shim, b0)
		}
		for i, r := range reqs {
			if r.Header.Get("Authorization") != "Bearer test-token" {
				t.Errorf("shim=%s: request %d key %q", shim, i, r.Header.Get("Authorization"))
			}
		}
	}
}

// Failures are one clear line and a non-zero exit: an endpoint error names
// the status and body, input that is not an item is refused, a template
// action render cannot reproduce is refused rather than rendered wrong.
func TestProgramFailures(t *testing.T) {
	needPython(t)
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"budget spent"}}`, http.StatusTooManyRequests)
	}))
	defer bad.Close()
	_, insts := instances(t, "game24", 900, 901)
	_, err, stderr := runProgram(t, bad.URL+"/v1", "examples/cotsc.py", programItem("game24", insts[0], nil))
	if err == nil || !strings.Contains(stderr, "HTTP 429") || !strings.Contains(stderr, "budget spent") {
		t.Errorf("endpoint error: %v, stderr %q", err, stderr)
	}

	// Hostile answers: not JSON, no choices, choices without text, an
	// enormous propose answer. Each is one line and exit 1, or an empty
	// choice and a bounded search.
	for _, c := range []struct {
		body, script, want string
	}{
		{"<html>oops</html>", "examples/cotsc.py", "response is not JSON"},
		{`{"choices": "x"}`, "examples/cotsc.py", "response has no choices"},
		{`{"choices": [null, {"message": {"content": null}}, {"message": {"content": [{"type": "text", "text": "Answer: 1"}]}}]}`, "examples/cotsc.py", ""},
		{`{"choices": [{"message": {"content": "` + manyLines(500) + `"}}]}`, "examples/tot_bfs.py", ""},
	} {
		var calls int
		var mu sync.Mutex
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			calls++
			mu.Unlock()
			io.WriteString(w, c.body)
		}))
		out, err, stderr := runProgram(t, srv.URL+"/v1", c.script, programItem("game24", insts[0], nil))
		srv.Close()
		switch {
		case c.want != "" && (err == nil || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0):
			t.Errorf("%.40s: %v, stderr %q", c.body, err, stderr)
		case c.want == "" && err != nil:
			t.Errorf("%.40s: %v, stderr %q", c.body, err, stderr)
		case c.want == "" && c.script == "examples/cotsc.py" && out["output"] != "Answer: 1":
			t.Errorf("%.40s: output %q", c.body, out["output"])
		// Every propose answer is the same 500 lines: with at most 64 taken,
		// at most 64 distinct value prompts, so 4 steps of 5 proposals and
		// 64 value calls.
		case c.script == "examples/tot_bfs.py" && calls > 4*5+64:
			t.Errorf("enormous proposals: %d calls", calls)
		}
	}

	cmd := exec.Command(python, "examples/tot_bfs.py")
	cmd.Env = []string{"PYTHONDONTWRITEBYTECODE=1", "OPENAI_BASE_URL=http://127.0.0.1:1/v1"}
	cmd.Stdin = strings.NewReader("not json")
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "not one JSON object") {
		t.Errorf("garbage input: %v, %q", err, msg)
	}

	cmd = exec.Command(python, "-c", `import reasonbench as rb
print(rb.render("a {{.Input}} b", {"input": "x"}))
rb.render("{{printf \"%q\" .Input}}", {"input": "x"})`)
	cmd.Env = []string{"PYTHONDONTWRITEBYTECODE=1"}
	msg, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "a x b\n") || !strings.Contains(string(msg), "more than reasonbench.render supports") {
		t.Errorf("render: %v, %q", err, msg)
	}
}

// cotsc.py's vote keys on hand-made outputs equal the tasks' own: the
// forms an answer number takes (thousands, decimals, fractions, signs,
// units, "####", a label alone on its line, Markdown) and game24's lines.
// Known differences (documented in cotsc.py): exponents, digits of other
// scripts and Finish[...] actions are not read by the Python key.
func TestVoteKeysTable(t *testing.T) {
	needPython(t)
	cases := []struct {
		task, key string
		outputs   []string
	}{
		{"gsm8k", "numeric", []string{
			"So 3 + 4 = 7.\nAnswer: 7", "Answer: $1,234.50", "Answer: 1,23", "#### 72", "x\n#### 1,000\nAnswer: 5",
			"The answer is 3/4.", "Answer: -5", "Answer: 3-4", "Answer:\n42", "**Answer:** 12 kg", "no number here",
			"Answer: 2.50", "Answer: 0.5 of them", "We get 18.\nthe answer is 18 apples\n", "Answer: −3", "12/0 and 5",
			"Answer: 1,234,567", "Answer: 10%", "answer: 4 boxes.", "Answer: 7/2", "- Answer: 9", "Answer: 12,3456",
			"Answer: 1234,567", "Answer: 3.", "It is 5.\nAnswer: x-2", "Answer: 1,000.25 dollars",
		}},
		{"hotpotqa", "answer", []string{
			"Action: Finish[Paris]", "Finish[Blic [newspaper]] see [1]", `Answer: "The Beatles".`, "**Answer:** the Eiffel Tower",
			"Answer:\nLondon", "Paris", "Thought: long\nno answer here\n", "finish[]\nAnswer: x", "refinish[x]\nAnswer: y",
			"Finish[\nNew York\n]", "Finish[Rome", "Answer: An Apple a day!", "answer : no", "- Answer: “Lagos.”", "Answer: ...",
			"Finish[x [y] z]", "Finish[Milan]\nAnswer: Rome", "Answer: Rome\nAction: Finish[Milan]",
		}},
		{"game24", "line", []string{
			"Answer: (6 - 4) * (4 + 8) = 24", "steps\n  answer:   4 *  6 = 24  ", "no answer", "ANSWER: 1+2\nAnswer: 3*8 = 24\nmore",
		}},
	}
	for _, c := range cases {
		spec, _ := bench.LookupTask(c.task)
		task := spec.New()
		insts, _ := task.Instances()
		in, _ := json.Marshal(c.outputs)
		cmd := exec.Command(python, "-c", `import json, sys
sys.path.insert(0, "examples")
import cotsc
print(json.dumps([cotsc.vote_key(o, sys.argv[2]) for o in json.loads(sys.argv[1])]))`, string(in), c.key)
		cmd.Env = []string{"PYTHONDONTWRITEBYTECODE=1"}
		raw, err := cmd.CombinedOutput()
		var got []*string
		if err != nil || json.Unmarshal(raw, &got) != nil || len(got) != len(c.outputs) {
			t.Fatalf("%s: %v %s", c.task, err, raw)
		}
		for i, o := range c.outputs {
			want, ok := task.AnswerKey(insts[0], o, task.VoteKeys()[0])
			if (got[i] == nil) == ok || (ok && *got[i] != want) {
				t.Errorf("%s %q: Python key %v, bench's %q (%v)", c.task, o, deref(got[i]), want, ok)
			}
		}
	}
}

// Given the seed the native cotsc's call is sent with, the Python CoT-SC
// reproduces the native run exactly through HTTP: every item's chosen
// output byte for byte, so the same accuracy. (Under bench a program sends
// no seed: the endpoint seeds each call from its identity.) Eight items a
// task, not fifteen (issue 34: 19 s under -race on busy cores): each item
// is its own check, and the vote over more chains is
// TestCoTSCVotesAsBench's.
func TestCoTSCReproducesNativeCoTSC(t *testing.T) {
	needPython(t)
	e := startSim(t)
	for _, c := range []struct {
		task     string
		from, to int
	}{{"game24", 900, 908}, {"gsm8k", 100, 108}} {
		task, insts := instances(t, c.task, c.from, c.to)
		native, program := 0.0, 0.0
		for _, inst := range insts {
			res, reqs := nativeSolve(t, "cotsc", map[string]any{"k": 10}, task, inst, bench.ItemSeed(1, inst.Index))
			native += res.Accuracy
			out, err, stderr := runProgram(t, e.URL, "examples/cotsc.py", programItem(c.task, inst, map[string]any{"k": 10, "seed": reqs[0].Seed}))
			if err != nil {
				t.Fatalf("%v: %s", err, stderr)
			}
			if out["output"] != res.Output {
				t.Errorf("%s %s: program chose %q, native cotsc %q", c.task, inst.Key, out["output"], res.Output)
			}
			if task.Score(inst, out["output"].(string)).Correct {
				program++
			}
		}
		n := float64(len(insts))
		t.Logf("%s %d:%d, k=10, seeded alike: native cotsc accuracy %.2f, cotsc.py %.2f", c.task, c.from, c.to, native/n, program/n)
	}
}

// The cost of one item's process: /usr/bin/python3 starting, importing
// reasonbench, reading the item and printing an answer (echo), and the
// ten-line example with its one call (n=5) to the simulator on loopback.
func BenchmarkProgramProcess(b *testing.B) {
	if _, err := os.Stat(python); err != nil {
		b.Skip(err)
	}
	e := startSim(b)
	_, insts := instances(b, "game24", 900, 901)
	item, _ := json.Marshal(programItem("game24", insts[0], nil))
	echo := filepath.Join(b.TempDir(), "echo.py")
	abs, _ := filepath.Abs(".")
	os.WriteFile(echo, []byte("import sys\nsys.path.insert(0, "+strconv.Quote(abs)+")\nimport reasonbench as rb\nrb.run(lambda item: item[\"input\"])\n"), 0o644)
	for _, script := range []string{echo, "examples/minimal.py"} {
		b.Run(filepath.Base(script), func(b *testing.B) {
			for range b.N {
				cmd := exec.Command(python, script)
				cmd.Env = []string{"PYTHONDONTWRITEBYTECODE=1", "OPENAI_BASE_URL=" + e.URL, "BENCH_MODEL=sim"}
				cmd.Stdin = bytes.NewReader(item)
				if out, err := cmd.Output(); err != nil || !bytes.Contains(out, []byte(`"output"`)) {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}

// manyLines is n distinct step lines, JSON-escaped.
func manyLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d + 1 = %d (left: %d 7 9)\\n", i, i+1, i+1)
	}
	return b.String()
}

// reasonbench.render is Go's text/template on every bundled template it
// accepts, byte for byte, with and without a context; the question
// templates the examples need are among those it accepts, and what it
// refuses it refuses with an error, never a different prompt.
func TestRenderIsTextTemplate(t *testing.T) {
	needPython(t)
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	type data struct{ Input, Context string }
	cases := []data{
		{Input: "4 5 6 10"},
		{Input: "Who wrote  {{x}}?\n", Context: "Passage one.\n\nPassage two, with {braces} and %s."},
	}
	texts := map[string]string{}
	for _, name := range lib.Names() {
		texts[name], _ = lib.Text(name)
	}
	// Forms no bundled template uses yet: right trims, else, nesting.
	synthetic := map[string]string{
		"synthetic/rtrim": "a {{.Input -}}\n\t \n b {{- \n.Context}}",
		"synthetic/else":  "x{{if .Context -}}\n  yes {{.Context}}{{- else -}}\n no {{- end}}\r\n.",
		"synthetic/nest":  "{{if .Input}}[{{if .Context}}{{.Context}}{{else}}-{{end}}]{{end}}",
	}
	render := func(name string, c data) (string, error) {
		src, ok := synthetic[name]
		if !ok {
			return lib.Render(name, c)
		}
		var b strings.Builder
		err := template.Must(template.New(name).Parse(src)).Execute(&b, c)
		return b.String(), err
	}
	names := lib.Names()
	for name, src := range synthetic {
		texts[name] = src
		names = append(names, name)
	}
	in, _ := json.Marshal(map[string]any{"templates": texts, "cases": cases})
	cmd := exec.Command(python, "-c", `import json, sys
import reasonbench as rb
d = json.load(sys.stdin)
out = {}
for name, text in d["templates"].items():
    got = []
    for c in d["cases"]:
        try:
            got.append(rb.render(text, {"input": c["Input"], "context": c["Context"]}))
        except ValueError as e:
            got.append(None)
    out[name] = got
print(json.dumps(out))`)
	cmd.Env = []string{"PYTHONDONTWRITEBYTECODE=1"}
	cmd.Stdin = bytes.NewReader(in)
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	var got map[string][]*string
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	accepted := map[string]bool{}
	for _, name := range names {
		for i, c := range cases {
			want, goErr := render(name, c)
			py := got[name][i]
			switch {
			case py == nil:
			case goErr != nil:
				t.Errorf("%s: Go refuses (%v), Python rendered %q", name, goErr, *py)
			case *py != want:
				t.Errorf("%s case %d: Python rendered\n%q\nGo\n%q", name, i, *py, want)
			default:
				accepted[name] = true
			}
		}
	}
	for _, name := range []string{"game24/cot", "game24/propose", "game24/value", "gsm8k/cot", "qa/cot", "hotpotqa/cot",
		"synthetic/rtrim", "synthetic/else", "synthetic/nest"} {
		if !accepted[name] {
			t.Errorf("render does not reproduce %s", name)
		}
	}
	t.Logf("render reproduces %d of %d bundled templates (and %d synthetic)", len(accepted)-len(synthetic), len(lib.Names()), len(synthetic))
}

// The README's ten-line example as the README runs it, end to end: `bench
// run --strategy program --set cmd='/usr/bin/python3
// python/examples/minimal.py'` from the checkout's root, over the
// simulator. Every item is stored with its one call (purpose program, the
// native cot prompt, n=5, temperature 0.7, a content identity, five
// chains) and as its output the most common Answer line of the chains
// that call recorded, scored by the task.
func TestMinimalExampleAsBenchRun(t *testing.T) {
	needPython(t)
	if testing.Short() {
		t.Skip("builds and runs bench")
	}
	bin := benchtest.Binary(t, t.TempDir())
	db := filepath.Join(t.TempDir(), "m.db")
	cmd := exec.Command(bin, "run", "--db", db, "--task", "game24", "--range", "900:903", "--json",
		"--strategy", "program", "--set", "cmd="+python+" python/examples/minimal.py")
	cmd.Dir = ".." // the checkout's root, where the README's commands run
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("bench run: %v: %s", err, stderr.String())
	}
	var sum bench.Summary
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if sum.N != 3 || sum.Status != "done" || sum.Calls != 3 || sum.Metrics["failed"] != 0 {
		t.Fatalf("summary %+v", sum)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	items, err := st.Items(ctx, sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	task, insts := instances(t, "game24", 900, 903)
	if len(items) != len(insts) {
		t.Fatalf("%d items stored", len(items))
	}
	correct := 0
	for i, it := range items {
		inst := insts[i]
		calls, err := st.Calls(ctx, sum.RunID, it.Index)
		if err != nil {
			t.Fatal(err)
		}
		if it.Index != inst.Index || it.Calls != 1 || len(calls) != 1 || calls[0].Purpose != "program" || calls[0].Error != "" {
			t.Fatalf("item %d: %+v with calls %+v", it.Index, it, calls)
		}
		var req llm.Request
		var resp llm.Response
		if err := json.Unmarshal(calls[0].Request, &req); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(calls[0].Response, &resp); err != nil {
			t.Fatal(err)
		}
		native := nativeRequests(t, "cotsc", map[string]any{"k": 5}, task, inst)[0]
		if len(req.Messages) != 1 || req.Messages[0].Content != native.Messages[0].Content || req.Samples() != 5 ||
			req.Temperature == nil || *req.Temperature != 0.7 || !strings.HasPrefix(req.Call, "p/") || !strings.HasSuffix(req.Call, "#1") {
			t.Errorf("item %d: recorded request %+v", it.Index, req)
		}
		chains := resp.Texts()
		if len(chains) != 5 {
			t.Fatalf("item %d: %d chains recorded", it.Index, len(chains))
		}
		if want := mostCommonAnswerLine(chains); it.Output != want {
			t.Errorf("item %d: stored output %q, the most common Answer line of its recorded chains %q", it.Index, it.Output, want)
		}
		if it.Correct != task.Score(inst, it.Output).Correct {
			t.Errorf("item %d: stored correct=%v, the task scores %q otherwise", it.Index, it.Correct, it.Output)
		}
		if it.Correct {
			correct++
		}
	}
	if float64(correct)/3 != sum.Accuracy {
		t.Errorf("accuracy %v, %d of 3 items correct", sum.Accuracy, correct)
	}
	t.Logf("minimal.py under bench run: accuracy %.3f, %d calls, %d+%d tokens", sum.Accuracy, sum.Calls, sum.PromptTokens, sum.CompletionTokens)
}

// mostCommonAnswerLine is minimal.py's choice, written again in Go: the
// chains whose last line starts with "Answer:" (any case) vote with that
// line trimmed, ties to the line seen first; with no such line, the first
// chain.
func mostCommonAnswerLine(chains []string) string {
	counts := map[string]int{}
	var order []string
	for _, c := range chains {
		lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(c, "\r\n", "\n"), "\n"), "\n")
		last := lines[len(lines)-1]
		if c == "" || !strings.HasPrefix(strings.ToLower(last), "answer:") {
			continue
		}
		a := strings.TrimSpace(last)
		if counts[a] == 0 {
			order = append(order, a)
		}
		counts[a]++
	}
	best := ""
	for _, a := range order {
		if best == "" || counts[a] > counts[best] {
			best = a
		}
	}
	if best == "" {
		return chains[0]
	}
	return best
}
