package crosswords_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/crosswords"
)

// scored is one candidate of a logged proposal entry.
type scored struct {
	action string
	score  float64
}

// readProposalScores reads gpt4_dfs_proposal_scores.json keeping the order
// of every entry's candidates (the notebook's dict order, which breaks
// ties).
func readProposalScores(t *testing.T) map[string][]scored {
	t.Helper()
	f, err := os.Open("testdata/gpt4_dfs_proposal_scores.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.UseNumber()
	tok := func() json.Token {
		tk, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		return tk
	}
	out := map[string][]scored{}
	tok() // {
	for dec.More() {
		board := tok().(string)
		tok() // {
		var list []scored
		for dec.More() {
			a := tok().(string)
			v, err := strconv.ParseFloat(string(tok().(json.Number)), 64)
			if err != nil {
				t.Fatal(err)
			}
			list = append(list, scored{a, v})
		}
		tok() // }
		out[board] = list
	}
	return out
}

var weights = []struct {
	word string
	w    float64
}{{"certain", 1}, {"high", 0.5}, {"medium", 0.2}, {"low", 0.1}}

// decompose finds confidence words whose weights, added left to right from
// 0 as the notebook adds them, give target bit for bit.
func decompose(target float64) ([]string, bool) {
	var seq []string
	var try func(sum float64, depth int) bool
	try = func(sum float64, depth int) bool {
		if sum == target && depth > 0 {
			return true
		}
		if depth == 16 || sum > target+1e-9 {
			return false
		}
		for _, w := range weights {
			seq = append(seq, w.word)
			if try(sum+w.w, depth+1) {
				return true
			}
			seq = seq[:len(seq)-1]
		}
		return false
	}
	ok := try(0, 0)
	return seq, ok
}

// answers writes 8 propose answers that the notebook's parsing sums to the
// logged scores, candidates first written in the logged order.
func answers(t *testing.T, list []scored) []string {
	t.Helper()
	out := make([]string, 8)
	for _, c := range list {
		seq, ok := decompose(c.score)
		if !ok {
			t.Fatalf("no confidences sum to %v for %s", c.score, c.action)
		}
		for j, word := range seq {
			out[min(j, 7)] += fmt.Sprintf("%s (%s)\n", c.action, word)
		}
	}
	return out
}

type dfsState struct {
	Idx     int                 `json:"idx"`
	Step    int                 `json:"step"`
	Actions []string            `json:"actions"`
	Count   strategies.Verdicts `json:"count"`
}

// scriptedGPT4 answers propose prompts (the rendered board) with answers
// summing to GPT-4's logged scores, and the checks of each state with its
// logged verdict counts. A check call names its state ("s12/value/h2");
// its prompt must be a check of that logged state.
//
// The search runs with check_cache=off: the logged counts are not those of
// one verdict per prompt (the notebook's cache) with our checks — a
// constraint search for such verdicts found none — so each state is fed
// its own counts.
type scriptedGPT4 struct {
	t       *testing.T
	scores  map[string][]scored
	states  []dfsState // the puzzle's logged states
	task    *crosswords.Task
	lib     *prompts.Library
	inst    tasks.Instance
	mu      sync.Mutex
	verdict map[int]map[string]string // logged state → check prompt → verdict
	asked   map[string]int            // propose prompt → times asked
}

func (m *scriptedGPT4) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	prompt := req.Messages[0].Content
	m.mu.Lock()
	defer m.mu.Unlock()
	if req.Purpose == "propose" {
		list, ok := m.scores[prompt]
		if !ok {
			return llm.Response{}, fmt.Errorf("call %s: a board the logged run never proposed for:\n%s", req.Call, prompt)
		}
		if m.asked[prompt]++; m.asked[prompt] > 1 {
			m.t.Errorf("call %s: board asked again (the notebook caches it)", req.Call)
		}
		if req.Samples() != 8 {
			m.t.Errorf("call %s: %d samples, want 8", req.Call, req.Samples())
		}
		return choices(answers(m.t, list)), nil
	}
	var k int
	if _, err := fmt.Sscanf(req.Call, "s%d/value/", &k); err != nil || k >= len(m.states) {
		return llm.Response{}, fmt.Errorf("check call %q: not a logged state", req.Call)
	}
	if m.verdict[k] == nil {
		if err := m.assign(k); err != nil {
			return llm.Response{}, err
		}
	}
	v, ok := m.verdict[k][prompt]
	if !ok {
		return llm.Response{}, fmt.Errorf("call %s: prompt %q is not a check of logged state %d %v", req.Call, prompt, k, m.states[k].Actions)
	}
	return choices([]string{"thinking...\n" + v}), nil
}

// assign gives the checks of logged state k its logged counts:
// impossible first, then maybe, then sure, then no verdict, in check
// order (a prompt checked twice in a state counts twice).
func (m *scriptedGPT4) assign(k int) error {
	st := m.states[k]
	checks, err := m.task.Checks(m.lib, m.inst, strings.Join(st.Actions, "\n"))
	if err != nil {
		return err
	}
	need := []int{st.Count.Impossible, st.Count.Maybe, st.Count.Sure}
	kinds := []string{"impossible", "maybe", "sure"}
	m.verdict[k] = map[string]string{}
	for _, c := range checks {
		if _, ok := m.verdict[k][c.Prompt]; ok {
			return fmt.Errorf("state %d: prompt %q checked twice", k, c.Prompt)
		}
		m.verdict[k][c.Prompt] = "no verdict"
		for i, n := range need {
			if n > 0 {
				m.verdict[k][c.Prompt] = kinds[i]
				need[i]--
				break
			}
		}
	}
	if need[0]+need[1]+need[2] != 0 {
		return fmt.Errorf("state %d %v: %d checks cannot give the logged count %+v", k, st.Actions, len(checks), st.Count)
	}
	return nil
}

func choices(texts []string) llm.Response {
	var r llm.Response
	for i, s := range texts {
		r.Choices = append(r.Choices, llm.Choice{Index: i, Content: s})
	}
	return r
}

func readStates(t *testing.T, name string) map[int][]dfsState {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][]dfsState{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var s dfsState
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatal(err)
		}
		out[s.Idx] = append(out[s.Idx], s)
	}
	return out
}

// bareLibrary shows the propose and check prompts' inputs alone, so a
// propose prompt is the notebook's rendered board, its cache key.
func bareLibrary(t *testing.T) *prompts.Library {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "crosswords"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"propose", "value"} {
		if err := os.WriteFile(filepath.Join(dir, "crosswords", n+".txt"), []byte("{{.Input}}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lib, err := prompts.WithOverrides(dir)
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

func newStrategy(t *testing.T, set map[string]any) strategies.Strategy {
	t.Helper()
	spec, err := strategies.Lookup("tot_dfs")
	if err != nil {
		t.Fatal(err)
	}
	v, err := param.Resolve(spec.Params, set)
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.New(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type dfsDetail struct {
	States []struct {
		Actions []string            `json:"actions"`
		Count   strategies.Verdicts `json:"count"`
		Metrics map[string]float64  `json:"metrics"`
	} `json:"states"`
	Output int `json:"output"`
}

func detailOf(t *testing.T, res strategies.Result) dfsDetail {
	t.Helper()
	b, err := json.Marshal(res.Detail)
	if err != nil {
		t.Fatal(err)
	}
	var d dfsDetail
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestDFSReplaysLoggedPruningRun: fed GPT-4's logged proposal scores and
// the logged verdict counts, the search visits the 100 states of each
// logged puzzle in the logged order, and outputs the first deepest.
func TestDFSReplaysLoggedPruningRun(t *testing.T) {
	scores := readProposalScores(t)
	logged := readStates(t, "gpt4_tot_dfs_prune_sample.jsonl")
	task := crosswords.NewTask()
	insts, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	lib := bareLibrary(t)
	strat := newStrategy(t, map[string]any{"check_cache": "off"})
	for idx := range 5 {
		states := logged[idx]
		model := &scriptedGPT4{t: t, scores: scores, states: states, task: task, lib: lib, inst: insts[idx],
			verdict: map[int]map[string]string{}, asked: map[string]int{}}
		res, err := strat.Solve(context.Background(), strategies.Env{Sampler: model, Task: task, Prompts: lib, Seed: 1}, insts[idx])
		if err != nil {
			t.Fatalf("puzzle %d: %v", idx, err)
		}
		d := detailOf(t, res)
		if len(d.States) != len(states) {
			t.Errorf("puzzle %d: %d states visited, logged %d", idx, len(d.States), len(states))
		}
		deepest := 0
		for i := range min(len(d.States), len(states)) {
			if !slices.Equal(d.States[i].Actions, states[i].Actions) || d.States[i].Count != states[i].Count {
				t.Fatalf("puzzle %d state %d: visited %v %+v, logged %v %+v", idx, i, d.States[i].Actions, d.States[i].Count, states[i].Actions, states[i].Count)
			}
			if len(states[i].Actions) > len(states[deepest].Actions) {
				deepest = i
			}
		}
		if d.Output != deepest || res.Output != strings.Join(states[deepest].Actions, "\n") {
			t.Errorf("puzzle %d: output state %d %q, want the first deepest %d", idx, d.Output, res.Output, deepest)
		}
	}
}

// toyModel proposes h1 "aaaaa" (certain) and "bbbbb" (high) on an empty
// board, "h2. ccccc" once h1 is written, nothing after; it judges a clue
// whose letters are all a impossible and every other sure.
type toyModel struct{}

func (toyModel) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	p := req.Messages[0].Content
	if req.Purpose == "value" {
		if strings.HasSuffix(p, ": a a a a a") {
			return choices([]string{"no such word\nimpossible"}), nil
		}
		return choices([]string{"sure"}), nil
	}
	board, _, _ := strings.Cut(strings.TrimPrefix(p, "Current Board:\n"), "\n\n")
	var out string
	switch {
	case board == "_____\n_____\n_____\n_____\n_____":
		out = "h1. aaaaa (certain)\nh1. bbbbb (high)\nnoise (certain)"
	case !strings.Contains(board, "CCCCC"):
		out = "h2. ccccc (certain)"
	}
	return choices(slices.Repeat([]string{out}, req.Samples())), nil
}

// TestDFSPrunesAndBacktracks: with pruning the impossible first child is
// visited but not expanded and the search backtracks to the second;
// without, it is expanded too; without backtracking the greedy fill keeps
// the first choice.
func TestDFSPrunesAndBacktracks(t *testing.T) {
	task := crosswords.NewTask()
	insts, err := task.Instances()
	if err != nil {
		t.Fatal(err)
	}
	lib := bareLibrary(t)
	for _, tc := range []struct {
		set  map[string]any
		want []string
		out  string
	}{
		{nil, []string{"h1. aaaaa", "h1. bbbbb", "h1. bbbbb|h2. ccccc"}, "h1. bbbbb\nh2. ccccc"},
		{map[string]any{"prune": false}, []string{"h1. aaaaa", "h1. aaaaa|h2. ccccc", "h1. bbbbb", "h1. bbbbb|h2. ccccc"}, "h1. aaaaa\nh2. ccccc"},
		{map[string]any{"backtrack": false}, []string{"h1. aaaaa", "h1. aaaaa|h2. ccccc"}, "h1. aaaaa\nh2. ccccc"},
		{map[string]any{"max_states": 2}, []string{"h1. aaaaa", "h1. bbbbb"}, "h1. aaaaa"},
	} {
		res, err := newStrategy(t, tc.set).Solve(context.Background(), strategies.Env{Sampler: toyModel{}, Task: task, Prompts: lib, Seed: 1}, insts[0])
		if err != nil {
			t.Fatalf("%v: %v", tc.set, err)
		}
		var got []string
		for _, s := range detailOf(t, res).States {
			got = append(got, strings.Join(s.Actions, "|"))
		}
		if !slices.Equal(got, tc.want) || res.Output != tc.out {
			t.Errorf("%v: visited %q output %q, want %q output %q", tc.set, got, res.Output, tc.want, tc.out)
		}
	}
}
