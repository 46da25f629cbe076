package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/template"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/store"
)

// creativeStep and creativeRun are the lines of GPT-4's logged ToT run on
// creative writing (tasks/creative/testdata/gpt4_tot_sample.jsonl).
type creativeStep struct {
	Ys          []string  `json:"ys"`
	NewYs       []string  `json:"new_ys"`
	Values      []float64 `json:"values"`
	SelectNewYs []string  `json:"select_new_ys"`
}

type creativeRun struct {
	Idx    int            `json:"idx"`
	Input  string         `json:"input"`
	Steps  []creativeStep `json:"steps"`
	Output string         `json:"output"`
}

func readCreativeRuns(t *testing.T) []creativeRun {
	t.Helper()
	f, err := os.Open("../tasks/creative/testdata/gpt4_tot_sample.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []creativeRun
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r creativeRun
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// referenceShapedPrompts is a prompts folder shaped like the reference's
// text prompts: the cot prompt formats the input, the vote and score
// prompts are plain text the choices and passage are appended to. With
// REASONBENCH_TOT_SRC naming a checkout of the reference repository, its
// own prompts are imported instead (their text is never committed here).
func referenceShapedPrompts(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	texts := map[string]string{
		"creative/cot":   "\nStand-in for the reference's plan-then-write instruction; the sentences: {{.Input}}\nPlan:\n(the plan)\n\nPassage:\n(the passage)\n",
		"creative/vote":  "Stand-in for the reference's vote instruction, ending \"The best choice is {s}\".\n",
		"creative/score": "Stand-in for the reference's score instruction.\n",
	}
	if src := os.Getenv("REASONBENCH_TOT_SRC"); src != "" {
		imported, err := prompts.ImportPack("tot", src)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []string{"creative/cot", "creative/vote", "creative/score"} {
			texts[n] = imported[n]
		}
	}
	if err := prompts.WriteFolder(dir, texts); err != nil {
		t.Fatal(err)
	}
	return dir
}

// replayModel answers each prompt with the next answers recorded for it.
type replayModel struct {
	mu      sync.Mutex
	answers map[string][][]string
	unknown []string
}

func (m *replayModel) Sample(_ context.Context, req llm.Request) (llm.Response, error) {
	prompt := req.Messages[len(req.Messages)-1].Content
	m.mu.Lock()
	defer m.mu.Unlock()
	q := m.answers[prompt]
	if len(q) == 0 {
		if req.Purpose != "judge" && !strings.HasPrefix(prompt, "Stand-in for the reference's score") {
			m.unknown = append(m.unknown, prompt)
		}
		var r llm.Response
		for i := range req.Samples() { // the run logged no judge answers
			r.Choices = append(r.Choices, llm.Choice{Index: i, Content: "Thus the coherency score is 5"})
		}
		return r, nil
	}
	m.answers[prompt] = q[1:]
	var r llm.Response
	for i, s := range q[0] {
		r.Choices = append(r.Choices, llm.Choice{Index: i, Content: s})
	}
	return r, nil
}

// TestCreativeToTReplaysGPT4: fed GPT-4's recorded answers through an
// OpenAI-compatible endpoint on 127.0.0.1, --preset tot-creative/tot with
// reference-shaped prompts asks exactly the recorded prompts and makes the
// logged choices for every input of the sample: the same five candidates
// in order at each step, the same vote counts, the same selection and
// output.
func TestCreativeToTReplaysGPT4(t *testing.T) {
	t.Parallel()
	runs := readCreativeRuns(t)
	dir := referenceShapedPrompts(t)
	read := func(name string) *template.Template {
		b, err := os.ReadFile(filepath.Join(dir, "creative", name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		return template.Must(template.New(name).Parse(string(b)))
	}
	render := func(tm *template.Template, input string) string {
		var b bytes.Buffer
		if err := tm.Execute(&b, map[string]string{"Input": input}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	cot, vote := read("cot"), read("vote")
	model := &replayModel{answers: map[string][][]string{}}
	for _, r := range runs {
		for _, st := range r.Steps {
			y := st.Ys[0]
			var samples []string
			for _, ny := range st.NewYs {
				if !strings.HasPrefix(ny, y) {
					t.Fatalf("input %d: candidate does not extend its state", r.Idx)
				}
				samples = append(samples, ny[len(y):])
			}
			p := render(cot, r.Input) + y
			model.answers[p] = append(model.answers[p], samples)
			v := render(vote, r.Input)
			for i, ny := range st.NewYs {
				v += fmt.Sprintf("Choice %d:\n%s\n", i+1, ny)
			}
			var votes []string
			for k, n := range st.Values {
				for range int(n) {
					votes = append(votes, fmt.Sprintf("Comparing them.\nThe best choice is %d", k+1))
				}
			}
			for len(votes) < 5 {
				votes = append(votes, "I cannot decide.")
			}
			model.answers[v] = append(model.answers[v], votes)
		}
	}
	srv := httptest.NewServer(llm.NewServer(model, llm.ServerOptions{}))
	defer srv.Close()

	st := tempStore(t)
	cfg, err := ApplyPreset(DefaultConfig(), "tot-creative/tot")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Range, cfg.Model, cfg.BaseURL, cfg.PromptDir = fmt.Sprintf("0:%d", len(runs)), "gpt-4", srv.URL+"/v1", dir
	sum, err := (&Engine{Store: st}).Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(model.unknown) > 0 {
		t.Fatalf("%d prompts the logged run never asked, the first:\n%s", len(model.unknown), model.unknown[0])
	}
	for p, q := range model.answers {
		if len(q) > 0 && !strings.HasPrefix(p, "Stand-in for the reference's score") {
			t.Errorf("a recorded prompt was not asked:\n%.300s", p)
		}
	}
	items, err := st.Items(context.Background(), sum.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		it := items[slices.IndexFunc(items, func(it store.Item) bool { return it.Index == r.Idx })]
		if it.Output != r.Output || it.Output != r.Steps[1].SelectNewYs[0] {
			t.Errorf("input %d: output differs from the logged selection", r.Idx)
		}
		nodes, err := st.Nodes(context.Background(), sum.RunID, r.Idx)
		if err != nil {
			t.Fatal(err)
		}
		for d, step := range r.Steps {
			var states []string
			var values []float64
			selected := ""
			for _, n := range nodes {
				if n.Depth == d+1 {
					states = append(states, n.Thought)
					values = append(values, n.Value)
					if n.Selected {
						selected = n.Thought
					}
				}
			}
			if !slices.Equal(states, step.NewYs) || !slices.Equal(values, step.Values) || selected != step.SelectNewYs[0] {
				t.Errorf("input %d step %d: values %v (logged %v), selected %.60q (logged %.60q), candidates equal %v",
					r.Idx, d, values, step.Values, selected, step.SelectNewYs[0], slices.Equal(states, step.NewYs))
			}
		}
	}
}
