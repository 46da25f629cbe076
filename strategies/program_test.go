package strategies

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/secrets"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/game24"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
)

// lockedScript is a scripted model safe for a program's concurrent calls.
type lockedScript struct {
	mu   sync.Mutex
	s    scripted
	fail error
}

func (l *lockedScript) Sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fail != nil {
		return llm.Response{}, l.fail
	}
	return l.s.Sample(ctx, req)
}

func newProgramFor(t *testing.T, cmd string, set map[string]any) Strategy {
	t.Helper()
	raw := map[string]any{"cmd": cmd}
	for k, v := range set {
		raw[k] = v
	}
	v, err := param.Resolve(programParams, raw)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newProgram(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func postCmd(t *testing.T, args string) string {
	t.Helper()
	p, err := filepath.Abs("testdata/program/post.py")
	if err != nil {
		t.Fatal(err)
	}
	return "python3 " + p + " " + args
}

// Every way a program can fail is the item's recorded failure with a
// one-line reason (and the endpoint's refusals), never an error; every
// way it can answer is scored.
func TestProgramOutcomes(t *testing.T) {
	const right = "Answer: (4 + 8) * (6 - 4) = 24"
	cases := []struct {
		name, cmd string
		set       map[string]any
		output    string // wanted output when the program answers
		failure   string // wanted start of the failure reason
		refusal   string // wanted in the first refusal
		stderr    string // wanted in the stderr tail
		call      string // wanted start of the one call's identity
	}{
		{name: "answers", cmd: postCmd(t, "ok"), output: right, call: "p/"},
		{name: "streams", cmd: postCmd(t, "stream"), output: right},
		{name: "plain text", cmd: `printf 'thinking\n\n%s\n\n' "Answer: 1 + 2 = 3"`, output: "thinking\n\nAnswer: 1 + 2 = 3"},
		{name: "json non-string output", cmd: `echo '{"output": {"a": [1, 2]}}'`, output: `{"a":[1,2]}`},
		{name: "json without output is text", cmd: `echo '{"answer": 3}'`, output: `{"answer": 3}`},
		{name: "garbage text is a wrong answer", cmd: `printf '%%%%\001 ]]'`, output: "%%\x01 ]]"},
		{name: "crash", cmd: `python3 -c 'raise RuntimeError("boom")'`, failure: "exit status 1", stderr: "RuntimeError: boom"},
		{name: "killed", cmd: `kill -9 $$`, failure: "killed by signal killed"},
		{name: "no output", cmd: `true`, failure: "no answer: standard output is empty"},
		{name: "null output", cmd: `echo '{"output": null}'`, failure: `no answer: "output" is null`},
		{name: "binary garbage", cmd: `printf '\377\376\000'`, failure: "no answer: standard output is not UTF-8"},
		{name: "enormous", cmd: `head -c 9000000 /dev/zero | tr '\0' a`, failure: "standard output over"},
		{name: "hangs", cmd: `sleep 30`, set: map[string]any{"timeout": "300ms"}, failure: "timed out after 300ms"},
		{name: "malformed request", cmd: postCmd(t, "badjson"), failure: "exit status 1; the endpoint refused 1 request(s), first: 400 POST /<token>/v1/chat/completions: malformed JSON body", stderr: "HTTP 400"},
		{name: "wrong key", cmd: postCmd(t, "badkey"), failure: "exit status 1", refusal: "401 POST /<token>/v1/chat/completions: wrong API key"},
		{name: "no key", cmd: postCmd(t, "nokey"), failure: "exit status 1", refusal: "401"},
		{name: "no token in path", cmd: postCmd(t, "notoken"), failure: "exit status 1", refusal: "404 POST /v1/chat/completions: unknown path"},
		{name: "unknown path", cmd: postCmd(t, "badpath"), failure: "exit status 1", refusal: "404 POST /<token>/v1/embeddings: unknown path"},
		{name: "named call", cmd: postCmd(t, "ok") + " X-Bench-Call=a/b", output: right, call: "a/b"},
	}
	inst := puzzle(t, "4 4 6 8")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			model := &lockedScript{s: scripted{outputs: []string{right}}}
			res, err := newProgramFor(t, c.cmd, c.set).Solve(context.Background(), testEnv(t, model), inst)
			if err != nil {
				t.Fatalf("a program's failure is the item's, not an error: %v", err)
			}
			d := res.Detail.(ProgramDetail)
			if c.failure == "" {
				if d.Failure != "" || res.Output != c.output {
					t.Fatalf("output %q, failure %q; want output %q", res.Output, d.Failure, c.output)
				}
				if res.Score.Correct != (c.output == right) || res.Metrics["failed"] != 0 {
					t.Errorf("scored %+v, metrics %v", res.Score, res.Metrics)
				}
				if c.call != "" && (len(model.s.reqs) != 1 || !strings.HasPrefix(model.s.reqs[0].Call, c.call) || model.s.reqs[0].Purpose != "program") {
					t.Errorf("calls %+v, want one %s…", model.s.reqs, c.call)
				}
				return
			}
			if !strings.HasPrefix(d.Failure, c.failure) || res.Output != "" || res.Score.Correct || res.Metrics["failed"] != 1 {
				t.Fatalf("failure %q (output %q, %+v); want %q…", d.Failure, res.Output, res.Score, c.failure)
			}
			if strings.Contains(d.Failure, "\n") || res.Score.Reason != d.Failure {
				t.Errorf("reason %q is not the one-line failure", res.Score.Reason)
			}
			if c.refusal != "" && (len(d.Reasons) == 0 || !strings.Contains(d.Reasons[0], c.refusal) || !strings.Contains(d.Failure, c.refusal)) {
				t.Errorf("refusals %q, failure %q; want %q", d.Reasons, d.Failure, c.refusal)
			}
			if !strings.Contains(d.StderrTail, c.stderr) {
				t.Errorf("stderr tail %q; want %q", d.StderrTail, c.stderr)
			}
			if len(model.s.reqs) != 0 {
				t.Errorf("%d calls reached the model", len(model.s.reqs))
			}
		})
	}
}

// A program that times out or is cancelled dies with every process it
// started: the whole process group is killed.
func TestProgramKillsItsProcessGroup(t *testing.T) {
	for _, how := range []string{"timeout", "cancel", "exit"} {
		t.Run(how, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			cmd := `sleep 30 & echo $! > ` + pidFile + `; wait`
			if how == "exit" { // the child outlives its parent's exit
				cmd = `sleep 30 & echo $! > ` + pidFile + `; echo '{"output": "x"}'`
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			timeout := "300ms"
			if how == "cancel" {
				timeout = "1m"
				go func() {
					for !fileHasPID(pidFile) {
						time.Sleep(5 * time.Millisecond)
					}
					cancel()
				}()
			}
			start := time.Now()
			_, err := newProgramFor(t, cmd, map[string]any{"timeout": timeout}).Solve(ctx, testEnv(t, &lockedScript{}), puzzle(t, "4 4 6 8"))
			if how == "cancel" && !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled: %v, want context.Canceled (the item is left for resume)", err)
			}
			if how != "cancel" && err != nil {
				t.Fatal(err)
			}
			t.Logf("solved in %v", time.Since(start))
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			b, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			deadline := time.Now().Add(5 * time.Second)
			for alive(pid) {
				if time.Now().After(deadline) {
					t.Fatalf("the program's child %d survives", pid)
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// alive says whether process pid runs (a zombie, killed but not yet
// reaped by whoever adopted it, does not).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

func fileHasPID(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.HasSuffix(string(b), "\n")
}

// The program reads the item (never its gold) and the endpoint's address
// and key, not bench's secrets.
func TestProgramSeesItemAndEndpointOnly(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-real")
	t.Setenv("MY_SERVICE_TOKEN", "secret")
	t.Setenv("MY_SECRET", "s1")
	t.Setenv("DB_PASSWORD", "s2")
	t.Setenv("AWS_ACCESS_KEY_ID", "s3")
	t.Setenv("AWS_PROFILE", "s4") // AWS_* whatever its name
	const canary = "sk-canary-program-91b2"
	secrets.Process.Add(canary) // a key bench knows, under an innocent name
	t.Setenv("MY_INNOCENT", "x"+canary)
	cmd := `python3 -c '
import json, os, sys
item = json.loads(sys.stdin.readline())
env = {k: v for k, v in os.environ.items() if k.startswith(("OPENAI", "BENCH", "MY_", "DB_", "AWS_"))}
print(json.dumps({"output": {"item": item, "env": env}}))'`
	env := testEnv(t, &lockedScript{})
	env.Model = "gpt-4o-2024-08-06"
	res, err := newProgramFor(t, cmd, map[string]any{"k": "5", "note": "hello", "temperature": 0.5}).Solve(context.Background(), env, puzzle(t, "4 4 6 8"))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Item map[string]any    `json:"item"`
		Env  map[string]string `json:"env"`
	}
	if err := json.Unmarshal([]byte(res.Output), &got); err != nil {
		t.Fatalf("%v: %s", err, res.Output)
	}
	wantItem := map[string]any{"index": 0.0, "id": "4 4 6 8", "input": "4 4 6 8", "task": "game24",
		"params": map[string]any{"k": 5.0, "note": "hello", "temperature": 0.5}}
	if b1, b2 := mustJSON(got.Item), mustJSON(wantItem); b1 != b2 {
		t.Errorf("stdin item %s, want %s", b1, b2)
	}
	base := got.Env["OPENAI_BASE_URL"]
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/v1") || got.Env["OPENAI_API_BASE"] != base {
		t.Errorf("base URLs %q, %q", base, got.Env["OPENAI_API_BASE"])
	}
	key := got.Env["OPENAI_API_KEY"]
	if key == "sk-real" || len(key) != 32 || !strings.Contains(base, "/"+key+"/") {
		t.Errorf("key %q with base %q", key, base)
	}
	for _, name := range []string{"MY_SERVICE_TOKEN", "MY_SECRET", "DB_PASSWORD", "AWS_ACCESS_KEY_ID", "AWS_PROFILE", "MY_INNOCENT"} {
		if _, ok := got.Env[name]; ok {
			t.Errorf("%s reached the program", name)
		}
	}
	if got.Env["BENCH_ITEM_INDEX"] != "0" || got.Env["BENCH_MODEL"] != env.Model {
		t.Errorf("env %v", got.Env)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A failure of the sampler stack (the budget, the model) while the
// program waits is the run's error, as for a built-in strategy, whatever
// the program does with its 500.
func TestProgramStackFailureIsTheRunsError(t *testing.T) {
	model := &lockedScript{fail: llm.ErrMaxCost}
	_, err := newProgramFor(t, postCmd(t, "ok"), nil).Solve(context.Background(), testEnv(t, model), puzzle(t, "4 4 6 8"))
	if !errors.Is(err, llm.ErrMaxCost) {
		t.Fatalf("got %v, want the budget's error", err)
	}
}

func TestParseProgramOutput(t *testing.T) {
	for _, c := range []struct{ in, out, why string }{
		{"", "", "no answer: standard output is empty"},
		{" \n\n", "", "no answer: standard output is empty"},
		{"42", "42", ""},
		{"log line\n{\"output\": \"7\"}\n", "7", ""},
		{"{\"output\": 7}", "7", ""},
		{"{\"output\": \"first\"}\n{\"output\": \"last\"}\n", "last", ""}, // the last line is the answer
		{"{\"output\": \"first\"}\n{\"output\": \"middle\"}\n{\"output\": \"last\"}", "last", ""},
		{"{\"output\": \"first\"}\nprogress 3/3\n", "{\"output\": \"first\"}\nprogress 3/3", ""},
		{"{\"output\": \"a\"}\ntrailing words", "{\"output\": \"a\"}\ntrailing words", ""},
		{"{\"output\": null}", "", `no answer: "output" is null`},
		{"{\"output\": [1, \"x\"]}", `[1,"x"]`, ""},
		{"{not json}", "{not json}", ""},
		{"\xff", "", "no answer: standard output is not UTF-8 text"},
	} {
		out, why := ParseProgramOutput([]byte(c.in))
		if out != c.out || why != c.why {
			t.Errorf("%q: got %q, %q; want %q, %q", c.in, out, why, c.out, c.why)
		}
	}
}

// BenchmarkProgramItem is the fixed cost of one item of a program run
// beyond its calls: the item's endpoint started and closed, the program
// started by /bin/sh, its answer read; for a shell command and for Python
// (the interpreter's start dominates).
func BenchmarkProgramItem(b *testing.B) {
	lib, err := prompts.Bundled()
	if err != nil {
		b.Fatal(err)
	}
	env := Env{Sampler: &lockedScript{}, Task: game24.NewTask(), Prompts: lib}
	inst := tasks.Instance{Index: 0, Key: "4 4 6 8", Input: "4 4 6 8"}
	for _, c := range []struct{ name, cmd string }{
		{"sh", `echo '{"output": "x"}'`},
		{"python3", `python3 -c 'import json, sys; json.loads(sys.stdin.readline()); print(json.dumps({"output": "x"}))'`},
	} {
		b.Run(c.name, func(b *testing.B) {
			v, _ := param.Resolve(programParams, map[string]any{"cmd": c.cmd})
			s, err := newProgram(v)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				res, err := s.Solve(context.Background(), env, inst)
				if err != nil || res.Output != "x" {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}

// FuzzParseProgramOutput: any standard output gives an answer or a reason,
// never both and never neither; an answer is UTF-8 and, unless it came
// from a last line's "output", is the whole output trimmed.
func FuzzParseProgramOutput(f *testing.F) {
	for _, s := range []string{"", "42", "x\n{\"output\": \"7\"}", "{\"output\": null}", "{\"output\": [1]}", "\xff", "{\"output\":"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, stdout []byte) {
		out, why := ParseProgramOutput(stdout)
		if why == "" && strings.TrimSpace(string(stdout)) == "" {
			t.Fatalf("%q: no answer and no reason", stdout)
		}
		if why != "" {
			if out != "" || strings.Contains(why, "\n") {
				t.Fatalf("%q: answer %q with reason %q", stdout, out, why)
			}
			return
		}
		if !utf8.ValidString(out) {
			t.Fatalf("%q: answer not UTF-8", stdout)
		}
		text := strings.TrimSpace(string(stdout))
		last := text[strings.LastIndexByte(text, '\n')+1:]
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(strings.TrimSpace(last)), &obj) != nil || obj["output"] == nil {
			if out != text {
				t.Fatalf("%q: answer %q, want all of stdout", stdout, out)
			}
		}
	})
}

// A run without a command is refused before it starts.
func TestProgramNeedsCmd(t *testing.T) {
	v, _ := param.Resolve(programParams, nil)
	s, err := newProgram(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.(TaskChecker).CheckTask(game24.NewTask()); err == nil || !strings.Contains(err.Error(), "cmd: required") {
		t.Errorf("no cmd: %v", err)
	}
	if _, err := param.Resolve(programParams, map[string]any{"timeout": "soon"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		set  any
		want time.Duration // 0: refused
	}{
		{"soon", 0}, {"0", 0}, {"0s", 0}, {"-5", 0}, {"-1m", 0}, {"NaN", 0}, {"1e300", 0},
		{"60", time.Minute}, {"1.5", 1500 * time.Millisecond}, {"90s", 90 * time.Second}, {"10m", 10 * time.Minute},
	} {
		v, err := param.Resolve(programParams, map[string]any{"cmd": "true", "timeout": c.set})
		if err != nil {
			t.Fatalf("timeout=%v: %v", c.set, err)
		}
		s, err := newProgram(v)
		switch {
		case c.want == 0 && err == nil:
			t.Errorf("timeout=%v accepted (%s)", c.set, s.(*program).timeout)
		case c.want == 0 && !strings.Contains(err.Error(), "want a positive duration"):
			t.Errorf("timeout=%v: %v", c.set, err)
		case c.want != 0 && err != nil:
			t.Errorf("timeout=%v: %v", c.set, err)
		case c.want != 0 && s.(*program).timeout != c.want:
			t.Errorf("timeout=%v: %s, want %s", c.set, s.(*program).timeout, c.want)
		}
	}
}

// A task with reading material passes it as the item's context (the
// task's default mode, as a built-in strategy renders it); the item has
// no other field, so no gold answer.
func TestProgramItemContext(t *testing.T) {
	task := hotpotqa.NewTask()
	insts, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	lib, _ := prompts.Bundled()
	env := Env{Sampler: &lockedScript{}, Task: task, Prompts: lib}
	res, err := newProgramFor(t, `python3 -c 'import sys, json; print(json.dumps({"output": sys.stdin.readline()}))'`, nil).Solve(context.Background(), env, insts[0])
	if err != nil {
		t.Fatal(err)
	}
	var item map[string]any
	if err := json.Unmarshal([]byte(res.Output), &item); err != nil {
		t.Fatalf("%v: %q", err, res.Output)
	}
	want, err := promptData(task, insts[0], "")
	if err != nil {
		t.Fatal(err)
	}
	if item["context"] != want.Context || want.Context == "" || item["input"] != insts[0].Input || len(item) != 6 {
		t.Errorf("item %v", item)
	}
}

// A failed item still counts in the task's own metrics, at the empty
// output's values, so they average over every item.
func TestProgramFailureKeepsTaskMetrics(t *testing.T) {
	task := hotpotqa.NewTask()
	insts, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	lib, _ := prompts.Bundled()
	res, err := newProgramFor(t, `exit 1`, nil).Solve(context.Background(), Env{Sampler: &lockedScript{}, Task: task, Prompts: lib}, insts[0])
	if err != nil {
		t.Fatal(err)
	}
	em, hasEM := res.Metrics["em"]
	f1, hasF1 := res.Metrics["f1"]
	if !hasEM || !hasF1 || em != 0 || f1 != 0 || res.Metrics["failed"] != 1 || res.Score.Correct || res.Score.Reason != "exit status 1" {
		t.Errorf("metrics %v, score %+v", res.Metrics, res.Score)
	}
}
