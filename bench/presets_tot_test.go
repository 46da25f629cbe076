package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/game24"
)

// traceStep and tracePuzzle are the lines of testdata/tot_trace_900_919.jsonl:
// the search the ToT reference logged for its GPT-4 run on puzzles 900-919.
type traceStep struct {
	Step        int       `json:"step"`
	Ys          []string  `json:"ys"`
	NewYs       []string  `json:"new_ys"`
	Values      []float64 `json:"values"`
	SelectNewYs []string  `json:"select_new_ys"`
}

type tracePuzzle struct {
	Idx     int         `json:"idx"`
	Puzzle  string      `json:"puzzle"`
	Steps   []traceStep `json:"steps"`
	FinalYs []string    `json:"final_ys"`
}

func readTrace(t *testing.T) []tracePuzzle {
	t.Helper()
	f, err := os.Open("testdata/tot_trace_900_919.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []tracePuzzle
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var p tracePuzzle
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// traceNumbers reads the numbers left from a state as the logged states
// write them: after the last "left: " of the last line, up to ')'.
func traceNumbers(y string) string {
	lines := strings.Split(strings.TrimSpace(y), "\n")
	last := lines[len(lines)-1]
	if i := strings.LastIndex(last, "left: "); i >= 0 {
		last = last[i+len("left: "):]
	}
	before, _, _ := strings.Cut(last, ")")
	return before
}

// judgements decomposes a logged value of 3 samples into answers whose last
// lines are sure (20), likely (1) or impossible (0.001); the rest say
// nothing the scale knows.
func judgements(v float64) ([]string, bool) {
	for s := 0; s <= 3; s++ {
		for l := 0; l <= 3-s; l++ {
			for i := 0; i <= 3-s-l; i++ {
				if float64(float64(0.001*float64(i))+float64(l))+float64(20*s) != v {
					continue
				}
				var out []string
				for range s {
					out = append(out, "the numbers reach 24\nsure")
				}
				for range l {
					out = append(out, "within range\nlikely")
				}
				for range i {
					out = append(out, "too far apart\nimpossible")
				}
				for len(out) < 3 {
					out = append(out, "cannot say")
				}
				return out, true
			}
		}
	}
	return nil, false
}

// scriptedGPT4 answers the bundled Game of 24 prompts with GPT-4's recorded
// answers. It reads only the prompt: the numbers a propose or value prompt
// asks about, the steps written after the final "Steps:" of a final-step
// prompt, or the answer a value_last prompt judges. Where the reference
// asked the same propose prompt twice in a step (two beam states with the
// same numbers left) GPT-4 answered differently, so those answers are
// replayed in the order they were given.
type scriptedGPT4 struct {
	puzzle   string
	proposes map[string][]string // prompt key → answers, in order
	values   map[string]float64  // value prompt key → logged value
	t        *testing.T
}

func newScriptedGPT4(t *testing.T, p tracePuzzle, values map[string]float64) *scriptedGPT4 {
	m := &scriptedGPT4{puzzle: p.Puzzle, proposes: map[string][]string{}, values: values, t: t}
	for _, st := range p.Steps {
		k := 0
		for _, y := range st.Ys {
			var lines []string
			for k < len(st.NewYs) && strings.HasPrefix(st.NewYs[k], y) {
				lines = append(lines, strings.TrimSuffix(st.NewYs[k][len(y):], "\n"))
				k++
			}
			key := "numbers:" + traceNumbers(cmpOr(y, p.Puzzle))
			if traceNumbers(cmpOr(y, p.Puzzle)) == "24" {
				key = "steps:" + y
			}
			m.proposes[key] = append(m.proposes[key], strings.Join(lines, "\n"))
		}
	}
	return m
}

func cmpOr(a, b string) string {
	if a == "" {
		return b
	}
	return a
}

// traceValues collects the logged value of every value prompt of the run,
// keyed as scriptedGPT4 reads prompts. Duplicates in a step and finished
// chains with no answer are worth 0 whatever the model said, so they say
// nothing about its answers.
func traceValues(t *testing.T, ps []tracePuzzle) map[string]float64 {
	out := map[string]float64{}
	for _, p := range ps {
		for _, st := range p.Steps {
			seen := map[string]bool{}
			for i, y := range st.NewYs {
				if seen[y] {
					continue
				}
				seen[y] = true
				lines := strings.Split(strings.TrimSpace(y), "\n")
				if len(lines) == 4 && !strings.Contains(strings.ToLower(y), "answer") {
					continue
				}
				key := "numbers:" + traceNumbers(y)
				if last := lines[len(lines)-1]; !strings.Contains(last, "left: ") {
					key = "answer:" + strings.ReplaceAll(strings.ToLower(last), "answer: ", "")
				}
				if v, ok := out[key]; ok && v != st.Values[i] {
					t.Fatalf("puzzle %d: prompt %q logged with values %v and %v", p.Idx, key, v, st.Values[i])
				}
				out[key] = st.Values[i]
			}
		}
	}
	return out
}

func (m *scriptedGPT4) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	prompt := req.Messages[len(req.Messages)-1].Content
	lines := strings.Split(strings.TrimRight(prompt, "\n"), "\n")
	last := lines[len(lines)-1]
	var texts []string
	switch {
	case last == "Possible next steps:": // propose: the numbers are on the Input line before
		key := "numbers:" + strings.TrimPrefix(lines[len(lines)-2], "Input: ")
		texts = m.pop(key)
	case last == "Judge:": // value_last: the answer is on the line before
		texts = m.judge("answer:" + strings.TrimPrefix(lines[len(lines)-2], "Answer: "))
	case strings.Contains(prompt, "Input: "+m.puzzle+"\nSteps:"): // final step: CoT prompt + steps
		_, y, _ := strings.Cut(prompt, "Input: "+m.puzzle+"\nSteps:")
		texts = m.pop("steps:" + y)
	default: // value: the numbers are the last line
		texts = m.judge("numbers:" + last)
	}
	if texts == nil {
		return llm.Response{}, fmt.Errorf("scripted model: no recorded answer for prompt ending %q", last)
	}
	if len(texts) != req.Samples() {
		m.t.Errorf("prompt ending %q: asked for %d samples, recorded %d", last, req.Samples(), len(texts))
	}
	if req.MaxTokens != 1000 || len(req.Stop) != 0 || req.TemperatureOr(-1) != 0.7 {
		m.t.Errorf("call parameters max_tokens=%d stop=%q temperature=%v, want the reference's 1000, none, 0.7", req.MaxTokens, req.Stop, req.TemperatureOr(-1))
	}
	var resp llm.Response
	for _, s := range texts {
		resp.Choices = append(resp.Choices, llm.Choice{Content: s})
	}
	return resp, nil
}

func (m *scriptedGPT4) pop(key string) []string {
	q := m.proposes[key]
	if len(q) == 0 {
		m.t.Errorf("propose prompt %q asked more often than the reference asked it", key)
		return nil
	}
	m.proposes[key] = q[1:]
	return q[:1]
}

func (m *scriptedGPT4) judge(key string) []string {
	v, ok := m.values[key]
	if !ok { // a prompt whose value the reference zeroed: any answer will do
		return []string{"?", "?", "?"}
	}
	out, ok := judgements(v)
	if !ok {
		m.t.Fatalf("value %v of %q is no sum of three judgements", v, key)
	}
	return out
}

// TestToTPresetReplaysReferenceTraces feeds the tot-game24/tot-b5 preset
// GPT-4's recorded answers and checks that it makes every decision the
// reference made on puzzles 900-919: the candidates in order, their values
// (bit for bit), the beam kept at each step and the final beam.
func TestToTPresetReplaysReferenceTraces(t *testing.T) {
	trace := readTrace(t)
	if len(trace) != 20 {
		t.Fatalf("trace has %d puzzles, want 20", len(trace))
	}
	cfg, err := ApplyPreset(Config{}, "tot-game24/tot-b5")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := strategies.Lookup(cfg.Strategy)
	if err != nil {
		t.Fatal(err)
	}
	params, err := strategies.Resolve(spec.Params, cfg.Params)
	if err != nil {
		t.Fatal(err)
	}
	strat, err := spec.New(params) // one strategy: its value cache spans the run, as the reference's
	if err != nil {
		t.Fatal(err)
	}
	task := game24.NewTask()
	if err := strat.(strategies.TaskChecker).CheckTask(task); err != nil {
		t.Fatal(err)
	}
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	all, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	values := traceValues(t, trace)
	matched := 0
	for _, p := range trace {
		inst := all[p.Idx]
		if inst.Input != p.Puzzle {
			t.Fatalf("puzzle %d is %q, trace says %q", p.Idx, inst.Input, p.Puzzle)
		}
		model := newScriptedGPT4(t, p, values)
		res, err := strat.Solve(context.Background(), strategies.Env{Sampler: model, Task: task, Prompts: lib, Seed: 1}, inst)
		if err != nil {
			t.Errorf("puzzle %d: %v", p.Idx, err)
			continue
		}
		if same := compareTrace(t, p, res); same {
			matched++
		}
	}
	t.Logf("%d of %d reference traces reproduced step for step", matched, len(trace))
	if matched != len(trace) {
		t.Errorf("reproduced %d of %d traces", matched, len(trace))
	}
}

func compareTrace(t *testing.T, p tracePuzzle, res strategies.Result) bool {
	t.Helper()
	b, _ := json.Marshal(res.Detail)
	var got struct {
		Steps []traceStep `json:"reference_steps"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Steps) != len(p.Steps) {
		t.Errorf("puzzle %d: %d steps, reference %d", p.Idx, len(got.Steps), len(p.Steps))
		return false
	}
	for i, want := range p.Steps {
		g := got.Steps[i]
		for _, c := range []struct {
			what      string
			got, want any
			same      bool
		}{
			{"ys", g.Ys, want.Ys, slices.Equal(g.Ys, want.Ys)},
			{"new_ys", g.NewYs, want.NewYs, slices.Equal(g.NewYs, want.NewYs)},
			{"values", g.Values, want.Values, slices.Equal(g.Values, want.Values)},
			{"select_new_ys", g.SelectNewYs, want.SelectNewYs, slices.Equal(g.SelectNewYs, want.SelectNewYs)},
		} {
			if !c.same {
				t.Errorf("puzzle %d step %d: %s differ:\n got  %q\n want %q", p.Idx, i, c.what, c.got, c.want)
				return false
			}
		}
	}
	if final := got.Steps[len(got.Steps)-1].SelectNewYs; !slices.Equal(final, p.FinalYs) {
		t.Errorf("puzzle %d: final beam %q, reference %q", p.Idx, final, p.FinalYs)
		return false
	}
	return true
}

var _ tasks.ReferenceThoughts = game24.NewTask()

// replayGPT4 is GPT-4 as the reference's logged run met it, for the whole
// run at once: each propose prompt is answered with the next answer GPT-4
// gave that prompt in the log (in puzzle order, then step, then beam), a
// value prompt with answers that sum to its logged value. A prompt asked
// more often than the reference asked it fails the call.
type replayGPT4 struct {
	mu       sync.Mutex
	proposes map[string][]string
	values   map[string]float64
	t        *testing.T
}

func newReplayGPT4(t *testing.T, trace []tracePuzzle) *replayGPT4 {
	r := &replayGPT4{proposes: map[string][]string{}, values: traceValues(t, trace), t: t}
	for _, p := range trace {
		for k, v := range newScriptedGPT4(t, p, nil).proposes {
			r.proposes[k] = append(r.proposes[k], v...)
		}
	}
	return r
}

func (r *replayGPT4) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	prompt := req.Messages[len(req.Messages)-1].Content
	lines := strings.Split(strings.TrimRight(prompt, "\n"), "\n")
	last := lines[len(lines)-1]
	m := &scriptedGPT4{proposes: r.proposes, values: r.values, t: r.t}
	var texts []string
	input := prompt[max(strings.LastIndex(prompt, "Input: "), 0):]
	switch {
	case last == "Possible next steps:":
		texts = m.pop("numbers:" + strings.TrimPrefix(lines[len(lines)-2], "Input: "))
	case last == "Judge:":
		texts = m.judge("answer:" + strings.TrimPrefix(lines[len(lines)-2], "Answer: "))
	case strings.Contains(input, "\nSteps:"):
		_, y, _ := strings.Cut(input, "\nSteps:")
		texts = m.pop("steps:" + y)
	default:
		texts = m.judge("numbers:" + last)
	}
	if texts == nil {
		return llm.Response{}, fmt.Errorf("replay: no recorded answer for prompt ending %q", last)
	}
	var resp llm.Response
	for i, s := range texts {
		resp.Choices = append(resp.Choices, llm.Choice{Index: i, Content: s})
	}
	return resp, nil
}

// TestToTPresetReplaysTheLoggedRun runs --preset tot-game24/tot-b5 with
// its default flags (the response cache on) over puzzles 900-919 against
// an endpoint replaying GPT-4's logged run, in which the reference asked a
// propose prompt again whenever a puzzle reached numbers asked before
// (and GPT-4 answered anew). Every puzzle must make the logged decisions,
// node for node. The endpoint hands out repeated prompts' answers in the
// reference's order, so the run goes one puzzle at a time, as the
// reference's did: a model answers whatever it is asked, in any order,
// but a log can only be replayed in its own.
func TestToTPresetReplaysTheLoggedRun(t *testing.T) {
	trace := readTrace(t)
	srv := httptest.NewServer(llm.NewServer(newReplayGPT4(t, trace), llm.ServerOptions{}))
	defer srv.Close()
	cfg, err := ApplyPreset(DefaultConfig(), "tot-game24/tot-b5")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Range, cfg.Model, cfg.BaseURL, cfg.Concurrency = "900:920", "gpt-4", srv.URL+"/v1", 1
	st := tempStore(t)
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	items, err := st.Items(context.Background(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	byIdx := map[int]store.Item{}
	for _, it := range items {
		byIdx[it.Index] = it
	}
	matched := 0
	for _, p := range trace {
		it, ok := byIdx[p.Idx]
		if !ok {
			t.Errorf("puzzle %d not stored", p.Idx)
			continue
		}
		var detail any
		if err := json.Unmarshal(it.Detail, &detail); err != nil {
			t.Fatal(err)
		}
		if compareTrace(t, p, strategies.Result{Detail: detail}) {
			matched++
		}
	}
	if matched != len(trace) {
		t.Errorf("reproduced %d of %d logged puzzles node for node", matched, len(trace))
	}
	hits, err := st.Calls(context.Background(), sum.RunID, -1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range hits {
		var req llm.Request
		json.Unmarshal(c.Request, &req)
		if c.CacheHit && req.Purpose == "propose" {
			t.Errorf("item %d: propose call %s answered from the cache", c.Item, req.Call)
		}
	}
}
