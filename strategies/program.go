package strategies

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/reasonbench/reasonbench/endpoint"
	"github.com/reasonbench/reasonbench/secrets"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
)

// program is a strategy written as a program in any language: for each
// item bench starts cmd with the item as one JSON line on stdin and
// OPENAI_BASE_URL pointing at a recording endpoint of this item (package
// endpoint), whose calls go through the item's sampler stack; the program
// prints its answer and exits. A program's failure (exit status, timeout,
// no answer, an enormous output) is the item's recorded failure, never the
// run's.
type program struct {
	cmd     string
	timeout time.Duration
	params  map[string]any // passed to the program: every --set value but cmd and timeout
	token   string         // the run's key for its endpoints
}

var programParams = []param.Param{
	{Name: "cmd", Kind: param.String, Default: "", Show: true, Doc: "the command run for each item, by /bin/sh -c in bench's working directory (required)"},
	{Name: "timeout", Kind: param.String, Default: "10m", Doc: "wall-time limit of one item's program (seconds, 60, or a Go duration: 90s, 10m); on expiry its process group is killed and the item is a recorded failure"},
	{Name: param.OtherParams, Kind: param.String, Default: "", Doc: "any other NAME=VALUE is passed to the program in the item's params (a JSON number, boolean or null as that value, otherwise a string)"},
}

func newProgram(v param.Values) (Strategy, error) {
	cmd := strings.TrimSpace(v.String("cmd"))
	timeout, err := programTimeout(v.String("timeout"))
	if err != nil {
		return nil, err
	}
	token, err := endpoint.NewToken()
	if err != nil {
		return nil, err
	}
	params := map[string]any{}
	for k, x := range v {
		if k != "cmd" && k != "timeout" {
			params[k] = x
		}
	}
	return &program{cmd: cmd, timeout: timeout, params: params, token: token}, nil
}

// programTimeout reads the timeout parameter: a Go duration (60s, 10m) or
// a bare number of seconds (60, 1.5), positive.
func programTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	if err != nil {
		if f, ferr := strconv.ParseFloat(s, 64); ferr == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && f < 1e9 {
			d, err = time.Duration(f*float64(time.Second)), nil
		}
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("parameter timeout=%s: want a positive duration, a number of seconds (60) or a Go duration (90s, 10m)", s)
	}
	return d, nil
}

// CheckTask refuses a run without a command before it is stored (the
// defaults build a strategy, as every registry line's must).
func (s *program) CheckTask(t tasks.Task) error {
	if s.cmd == "" {
		return errors.New("parameter cmd: required (--set cmd='python3 my_method.py')")
	}
	if e, ok := t.(tasks.Environment); ok { // program_episode.go
		_, err := s.episodeConfig(e)
		return err
	}
	return nil
}

// ProgramItem is the JSON object a program reads from stdin: never the
// gold answer.
type ProgramItem struct {
	Index   int            `json:"index"`
	ID      string         `json:"id"`
	Input   string         `json:"input"`
	Context string         `json:"context,omitempty"`
	Task    string         `json:"task"`
	Params  map[string]any `json:"params"`
}

// Program limits: what bench keeps of a program's output.
const (
	programStdoutMax  = 8 << 20 // more is the item's failure
	programStderrTail = 2048
	// programGrace is how long bench reads a program's pipes after its
	// process group is killed (a child that left the group may hold them)
	// before closing them.
	programGrace = 2 * time.Second
)

// ProgramDetail is stored with each item of a program run.
type ProgramDetail struct {
	// Failure is the one-line reason the item has no answer; "" when the
	// program answered.
	Failure  string `json:"failure,omitempty"`
	ExitCode int    `json:"exit_code"`
	Signal   string `json:"signal,omitempty"`
	// Requests reached the item's endpoint; Refused of them were refused
	// (wrong key, unknown path, malformed body), the first few Reasons.
	Requests int      `json:"requests"`
	Refused  int      `json:"refused,omitempty"`
	Reasons  []string `json:"refusals,omitempty"`
	// StderrTail is the last 2 KB of the program's standard error.
	StderrTail string `json:"stderr_tail,omitempty"`
}

func (s *program) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	if e, ok := env.Task.(tasks.Environment); ok {
		return s.solveEpisodes(ctx, env, e, inst) // program_episode.go
	}
	item := ProgramItem{Index: inst.Index, ID: inst.Key, Input: inst.Input, Task: env.Task.Name(), Params: s.params}
	data, err := promptData(env.Task, inst, "")
	if err != nil {
		return Result{}, err
	}
	item.Context = data.Context
	stdin, err := json.Marshal(item)
	if err != nil {
		return Result{}, fmt.Errorf("program: encode item: %w", err)
	}
	log := &endpoint.Log{}
	srv := endpoint.ItemServer(env.Sampler, "program", log)
	l, err := endpoint.Listen("127.0.0.1:0", s.token, &endpoint.Handler{Token: s.token, Log: log,
		Item: func(int) (http.Handler, error) { return srv, nil }})
	if err != nil {
		return Result{}, err
	}
	model := env.Model
	if model == "" {
		model = ProgramModel
	}
	run, runErr := s.run(ctx, append(stdin, '\n'), l.URL, model, inst.Index)
	_ = l.Close() // calls still in flight (a killed program's) are cancelled
	if ctx.Err() != nil {
		return Result{}, ctx.Err() // interrupted: the item is redone on resume
	}
	if err := log.Err(); err != nil {
		// The stack failed, not the program (the budget, the model, the
		// store): the run's error, as it is for a built-in strategy.
		return Result{}, err
	}
	if runErr != nil {
		return Result{}, runErr
	}
	d := run.detail
	d.Requests = log.Requests()
	d.Refused, d.Reasons = log.Refused()
	out, failure := run.answer()
	if failure != "" {
		d.Failure = failure
		if d.Refused > 0 {
			d.Failure += fmt.Sprintf("; the endpoint refused %d request(s), first: %s", d.Refused, d.Reasons[0])
		}
		// Scored as any strategy's empty output is (cotsc without a
		// vote), so the task's metrics (em, f1) count the item, and
		// incorrect whatever the task makes of "".
		sc := env.Task.Score(inst, "")
		sc.Correct, sc.Reason = false, d.Failure
		return Result{Score: sc, Metrics: mergeMetrics(map[string]float64{"failed": 1}, sc.Metrics), Detail: d}, nil
	}
	res := Result{Output: out, Detail: d}
	res.Score = env.Task.Score(inst, out)
	res.Accuracy = boolFloat(res.Score.Correct)
	res.Metrics = mergeMetrics(map[string]float64{"failed": 0}, res.Score.Metrics)
	return res, nil
}

// programRun is what one execution of the program left.
type programRun struct {
	stdout   []byte
	overflow bool
	exitErr  error // the process's failure, nil on status 0
	timedOut time.Duration
	detail   ProgramDetail
}

// run executes the program once: stdin written, stdout kept up to its
// limit, the tail of stderr, the whole process group killed on timeout,
// on cancellation and after it exits (so no child it left survives).
func (s *program) run(ctx context.Context, stdin []byte, baseURL, model string, index int, extraEnv ...string) (programRun, error) {
	tctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, "/bin/sh", "-c", s.cmd)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd) }
	// The item's JSON is copied to stdin by exec; a child that keeps
	// stdin open without reading it must not hold Wait.
	cmd.WaitDelay = programGrace
	cmd.Env = append(programEnv(os.Environ()),
		"OPENAI_BASE_URL="+baseURL, "OPENAI_API_BASE="+baseURL, "OPENAI_API_KEY="+s.token,
		"BENCH_ITEM_INDEX="+strconv.Itoa(index), "BENCH_MODEL="+model)
	cmd.Env = append(cmd.Env, extraEnv...)
	cmd.Stdin = bytes.NewReader(stdin)
	stdout := &capped{max: programStdoutMax}
	stderr := &tail{max: programStderrTail}
	// Pipes of our own, so that Wait returns when the program exits
	// (not when every child holding its output has), and the group is
	// killed at once.
	outR, outW, err := os.Pipe()
	if err != nil {
		return programRun{}, fmt.Errorf("program: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return programRun{}, fmt.Errorf("program: %w", err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return programRun{}, fmt.Errorf("program: start /bin/sh: %w", err)
	}
	drained := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(stdout, outR); drained <- struct{}{} }()
	go func() { _, _ = io.Copy(stderr, errR); drained <- struct{}{} }()
	err = cmd.Wait()
	_ = killGroup(cmd)
	// A child that left the group (setsid) may still hold the pipes:
	// read what it wrote for a grace period at most.
	grace := time.NewTimer(programGrace)
	for range 2 {
		select {
		case <-drained:
		case <-grace.C:
			outR.Close()
			errR.Close()
			<-drained
		}
	}
	grace.Stop()
	outR.Close()
	errR.Close()
	r := programRun{stdout: stdout.buf.Bytes(), overflow: stdout.over, exitErr: err,
		detail: ProgramDetail{ExitCode: cmd.ProcessState.ExitCode(), StderrTail: stderr.String()}}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.detail.Signal = ws.Signal().String()
	}
	if errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		r.timedOut = s.timeout
	}
	return r, nil
}

// ProgramModel is the model name a program is told to send (BENCH_MODEL)
// when the engine gives none (Env.Model); the endpoint answers with the
// run's model whatever a request names.
const ProgramModel = "bench"

// answer is the program's answer, or why it has none.
func (r programRun) answer() (string, string) {
	switch {
	case r.timedOut > 0:
		return "", fmt.Sprintf("timed out after %s (process group killed)", r.timedOut)
	case r.exitErr != nil && r.detail.Signal != "":
		return "", "killed by signal " + r.detail.Signal
	case r.exitErr != nil && r.detail.ExitCode > 0:
		return "", fmt.Sprintf("exit status %d", r.detail.ExitCode)
	case r.exitErr != nil:
		return "", "program failed: " + oneLine(r.exitErr.Error())
	case r.overflow:
		return "", fmt.Sprintf("standard output over %d bytes", programStdoutMax)
	}
	return ParseProgramOutput(r.stdout)
}

// ParseProgramOutput reads a program's answer from its standard output:
// the last non-empty line if it is a JSON object with "output" (a string,
// or any JSON value, re-encoded as text), else all of stdout trimmed. The
// second result says why there is no answer ("" when there is one).
func ParseProgramOutput(stdout []byte) (string, string) {
	if !utf8.Valid(stdout) {
		return "", "no answer: standard output is not UTF-8 text"
	}
	text := strings.TrimSpace(string(stdout))
	if text == "" {
		return "", "no answer: standard output is empty"
	}
	last := text
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		last = strings.TrimSpace(text[i+1:])
	}
	var obj map[string]json.RawMessage
	if strings.HasPrefix(last, "{") && json.Unmarshal([]byte(last), &obj) == nil {
		if raw, ok := obj["output"]; ok {
			if string(raw) == "null" {
				return "", "no answer: \"output\" is null"
			}
			var s string
			if json.Unmarshal(raw, &s) == nil {
				return s, ""
			}
			var v any
			_ = json.Unmarshal(raw, &v) // valid: the object parsed
			b, _ := json.Marshal(v)
			return string(b), ""
		}
	}
	return text, ""
}

// programEnv is the inherited environment without the run's secrets
// (every key value bench knows and anything named like a key or token,
// secrets.Environ: the program has no business with them, it gets the
// endpoint's own key) and without the variables bench sets for it.
func programEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range secrets.Process.Environ(environ) {
		name, _, _ := strings.Cut(kv, "=")
		up := strings.ToUpper(name)
		if up == "OPENAI_BASE_URL" || up == "OPENAI_API_BASE" || up == EnvURLVar || strings.HasPrefix(up, "BENCH_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// killGroup kills the process group the program leads.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return os.ErrProcessDone
	}
	return err
}

// capped keeps up to max bytes and notes more.
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room < len(p) {
		c.over = true
		c.buf.Write(p[:max(room, 0)])
		return len(p), nil // keep draining, so the program is not blocked
	}
	c.buf.Write(p)
	return len(p), nil
}

// tail keeps the last max bytes written.
type tail struct {
	b   []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	b := t.b
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// oneLine flattens s to one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// programProbe is the program of the strategy's Probe: Python's standard
// library only, two identical requests (two draws, p/…#1 and #2) and one
// named call, the answer printed as {"output": …}.
const programProbe = `python3 -c '
import json, os, sys, urllib.request as u
item = json.loads(sys.stdin.readline())
def ask(prompt, n, name=None):
    h = {"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"}
    if name: h["X-Bench-Call"] = name
    body = {"model": os.environ["BENCH_MODEL"], "messages": [{"role": "user", "content": prompt}], "n": n, "temperature": item["params"]["temperature"]}
    r = u.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", json.dumps(body).encode(), h)
    return [c["message"]["content"] for c in json.load(u.urlopen(r))["choices"]]
p = "Use numbers and basic arithmetic operations (+ - * /) to obtain 24.\nInput: " + item["input"] + "\nAnswer:"
outs = ask(p, 2) + ask(p, 2) + ask(p, 1, "check")
print(json.dumps({"output": outs[-1]}))
'`
