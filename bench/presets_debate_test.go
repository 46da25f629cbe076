package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
)

// debateEndpoint is one deterministic endpoint for both sides of the
// equivalence test: its answer depends only on the messages (the seed a
// request carries is dropped before it is read), and it records the
// digest of every message list it is sent.
type debateEndpoint struct {
	next    http.Handler
	mu      sync.Mutex
	digests []string
}

// messagesDigest is the SHA-256 of a message list: each role and content
// followed by a NUL byte (testdata/debate/gen_fixture.py computes the same).
func messagesDigest(msgs []llm.Message) string {
	h := sha256.New()
	for _, m := range msgs {
		fmt.Fprintf(h, "%s\x00%s\x00", m.Role, m.Content)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func newDebateEndpoint() *debateEndpoint {
	answer := llm.SamplerFunc(func(_ context.Context, req llm.Request) (llm.Response, error) {
		h := sha256.Sum256([]byte(messagesDigest(req.Messages)))
		n := int(h[1] % 4) // few distinct numbers, so agents agree and disagree
		var text string
		switch h[0] % 5 {
		case 0, 1:
			text = fmt.Sprintf("Adding it up gives %d, so the answer is \\boxed{%d}.", n+2, n)
		case 2:
			text = fmt.Sprintf("It comes to %d.%d in all.", n, n+5)
		case 3:
			text = "I cannot work this one out." // no number: the paper rule counts it right
		default:
			text = fmt.Sprintf("Steps: 1,2 then {$%d,000}.", n)
		}
		return llm.Response{Choices: []llm.Choice{{Content: text}}}, nil
	})
	return &debateEndpoint{next: llm.NewServer(answer, llm.ServerOptions{})}
}

func (e *debateEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req map[string]json.RawMessage
	if json.Unmarshal(body, &req) == nil {
		var msgs []llm.Message
		if json.Unmarshal(req["messages"], &msgs) == nil {
			e.mu.Lock()
			e.digests = append(e.digests, messagesDigest(msgs))
			e.mu.Unlock()
		}
		delete(req, "seed")
		body, _ = json.Marshal(req)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	e.next.ServeHTTP(w, r)
}

// debateFixture is what the reference stand-in sent and scored
// (testdata/debate/reference.json, made by gen_fixture.py).
type debateFixture struct {
	Questions int      `json:"questions"`
	Requests  []string `json:"requests"` // message-list digests, in the order sent
	Verdicts  []int    `json:"verdicts"` // eval per question, in order
	Accuracy  float64  `json:"accuracy"`
	Python    string   `json:"python,omitempty"`
}

// The preset with prompts imported from a checkout sends the same
// requests the checkout's gen_gsm.py sends to the same deterministic
// endpoint, and scores their answers as eval_gsm.py does. The checkout is
// testdata/debate/standin, our stand-in of the reference's script (no text
// of theirs); its recorded requests are testdata/debate/reference.json,
// and with python3 on the machine the stand-in is also run live.
func TestDebateReferencePresetSendsTheReferenceRequests(t *testing.T) {
	t.Parallel()
	if os.Getenv("DEBATE_FIXTURE") == "write" {
		out, _ := json.MarshalIndent(runDebateStandin(t, 100), "", " ")
		if err := os.WriteFile("testdata/debate/reference.json", append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var fix debateFixture
	b, err := os.ReadFile("testdata/debate/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &fix); err != nil {
		t.Fatal(err)
	}
	if fix.Questions != 100 || len(fix.Requests) != 600 || len(fix.Verdicts) != 100 {
		t.Fatalf("fixture: %d questions, %d requests", fix.Questions, len(fix.Requests))
	}

	texts, err := prompts.ImportPack("debate", "testdata/debate/standin")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := prompts.WriteFolder(dir, texts); err != nil {
		t.Fatal(err)
	}
	ep := newDebateEndpoint()
	srv := httptest.NewServer(ep)
	defer srv.Close()
	cfg, err := ApplyPreset(DefaultConfig(), "debate-gsm8k/reference")
	if err != nil {
		t.Fatal(err)
	}
	cfg.BaseURL, cfg.Model, cfg.PromptDir, cfg.Concurrency = srv.URL+"/v1", "stand-in", dir, 16
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if sum.N != 100 || sum.Calls != 600 || sum.Rule != "gsm8k/debate-paper" {
		t.Fatalf("%d items, %d calls, rule %s", sum.N, sum.Calls, sum.Rule)
	}
	if !sameMultiset(ep.digests, fix.Requests) {
		t.Errorf("the preset's 600 requests are not the reference's (%d sent; %d in common)", len(ep.digests), common(ep.digests, fix.Requests))
	}
	items, err := st.Items(context.Background(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if want := fix.Verdicts[it.Index] == 1; it.Correct != want {
			t.Errorf("question %d: correct %v, the reference's eval says %v", it.Index, it.Correct, want)
		}
	}
	if sum.Accuracy != fix.Accuracy {
		t.Errorf("accuracy %v, the reference's eval %v", sum.Accuracy, fix.Accuracy)
	}

	// The stand-in itself, live, sends what the fixture recorded.
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Log("no /usr/bin/python3: the stand-in is not run live")
		return
	}
	live := runDebateStandin(t, 100)
	if !slices.Equal(live.Requests, fix.Requests) || !slices.Equal(live.Verdicts, fix.Verdicts) {
		t.Errorf("the stand-in run live differs from testdata/debate/reference.json: regenerate it (DEBATE_FIXTURE=write)")
	}
}

// runDebateStandin runs the stand-in gen_gsm.py on the first n questions
// against a fresh deterministic endpoint (through the openai 0.x shim),
// and the stand-in eval over its output.
func runDebateStandin(t *testing.T, n int) debateFixture {
	t.Helper()
	ep := newDebateEndpoint()
	srv := httptest.NewServer(ep)
	defer srv.Close()
	dir := t.TempDir()
	gen := filepath.Join(dir, "gen.json")
	shim, _ := filepath.Abs("../python/reasonbench_openai_shim")
	data, _ := filepath.Abs("../tasks/gsm8k/data/test.jsonl")
	cmd := exec.Command("/usr/bin/python3", "testdata/debate/standin/gsm/gen_gsm.py", data, fmt.Sprint(n), gen)
	cmd.Env = []string{"PYTHONPATH=" + shim, "OPENAI_API_BASE=" + srv.URL + "/v1", "OPENAI_API_KEY=test", "PATH=/usr/bin:/bin"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("stand-in: %v\n%s", err, out)
	}
	out, err := exec.Command("/usr/bin/python3", "testdata/debate/eval_standin.py", gen).Output()
	if err != nil {
		t.Fatalf("stand-in eval: %v", err)
	}
	fix := debateFixture{Questions: n, Requests: ep.digests}
	if err := json.Unmarshal(out, &fix); err != nil {
		t.Fatalf("stand-in eval: %v: %s", err, out)
	}
	v, _ := exec.Command("/usr/bin/python3", "-c", "import sys; print(sys.version.split()[0], end='')").Output()
	fix.Python = string(v)
	return fix
}

func sameMultiset(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func common(a, b []string) int {
	in := map[string]int{}
	for _, x := range b {
		in[x]++
	}
	n := 0
	for _, x := range a {
		if in[x] > 0 {
			in[x]--
			n++
		}
	}
	return n
}

// With REASONBENCH_DEBATE_SRC naming a checkout of
// composable-models/llm_multiagent_debate, the reference itself is run:
// its gsm/gen_gsm.py unchanged (in bubblewrap, the embedded test split
// mounted at the path it reads, openai 0.x from the shim when missing, a
// stand-in numpy module when numpy is missing: the script imports it and
// uses none of it), and its eval_gsm.py's compute_accuracy over what it
// wrote; the preset with the checkout's imported prompts must send the
// same 600 requests and reach the same accuracy. Nothing of the checkout
// is written into the repository.
func TestDebateReferencePresetAgainstTheReferenceCheckout(t *testing.T) {
	t.Parallel()
	src := os.Getenv("REASONBENCH_DEBATE_SRC")
	if src == "" {
		t.Skip("REASONBENCH_DEBATE_SRC does not name a checkout of composable-models/llm_multiagent_debate")
	}
	src, _ = filepath.Abs(src)
	for _, bin := range []string{"/usr/bin/python3", "/usr/bin/bwrap"} {
		if _, err := os.Stat(bin); err != nil {
			t.Fatalf("%s is needed to run the reference", bin)
		}
	}
	texts, err := prompts.ImportPack("debate", src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := prompts.WriteFolder(filepath.Join(dir, "prompts"), texts); err != nil {
		t.Fatal(err)
	}

	// The reference.
	ref := newDebateEndpoint()
	refSrv := httptest.NewServer(ref)
	defer refSrv.Close()
	run := referenceRunner(t, src, dir, refSrv.URL+"/v1")
	// gen_gsm.py ends in pdb.set_trace(), after writing its output; with no
	// input the debugger quits.
	run(`import bdb, runpy, sys
sys.argv = ["gen_gsm.py"]
try:
    runpy.run_path("/ref/gsm/gen_gsm.py", run_name="__main__")
except bdb.BdbQuit:
    pass`)
	verdicts := run(`import json, sys
sys.path.insert(0, "/ref/gsm")
import eval_gsm
out = []
for question, (contexts, gt) in json.load(open("/out/gsm_3_2.json")).items():
    eval_gsm.pred_solutions = [c[-1]["content"] for c in contexts]  # the global its compute_accuracy reads
    out.append(eval_gsm.compute_accuracy(gt, eval_gsm.pred_solutions))
print(json.dumps(out))`)
	var want []int
	if err := json.Unmarshal(lastLine(verdicts), &want); err != nil || len(want) != 100 {
		t.Fatalf("reference eval: %v: %s", err, verdicts)
	}

	// The preset.
	ours := newDebateEndpoint()
	srv := httptest.NewServer(ours)
	defer srv.Close()
	cfg, err := ApplyPreset(DefaultConfig(), "debate-gsm8k/reference")
	if err != nil {
		t.Fatal(err)
	}
	cfg.BaseURL, cfg.Model, cfg.PromptDir, cfg.Concurrency = srv.URL+"/v1", "gpt-3.5-turbo-0301", filepath.Join(dir, "prompts"), 16
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.digests) != 600 || !sameMultiset(ours.digests, ref.digests) {
		t.Errorf("the preset sent %d requests, the reference %d; %d in common", len(ours.digests), len(ref.digests), common(ours.digests, ref.digests))
	}
	items, err := st.Items(context.Background(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for _, it := range items {
		right += want[it.Index]
		if it.Correct != (want[it.Index] == 1) {
			t.Errorf("question %d: correct %v, eval_gsm.py says %d", it.Index, it.Correct, want[it.Index])
		}
	}
	if acc := float64(right) / 100; sum.Accuracy != acc {
		t.Errorf("accuracy %v, eval_gsm.py's %v", sum.Accuracy, acc)
	}
	t.Logf("the reference and the preset: 600 requests alike; accuracy %.2f under eval_gsm.py's rule", sum.Accuracy)
}

func lastLine(b []byte) []byte {
	b = bytes.TrimSpace(b)
	return b[bytes.LastIndexByte(b, '\n')+1:]
}

// referenceRunner returns a function running a Python script against the
// reference checkout src in bubblewrap: the checkout at /ref, the
// embedded GSM8K test split at the path gen_gsm.py reads, the openai 0.x
// shim, stand-ins for the modules the scripts import and do not need when
// missing (numpy for gen_gsm.py, tqdm), dir/out at /out (the working
// directory), OPENAI_API_BASE the endpoint.
func referenceRunner(t *testing.T, src, dir, endpoint string) func(script string) []byte {
	t.Helper()
	out, stubs := filepath.Join(dir, "out"), filepath.Join(dir, "stubs")
	for _, d := range []string{out, filepath.Join(stubs, "np", "numpy"), filepath.Join(stubs, "tqdm")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(stubs, "np", "numpy", "__init__.py"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stubs, "tqdm", "__init__.py"), []byte("def tqdm(it, *a, **k):\n    return it\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pypath := "/shim"
	if exec.Command("/usr/bin/python3", "-c", "import tqdm").Run() != nil {
		pypath = "/stubs:" + pypath // /stubs/tqdm
	}
	if exec.Command("/usr/bin/python3", "-c", "import numpy").Run() != nil {
		pypath = "/stubs/np:" + pypath
	}
	shim, _ := filepath.Abs("../python/reasonbench_openai_shim")
	data, _ := filepath.Abs("../tasks/gsm8k/data")
	const refData = "/data/vision/billf/scratch/yilundu/llm_iterative_debate/grade-school-math/grade_school_math/data"
	return func(script string) []byte {
		cmd := exec.Command("/usr/bin/bwrap", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
			"--symlink", "usr/bin", "/bin", "--ro-bind", "/etc", "/etc", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
			"--ro-bind", data, refData, "--ro-bind", src, "/ref", "--ro-bind", shim, "/shim", "--ro-bind", stubs, "/stubs",
			"--bind", out, "/out", "--chdir", "/out", "--clearenv", "--setenv", "PYTHONPATH", pypath,
			"--setenv", "OPENAI_API_BASE", endpoint, "--setenv", "OPENAI_API_KEY", "test",
			"/usr/bin/python3", "-c", script)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("reference: %v\n%s", err, b)
		}
		return b
	}
}

// With REASONBENCH_DEBATE_SRC naming a checkout, gen_math.py runs
// unchanged (numpy is needed: its questions are numpy's draws) and the
// arithmetic preset with the imported prompts must send the same 600
// requests, and score each question as the script does (a question where
// no agent's answer parses is dropped from its mean; here it is wrong).
func TestDebateArithmeticPresetAgainstTheReferenceCheckout(t *testing.T) {
	t.Parallel()
	src := os.Getenv("REASONBENCH_DEBATE_SRC")
	if src == "" {
		t.Skip("REASONBENCH_DEBATE_SRC does not name a checkout of composable-models/llm_multiagent_debate")
	}
	if exec.Command("/usr/bin/python3", "-c", "import numpy").Run() != nil {
		t.Fatal("gen_math.py draws its questions with numpy: install python3-numpy")
	}
	src, _ = filepath.Abs(src)
	texts, err := prompts.ImportPack("debate", src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := prompts.WriteFolder(filepath.Join(dir, "prompts"), texts); err != nil {
		t.Fatal(err)
	}
	ref := newDebateEndpoint()
	refSrv := httptest.NewServer(ref)
	defer refSrv.Close()
	run := referenceRunner(t, src, dir, refSrv.URL+"/v1")
	run(`import bdb, runpy, sys
sys.argv = ["gen_math.py"]
try:
    runpy.run_path("/ref/math/gen_math.py", run_name="__main__")
except bdb.BdbQuit:
    pass`)
	// Each question as the script scores it, with its own functions:
	// null where it drops the question.
	verdicts := run(`import json, pickle, sys
sys.path.insert(0, "/ref/math")
import gen_math
out = []
for numbers, (contexts, answer) in pickle.load(open("/out/math_agents2_rounds3.p", "rb")).items():
    parsed = [gen_math.parse_answer(c[-1]["content"].replace(",", ".")) for c in contexts]
    parsed = [p for p in parsed if p is not None]
    out.append(None if not parsed else int(gen_math.most_frequent(parsed) == answer))
print(json.dumps(out))`)
	var want []*int
	if err := json.Unmarshal(lastLine(verdicts), &want); err != nil || len(want) != 100 {
		t.Fatalf("reference scoring: %v: %s", err, verdicts)
	}

	ours := newDebateEndpoint()
	srv := httptest.NewServer(ours)
	defer srv.Close()
	cfg, err := ApplyPreset(DefaultConfig(), "debate-arithmetic/reference")
	if err != nil {
		t.Fatal(err)
	}
	cfg.BaseURL, cfg.Model, cfg.PromptDir, cfg.Concurrency = srv.URL+"/v1", "gpt-3.5-turbo-0301", filepath.Join(dir, "prompts"), 16
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.digests) != 600 || !sameMultiset(ours.digests, ref.digests) {
		t.Errorf("the preset sent %d requests, the reference %d; %d in common", len(ours.digests), len(ref.digests), common(ours.digests, ref.digests))
	}
	items, err := st.Items(context.Background(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	dropped, right := 0, 0
	for _, it := range items {
		w := want[it.Index]
		if w == nil {
			dropped++
		} else if *w == 1 {
			right++
		}
		if it.Correct != (w != nil && *w == 1) {
			t.Errorf("question %d: correct %v, the reference scores %v", it.Index, it.Correct, w)
		}
	}
	t.Logf("the reference and the preset: 600 requests alike; %d right, %d dropped by the reference (wrong here)", right, dropped)
}
