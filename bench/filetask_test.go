package bench

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
)

// qaRows is a small file task: calculations, reading questions with
// titled and untitled passages, and a multiple-choice question.
const qaRows = `{"id": "calc1", "question": "Tom has 3 apples and buys 5 more apples. How many apples does he have in total?", "answer": "8"}
{"id": "calc2", "question": "A pencil costs 3 dollars. How much do 6 pencils cost?", "answer": "18"}
{"id": "calc3", "question": "Sara had 20 dollars and spent 7 dollars. How many dollars are left?", "answer": "13"}
{"id": "read1", "question": "Where did Anna Berg open her shop?", "answer": "Lindau", "context": ["Anna Berg was a clockmaker. She opened her first shop in Lindau in 1902.", "Lindau lies on the river Amper."]}
{"id": "read2", "question": "Which river flows through Lindau?", "answer": ["Amper", "the Amper river"], "context": [{"title": "Lindau", "text": "Lindau is a small town. The river Amper flows through Lindau."}, {"title": "Anna Berg", "text": "Anna Berg was a clockmaker."}]}
{"id": "mc1", "question": "Which colour is the sky on a clear day?", "answer": "B", "choices": ["green", "blue", "red"], "context": "On a clear day the sky looks blue."}
`

// qaCSV is the same data as a CSV file with its own column names, read
// with a spec.
const qaCSV = `key,prompt,gold,passages,options
calc1,Tom has 3 apples and buys 5 more apples. How many apples does he have in total?,8,,
calc2,A pencil costs 3 dollars. How much do 6 pencils cost?,18,,
calc3,Sara had 20 dollars and spent 7 dollars. How many dollars are left?,13,,
read1,Where did Anna Berg open her shop?,Lindau,"Anna Berg was a clockmaker. She opened her first shop in Lindau in 1902.

Lindau lies on the river Amper.",
read2,Which river flows through Lindau?,Amper,"Lindau is a small town. The river Amper flows through Lindau.

Anna Berg was a clockmaker.",
mc1,Which colour is the sky on a clear day?,B,On a clear day the sky looks blue.,green | blue | red
`

const qaSpec = "name: qa-csv\nfields: {question: prompt, answer: gold, context: passages, choices: options, id: key}\nscorer: exact\nnormalize: squad\nsteps: 3\n"

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fileStrategies are the strategies file tasks offer, as the issue lists
// them, with small settings.
var fileStrategies = []struct {
	strategy string
	params   map[string]any
}{
	{"io", map[string]any{"k": 3}},
	{"cot", map[string]any{"k": 3}},
	{"cotsc", map[string]any{"k": 5}},
	{"react", map[string]any{"protocol": "text"}},
	{"react", map[string]any{"protocol": "json"}},
	{"react", map[string]any{"protocol": "tools"}},
	{"react", map[string]any{"protocol": "xml"}},
	{"reflexion", map[string]any{"actor": "cot", "evaluator": "oracle", "trials": 3}},
	{"reflexion", map[string]any{"actor": "react", "evaluator": "self", "trials": 2, "max_steps": 4}},
	{"selfrefine", map[string]any{"iterations": 2}},
	{"tot", map[string]any{"generate": "sample", "evaluate": "vote", "b": 2, "n_generate": 2, "n_evaluate": 2}},
	{"mcts", map[string]any{"generate": "sample", "evaluate": "vote", "iterations": 4, "n_evaluate": 2}},
	{"lats", map[string]any{"iterations": 3, "n_generate": 2, "max_depth": 4}},
}

// TestFileTaskEveryStrategyOverHTTP runs every strategy file tasks offer
// on a small file written here, as JSONL and as CSV with a spec, through
// the simulator served over HTTP (which knows nothing of the file), and
// checks the stored scores, parameters, scorer and dataset digest.
func TestFileTaskEveryStrategyOverHTTP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	jsonl := writeFile(t, dir, "qa.jsonl", qaRows)
	csv := writeFile(t, dir, "qa.csv", qaCSV)
	spec := writeFile(t, dir, "spec.yaml", qaSpec)
	srv, _ := simServer(t, DefaultConfig(), llm.ServerOptions{})
	st := tempStore(t)
	eng := &Engine{Store: st}
	correct := 0
	for _, file := range []struct{ path, spec, rule, name string }{
		{jsonl, "", "file/em_f1", "qa.jsonl"},
		{csv, spec, "file/exact(squad)", "qa-csv"},
	} {
		data, _ := os.ReadFile(file.path)
		digest := tasks.SHA256(data)
		for _, fs := range fileStrategies {
			cfg := DefaultConfig()
			cfg.Task, cfg.TaskSpec, cfg.Strategy, cfg.Params = FileTaskPrefix+file.path, file.spec, fs.strategy, fs.params
			cfg.BaseURL, cfg.Concurrency = srv.URL+"/v1", 4
			what := file.name + " " + fs.strategy + " " + ParamSummary(fs.strategy, mustJSON(t, fs.params))
			sum, err := eng.Run(ctx, cfg)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if sum.Status != store.StatusDone || sum.N != 6 || sum.Calls == 0 || !sum.Simulated {
				t.Fatalf("%s: summary %+v", what, sum)
			}
			wantName := "file:" + file.name + "@" + digest[len("sha256:"):len("sha256:")+8]
			if sum.Task != wantName || sum.Rule != file.rule || sum.Dataset != digest {
				t.Errorf("%s: task %q rule %q dataset %q, want %q %q %q", what, sum.Task, sum.Rule, sum.Dataset, wantName, file.rule, digest)
			}
			run, _ := st.GetRun(ctx, sum.RunID)
			var rec recordedSpec
			if err := json.Unmarshal(run.Spec, &rec); err != nil {
				t.Fatal(err)
			}
			if rec.Dataset == nil || rec.Dataset.SHA256 != digest || rec.Dataset.Rows != 6 || rec.Config.Task != cfg.Task ||
				!strings.HasPrefix(rec.Rule, file.rule+": ") {
				t.Errorf("%s: recorded dataset %+v rule %q task %q", what, rec.Dataset, rec.Rule, rec.Config.Task)
			}
			if file.spec != "" && (rec.Dataset.SpecText != qaSpec || rec.Dataset.SpecSHA256 != tasks.SHA256([]byte(qaSpec))) {
				t.Errorf("%s: spec not recorded: %+v", what, rec.Dataset)
			}
			for k, v := range fs.params {
				if got := rec.Params[k]; !reflect.DeepEqual(jsonRound(t, got), jsonRound(t, v)) {
					t.Errorf("%s: stored %s=%v, want %v", what, k, got, v)
				}
			}
			// Every stored verdict is the task's score of the stored output.
			task, err := OpenTask(cfg.Task, cfg.TaskSpec, "")
			if err != nil {
				t.Fatal(err)
			}
			insts, _ := task.Instances()
			items, _ := st.Items(ctx, sum.RunID)
			for _, it := range items {
				if got := task.Score(insts[it.Index], it.Output).Correct; got != it.Correct {
					t.Errorf("%s item %d: stored correct=%v, the output %q scores %v", what, it.Index, it.Correct, it.Output, got)
				}
				if it.Correct {
					correct++
				}
			}
		}
	}
	if correct == 0 {
		t.Error("no strategy answered any question right")
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonRound(t *testing.T, v any) any {
	var out any
	if err := json.Unmarshal(mustJSON(t, v), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFileTaskSameOverHTTP: serve-sim, which never sees the file, answers
// exactly as the in-process simulator does.
func TestFileTaskSameOverHTTP(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := writeFile(t, t.TempDir(), "qa.jsonl", qaRows)
	srv, _ := simServer(t, DefaultConfig(), llm.ServerOptions{})
	outputs := func(base string) []string {
		st := tempStore(t)
		cfg := DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Params, cfg.BaseURL = FileTaskPrefix+path, "cotsc", map[string]any{"k": 4}, base
		sum, err := (&Engine{Store: st}).Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		items, _ := st.Items(ctx, sum.RunID)
		var out []string
		for _, it := range items {
			out = append(out, string(it.Detail))
		}
		return out
	}
	if a, b := outputs(""), outputs(srv.URL+"/v1"); !reflect.DeepEqual(a, b) {
		t.Errorf("in process %v\nover HTTP %v", a, b)
	}
}

// cancelAfter cancels a run after n calls, as a Ctrl-C would.
type cancelAfter struct {
	next   llm.Sampler
	n      int64
	calls  atomic.Int64
	cancel context.CancelFunc
}

func (c *cancelAfter) Sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	if c.calls.Add(1) > c.n {
		c.cancel()
		return llm.Response{}, context.Canceled
	}
	return c.next.Sample(ctx, req)
}

func TestResumeChecksTheDataFile(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "qa.jsonl", qaRows)
	st := tempStore(t)
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy, cfg.Params, cfg.Concurrency = FileTaskPrefix+path, "cot", map[string]any{"k": 1}, 1
	model, err := NewSim(cfg.Sim)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	eng := &Engine{Store: st, Backend: &cancelAfter{next: model, n: 2, cancel: cancel}}
	sum, err := eng.Run(ctx, cfg)
	if err == nil || sum.N >= 6 {
		t.Fatalf("the run was not interrupted: %+v %v", sum, err)
	}
	// The file changes: resuming would mix data.
	writeFile(t, dir, "qa.jsonl", strings.Replace(qaRows, `"answer": "8"`, `"answer": "9"`, 1))
	_, err = (&Engine{Store: st}).Resume(context.Background(), sum.RunID, "")
	var ce ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "changed since the run started") || !strings.Contains(err.Error(), path) {
		t.Fatalf("resume on a changed file: %v", err)
	}
	// Restored, and resumed from another directory: it reads the file
	// the run started with.
	writeFile(t, dir, "qa.jsonl", qaRows)
	t.Chdir(t.TempDir())
	done, err := (&Engine{Store: st}).Resume(context.Background(), sum.RunID, "")
	if err != nil || done.N != 6 || done.Status != store.StatusDone {
		t.Fatalf("resume: %+v %v", done, err)
	}
}

func TestFileTaskConfigKeyFollowsContents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeFile(t, dir, "qa.jsonl", qaRows)
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy = FileTaskPrefix+path, "cot"
	key := func() string {
		p, err := load(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return p.configKey()
	}
	a := key()
	writeFile(t, dir, "qa.jsonl", qaRows+`{"question": "One more?", "answer": "yes"}`+"\n")
	if b := key(); a == b {
		t.Error("a changed file keeps the configuration key")
	}
}

func TestFileTaskBadInputIsAConfigError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		task, spec, rule, want string
	}{
		{"file:" + writeFile(t, dir, "empty.jsonl", ""), "", "", "empty.jsonl: no rows"},
		{"file:" + writeFile(t, dir, "noq.jsonl", `{"answer": "x"}`), "", "", `noq.jsonl:1: no "question" field`},
		{"file:" + writeFile(t, dir, "ok.jsonl", `{"question": "q", "answer": "x"}`), "", "bleu", `unknown scorer "bleu"`},
		{"file:" + filepath.Join(dir, "ok.jsonl"), writeFile(t, dir, "s.yaml", "scorrer: x\n"), "", "field scorrer not found"},
		{"gsm8k", filepath.Join(dir, "s.yaml"), "", "use it with --task file:PATH"},
		{"file:", "", "", "names no file"},
	} {
		cfg := DefaultConfig()
		cfg.Task, cfg.TaskSpec, cfg.Rule, cfg.Strategy = tc.task, tc.spec, tc.rule, "cot"
		err := Check(cfg)
		var ce ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s %s: %v, want a config error with %q", tc.task, tc.spec, tc.rule, err, tc.want)
		}
	}
	// A strategy the data cannot serve says why before anything runs.
	cfg := DefaultConfig()
	cfg.Task, cfg.Strategy = "file:"+filepath.Join(dir, "ok.jsonl"), "react"
	if err := Check(cfg); err == nil || !strings.Contains(err.Error(), "offers no tools") {
		t.Errorf("react without context: %v", err)
	}
	cfg.Strategy, cfg.Params = "tot", map[string]any{"generate": "propose"}
	if err := Check(cfg); err == nil || !strings.Contains(err.Error(), "generate=sample") {
		t.Errorf("tot with propose: %v", err)
	}
}

// TestFileQuestionIsReadNotLookedUp: a file question that is also a
// bundled HotpotQA question is answered by the qa responder from what the
// prompt shows, not from HotpotQA's bundled answer.
func TestFileQuestionIsReadNotLookedUp(t *testing.T) {
	t.Parallel()
	model, err := NewSim(DefaultConfig().Sim)
	if err != nil {
		t.Fatal(err)
	}
	task, err := OpenTask(FileTaskPrefix+writeFile(t, t.TempDir(), "h.jsonl",
		`{"question": "Were Scott Derrickson and Ed Wood of the same nationality?", "answer": "yes"}`), "", "")
	if err != nil {
		t.Fatal(err)
	}
	insts, _ := task.Instances()
	lib := mustLibrary(t)
	prompt, err := lib.Render(tasks.TemplateName(lib, task, "cot"), strategies.PromptData{Input: insts[0].Input})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := model.Sample(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: prompt}}, N: 5, Temperature: llm.Temp(0.7), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range resp.Texts() {
		if !strings.HasPrefix(out, "I recall what I know about this.") && !strings.HasPrefix(out, "I think the answer is") {
			t.Errorf("not the qa responder's closed-book answer: %q", out)
		}
	}
}

func TestSCPresets(t *testing.T) {
	t.Parallel()
	cfg, err := ApplyPreset(DefaultConfig(), "sc-gsm8k/cotsc-40")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Task != "gsm8k" || cfg.Strategy != "cotsc" || cfg.Params["k"] != 40 || cfg.Params["temperature"] != 0.7 {
		t.Fatalf("preset config %+v", cfg)
	}
	cfg.Range = "0:3"
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	run, _ := st.GetRun(context.Background(), sum.RunID)
	var rec recordedSpec
	json.Unmarshal(run.Spec, &rec)
	if sum.Rule != "gsm8k/numeric" || rec.Dataset == nil || rec.Dataset.Rows != 1319 || rec.Params["k"] != 40.0 || rec.Params["vote_key"] != "answer" {
		t.Errorf("rule %q dataset %+v params %v", sum.Rule, rec.Dataset, rec.Params)
	}
	calls, _ := st.Calls(context.Background(), sum.RunID, -1)
	if len(calls) != 3 || !strings.Contains(string(calls[0].Request), `"n":40`) || !strings.Contains(string(calls[0].Request), `"temperature":0.7`) {
		t.Errorf("calls %d: %s", len(calls), calls[0].Request)
	}
	cot, _ := ApplyPreset(DefaultConfig(), "sc-gsm8k/cot")
	if cot.Params["k"] != 1 || cot.Params["temperature"] != 0.0 {
		t.Errorf("cot preset %+v", cot.Params)
	}
}

func mustLibrary(t *testing.T) *prompts.Library {
	t.Helper()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

func TestExperimentFileTask(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := writeFile(t, dir, "qa.jsonl", qaRows)
	yaml := "task: file:" + path + "\ntask_spec: \"\"\nscorer: exact:squad\nstrategies:\n  - cot: {k: [1, 3]}\n  - tot: {generate: sample, evaluate: vote, b: 2}\n"
	exp, err := ParseExperiment("e.yaml", []byte(yaml), DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Runs) != 3 || exp.Runs[0].Task != FileTaskPrefix+path || exp.Runs[0].Rule != "exact:squad" {
		t.Fatalf("runs %+v", exp.Runs)
	}
	sums, err := (&Engine{Store: tempStore(t)}).RunExperiment(context.Background(), exp, Keys{})
	if err != nil || len(sums) != 3 || sums[2].Rule != "file/exact(squad)" {
		t.Fatalf("%v %+v", err, sums)
	}
}
