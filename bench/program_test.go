package bench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/stats"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/param"
)

// programRange is the Game of 24 range the program tests run: enough items
// for a paired comparison to mean something, few enough that thirty
// Python processes start in about a second.
const programRange = "900:930"

// python is the interpreter the README's command names (CI installs it:
// scripts/install-sandbox.sh).
const python = "/usr/bin/python3"

// programCoTSC is the README's CoT-SC program, python/examples/cotsc.py,
// run as the README runs it (--set cmd='/usr/bin/python3 <path>'), and
// the native cotsc with the same k and temperature. The path is relative
// to the test's working directory (bench runs cmd there): cmd is part of
// the run's configuration, hence of its draws, so an absolute path would
// make the figures depend on where the checkout is.
func programCoTSC(t *testing.T) (prog, native Config) {
	t.Helper()
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s absent (%v): scripts/install-sandbox.sh installs it", python, err)
	}
	const script = "../python/examples/cotsc.py"
	if _, err := os.Stat(script); err != nil {
		t.Fatal(err)
	}
	prog = DefaultConfig()
	prog.Task, prog.Strategy, prog.Range = "game24", "program", programRange
	prog.Params = map[string]any{"cmd": python + " " + script, "timeout": "60s", "k": "5", "temperature": "0.7"}
	native = DefaultConfig()
	native.Task, native.Strategy, native.Range = "game24", "cotsc", programRange
	native.Params = map[string]any{"k": 5, "temperature": 0.7}
	return prog, native
}

// simCounter is the simulator counting the calls that reach it.
func simCounter(t *testing.T, cfg Config) (llm.Sampler, *atomic.Int64) {
	t.Helper()
	m, err := NewSim(cfg.Sim)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	return llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		n.Add(1)
		return m.Sample(ctx, req)
	}), &n
}

// The README's CoT-SC program matches native cotsc: the same request per
// item (prompt, n, temperature, and the call named "cotsc" as the native
// one is: the recorded requests are equal but for the seed and purpose),
// so exactly the same calls, requests and prompt tokens; and the
// program's answer is the one cotsc's vote picks among the program's own
// k chains. The chains themselves are other draws (a run's draws are
// seeded by its strategy and parameters, not only by the call's name), so
// accuracy and completion tokens agree only within the simulator's noise:
// the paired 95% interval of the accuracy difference must contain 0.
func TestProgramCoTSCMatchesNative(t *testing.T) {
	ctx := context.Background()
	progCfg, nativeCfg := programCoTSC(t)
	st := tempStore(t)
	prog, err := (&Engine{Store: st}).Run(ctx, progCfg)
	if err != nil {
		t.Fatal(err)
	}
	native, err := (&Engine{Store: st}).Run(ctx, nativeCfg)
	if err != nil {
		t.Fatal(err)
	}
	if prog.N != 30 || prog.Calls != native.Calls || prog.Requests != native.Requests || prog.PromptTokens != native.PromptTokens {
		t.Errorf("program %+v\nnative %+v", prog, native)
	}
	if prog.Metrics["failed"] != 0 {
		t.Errorf("%v of the items failed", prog.Metrics["failed"])
	}
	pi, _ := st.Items(ctx, prog.RunID)
	ni, _ := st.Items(ctx, native.RunID)
	task, err := OpenTask("game24", "", "")
	if err != nil {
		t.Fatal(err)
	}
	all, _ := task.Instances()
	var a, b []float64
	for i := range pi {
		pc, _ := st.Calls(ctx, prog.RunID, pi[i].Index)
		nc, _ := st.Calls(ctx, native.RunID, ni[i].Index)
		if len(pc) != 1 || len(nc) != 1 {
			t.Fatalf("item %d: %d and %d calls", pi[i].Index, len(pc), len(nc))
		}
		pr, nr := sentRequest(t, pc[0].Request), sentRequest(t, nc[0].Request)
		if pr.Call != "cotsc" || pc[0].Purpose != "program" {
			t.Errorf("item %d: program call %q (%s)", pi[i].Index, pr.Call, pc[0].Purpose)
		}
		pr.Seed, pr.Purpose, nr.Seed, nr.Purpose = 0, "", 0, ""
		if !reflect.DeepEqual(pr, nr) {
			t.Errorf("item %d: program sent\n%+v\nnative sent\n%+v", pi[i].Index, pr, nr)
		}
		var resp llm.Response
		if err := json.Unmarshal(pc[0].Response, &resp); err != nil {
			t.Fatal(err)
		}
		vote := strategies.Vote(task, all[pi[i].Index], resp.Texts(), "")
		want := ""
		if vote.Winner >= 0 {
			want = resp.Texts()[vote.Winner]
		}
		if pi[i].Output != want {
			t.Errorf("item %d: the program answered %q, cotsc's vote over its chains %q", pi[i].Index, pi[i].Output, want)
		}
		a, b = append(a, pi[i].Score), append(b, ni[i].Score)
	}
	cmp := stats.ComparePaired(a, b, true, 0.95)
	if cmp.Low > 0 || cmp.High < 0 {
		t.Errorf("program accuracy %.3f vs native %.3f: paired 95%% interval [%.3f, %.3f] excludes 0", prog.Accuracy, native.Accuracy, cmp.Low, cmp.High)
	}
	if r := float64(prog.CompletionTokens) / float64(native.CompletionTokens); math.Abs(r-1) > 0.25 {
		t.Errorf("completion tokens %d vs %d", prog.CompletionTokens, native.CompletionTokens)
	}
	t.Logf("program: accuracy %.3f, %d calls, %d+%d tokens, %.2fs; native: accuracy %.3f, %d calls, %d+%d tokens; paired 95%% interval of the difference [%.3f, %.3f]",
		prog.Accuracy, prog.Calls, prog.PromptTokens, prog.CompletionTokens, prog.WallSeconds,
		native.Accuracy, native.Calls, native.PromptTokens, native.CompletionTokens, cmp.Low, cmp.High)
}

// sentRequest decodes a recorded request.
func sentRequest(t *testing.T, b json.RawMessage) llm.Request {
	t.Helper()
	var r llm.Request
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// A program run is a function of its configuration: rerun into the same
// database it makes no model call and stores the same outputs and calls;
// at concurrency 1 and 8 it stores the same items.
func TestProgramRerunAndConcurrency(t *testing.T) {
	ctx := context.Background()
	cfg, _ := programCoTSC(t)
	cfg.Range = "900:908"
	st := tempStore(t)
	sim, calls := simCounter(t, cfg)
	cfg.Concurrency = 8
	first, err := (&Engine{Store: st, Backend: sim}).Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 8 {
		t.Fatalf("first run: %d model calls, want 8", calls.Load())
	}
	cfg.Concurrency = 1
	calls.Store(0)
	again, err := (&Engine{Store: st, Backend: sim}).Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 0 {
		t.Errorf("rerun into the same database: %d model calls, want 0", calls.Load())
	}
	sameProgramItems(t, st, first.RunID, again.RunID)
	other := tempStore(t)
	alone, err := (&Engine{Store: other}).Run(ctx, cfg) // concurrency 1, fresh database
	if err != nil {
		t.Fatal(err)
	}
	if alone.Accuracy != first.Accuracy || alone.CompletionTokens != first.CompletionTokens {
		t.Errorf("concurrency 1 %+v\nconcurrency 8 %+v", alone, first)
	}
	a, _ := st.Items(ctx, first.RunID)
	b, _ := other.Items(ctx, alone.RunID)
	for i := range a {
		if a[i].Output != b[i].Output || string(a[i].Detail) != string(b[i].Detail) {
			t.Errorf("item %d differs at concurrency 8 and 1", a[i].Index)
		}
	}
}

// sameProgramItems checks two runs stored the same outputs, details and
// calls (identities and responses).
func sameProgramItems(t *testing.T, st *store.Store, r1, r2 int64) {
	t.Helper()
	ctx := context.Background()
	a, _ := st.Items(ctx, r1)
	b, _ := st.Items(ctx, r2)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d and %d items", len(a), len(b))
	}
	for i := range a {
		if a[i].Output != b[i].Output || string(a[i].Detail) != string(b[i].Detail) || a[i].Calls != b[i].Calls {
			t.Errorf("item %d: %q vs %q", a[i].Index, a[i].Output, b[i].Output)
		}
		ca, _ := st.Calls(ctx, r1, a[i].Index)
		cb, _ := st.Calls(ctx, r2, b[i].Index)
		if len(ca) != len(cb) {
			t.Fatalf("item %d: %d and %d calls", a[i].Index, len(ca), len(cb))
		}
		for j := range ca {
			if string(ca[j].Request) != string(cb[j].Request) || string(ca[j].Response) != string(cb[j].Response) {
				t.Errorf("item %d call %d differs", a[i].Index, j)
			}
		}
	}
}

// A program that fails in any way is that item's recorded failure: the
// run finishes, every item is stored with output "", incorrect, a one-line
// reason and the stderr tail.
func TestProgramFailuresAreItems(t *testing.T) {
	ctx := context.Background()
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Range = "game24", "program", "900:903"
	cfg.Params = map[string]any{"cmd": `echo "item $BENCH_ITEM_INDEX broke" >&2; exit 7`}
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Status != store.StatusDone || sum.N != 3 || sum.Accuracy != 0 || sum.Metrics["failed"] != 1 {
		t.Fatalf("%+v", sum)
	}
	items, _ := st.Items(ctx, sum.RunID)
	for _, it := range items {
		var d strategies.ProgramDetail
		if err := json.Unmarshal(it.Detail, &d); err != nil {
			t.Fatal(err)
		}
		if it.Output != "" || it.Correct || d.Failure != "exit status 7" || d.StderrTail != fmt.Sprintf("item %d broke\n", it.Index) {
			t.Errorf("item %d: output %q, detail %+v", it.Index, it.Output, d)
		}
	}
}

// The registry's probe program answers every item with its three calls
// (two identical requests, two draws; one named call), so the identity
// and determinism tests that run it test calls, not failures.
func TestProgramProbeAnswers(t *testing.T) {
	spec, err := strategies.Lookup("program")
	if err != nil {
		t.Fatal(err)
	}
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(context.Background(), probeConfig(spec))
	if err != nil {
		t.Fatal(err)
	}
	if sum.N != 4 || sum.Metrics["failed"] != 0 || sum.Calls != 12 {
		t.Fatalf("%+v", sum)
	}
	calls, _ := st.Calls(context.Background(), sum.RunID, 900)
	var ids []string
	for _, c := range calls {
		ids = append(ids, sentRequest(t, c.Request).Call)
	}
	if len(ids) != 3 || ids[2] != "check" || ids[0][len(ids[0])-2:] != "#1" || ids[1] != ids[0][:len(ids[0])-2]+"#2" {
		t.Errorf("identities %q", ids)
	}
}

// An experiment file passes a program's own parameters (any name, lists
// expanded like any strategy's) and still refuses unknown names for
// strategies that declare theirs.
func TestProgramInExperimentFile(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "e.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	exp, err := LoadExperiment(write("task: game24\nrange: \"900:902\"\nstrategies:\n  - program: {cmd: \"python3 m.py\", k: [3, 5], mode: fast}\n"), DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Runs) != 2 {
		t.Fatalf("%d runs", len(exp.Runs))
	}
	for i, k := range []float64{3, 5} {
		p := exp.Runs[i].Params
		v, err := param.Resolve(mustSpec(t, "program").Params, p)
		if err != nil {
			t.Fatal(err)
		}
		if v["k"] != k || v["mode"] != "fast" || v["cmd"] != "python3 m.py" {
			t.Errorf("run %d: %v", i, v)
		}
	}
	if _, err := LoadExperiment(write("task: game24\nstrategies:\n  - cotsc: {k: 3, mode: fast}\n"), DefaultConfig(), 0); err == nil || !strings.Contains(err.Error(), `unknown parameter "mode"`) {
		t.Errorf("cotsc with an unknown parameter: %v", err)
	}
}

func mustSpec(t *testing.T, name string) strategies.Spec {
	t.Helper()
	s, err := strategies.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// programCompletions is a program for the identity tests: three identical
// completions requests sent at once (numbered #1..#3 in arrival order, so
// which thread gets which draw varies, not the set of draws) and one chat
// request with the same text (another API, another identity); it answers
// with the sorted completions, so its output is the same whatever the
// order.
const programCompletions = `python3 -c '
import json, os, sys, threading, urllib.request as u
item = json.loads(sys.stdin.readline())
def post(path, body):
    h = {"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"}
    r = u.Request(os.environ["OPENAI_BASE_URL"] + path, json.dumps(body).encode(), h)
    return json.load(u.urlopen(r))["choices"]
p = "Use numbers and basic arithmetic operations (+ - * /) to obtain 24.\nInput: " + item["input"] + "\nAnswer:"
outs = []
def one():
    outs.append(post("/completions", {"model": "m", "prompt": p, "temperature": item["params"]["temperature"]})[0]["text"])
ts = [threading.Thread(target=one) for _ in range(3)]
[t.start() for t in ts]
[t.join() for t in ts]
chat = post("/chat/completions", {"model": "m", "messages": [{"role": "user", "content": p}], "temperature": item["params"]["temperature"]})
print(json.dumps({"output": "\n".join(sorted(outs) + [chat[0]["message"]["content"]])}))
'`

// --max-cost stops a program run as it stops any run: the call the
// ceiling refuses is the run's stop, not the item's failure, so no item is
// stored as failed, and a resume under a higher ceiling finishes the run.
func TestProgramRunStopsAtMaxCost(t *testing.T) {
	cfg, _ := programCoTSC(t)
	cfg.Range = "900:910"
	srv, _ := simServer(t, cfg, llm.ServerOptions{})
	cfg.Model, cfg.BaseURL, cfg.Concurrency = "gpt-4", srv.URL+"/v1", 1
	cfg.MaxCost = 0.05 // about three items at gpt-4's prices
	st := tempStore(t)
	e := &Engine{Store: st}
	sum, err := e.Run(context.Background(), cfg)
	if !errors.Is(err, llm.ErrMaxCost) || sum.Status != store.StatusStopped {
		t.Fatalf("status %s, err %v; want the ceiling to stop the run", sum.Status, err)
	}
	if sum.N == 0 || sum.N >= 10 || sum.Metrics["failed"] != 0 {
		t.Fatalf("stopped with %d items, failed %v", sum.N, sum.Metrics["failed"])
	}
	none := 0.0
	done, err := e.ResumeWith(context.Background(), sum.RunID, ResumeOptions{MaxCost: &none})
	if err != nil {
		t.Fatal(err)
	}
	if done.N != 10 || done.Status != store.StatusDone || done.Metrics["failed"] != 0 || done.Calls != 10 {
		t.Errorf("resumed: %+v", done)
	}
	t.Logf("stopped after %d items at $%.3f; resumed to %d items, $%.3f", sum.N, sum.Cost, done.N, done.Cost)
}

// A program run records the files its command runs (strategies.Sourced)
// with their SHA-256 in its spec; an edited script is another
// configuration (bench run -f starts a new run) with the same draws; and a
// resume after the script changed is refused before anything runs: it
// would mix two programs in one run.
func TestProgramRecordsItsSources(t *testing.T) {
	cfg, _ := programCoTSC(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "cotsc.py")
	src, err := os.ReadFile("../python/examples/cotsc.py")
	if err != nil {
		t.Fatal(err)
	}
	// The example imports reasonbench from its parent folder.
	if err := os.WriteFile(script, append([]byte("import sys; sys.path.insert(0, "+fmt.Sprintf("%q", mustAbs(t, "../python"))+")\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Range = "900:906"
	cfg.Params["cmd"] = python + " " + script
	srv, _ := simServer(t, cfg, llm.ServerOptions{})
	cfg.Model, cfg.BaseURL, cfg.Concurrency = "gpt-4", srv.URL+"/v1", 1
	cfg.MaxCost = 0.03
	st := tempStore(t)
	e := &Engine{Store: st}
	sum, err := e.Run(context.Background(), cfg)
	if sum.Status != store.StatusStopped {
		t.Fatalf("status %s, err %v; want the ceiling to stop the run", sum.Status, err)
	}
	run, err := st.GetRun(context.Background(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var spec recordedSpec
	if err := json.Unmarshal(run.Spec, &spec); err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256(append([]byte("import sys; sys.path.insert(0, "+fmt.Sprintf("%q", mustAbs(t, "../python"))+")\n"), src...))
	if got := spec.Sources[script]; got != hex.EncodeToString(want[:]) || len(spec.Sources) != 1 {
		t.Fatalf("recorded sources %v, want %s → %x", spec.Sources, script, want)
	}
	p1, err := load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, append([]byte("# edited\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	p2, err := load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p1.configKey() == p2.configKey() || p1.scope != p2.scope {
		t.Errorf("an edited script: config keys %s, %s (want different), draw scopes %d, %d (want equal)", p1.configKey(), p2.configKey(), p1.scope, p2.scope)
	}
	none := 0.0
	_, err = e.ResumeWith(context.Background(), sum.RunID, ResumeOptions{MaxCost: &none})
	var ce ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "changed since the run started") {
		t.Fatalf("resume after the script changed: %v; want a ConfigError naming the change", err)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
