package hotpotqa

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
)

// learnData carries every field the Reflexion and Self-Refine templates use.
type learnData struct {
	Input, Context, Actor, Trajectory, Answer, Output, LastAttempt string
	MaxSteps                                                       int
	Reflections                                                    []string
	History                                                        []attemptData
}

type attemptData struct {
	Iteration                int
	Output, Answer, Feedback string
}

func ask(t *testing.T, m *sim.Model, prompt string, seed int64) string {
	t.Helper()
	resp, err := m.Sample(context.Background(), llm.Request{Messages: []llm.Message{{Role: "user", Content: prompt}}, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Choices[0].Content == sim.Fallback {
		t.Fatalf("prompt not recognised:\n%s", prompt)
	}
	return resp.Choices[0].Content
}

func TestLearningTemplatesCarryTheMarkers(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	for name, markers := range map[string][]string{
		"reflect":               {sim.MarkerReflect},
		"self_eval":             {sim.MarkerSelfEval},
		"feedback":              {sim.MarkerFeedback},
		"refine":                {sim.MarkerRefine, markerCoT},
		"reflexion_cot":         {markerQA, markerCoT},
		"reflexion_react_text":  {markerReAct, markerReActText},
		"reflexion_react_json":  {markerReAct, markerReActJSON},
		"reflexion_react_tools": {markerReAct, markerReActTools},
	} {
		text, ok := lib.Text("hotpotqa/" + name)
		if !ok {
			t.Errorf("no template hotpotqa/%s", name)
			continue
		}
		for _, m := range markers {
			if !strings.Contains(text, m) {
				t.Errorf("hotpotqa/%s lacks %q", name, m)
			}
		}
		if strings.Contains(strings.ToLower(text), markerLastStep) {
			t.Errorf("hotpotqa/%s says %q", name, markerLastStep)
		}
	}
	// Empty memory renders the plain prompts; a full one goes before the
	// question, which stays last.
	qs, _ := Questions()
	q := qs[3]
	ctx := FormatParagraphs(q.Gold())
	if got, want := render(t, "reflexion_cot", learnData{Input: q.Question, Context: ctx}), render(t, "cot", qaData{q.Question, ctx}); got != want {
		t.Errorf("reflexion_cot without memory:\n%s\nwant\n%s", got, want)
	}
	for _, proto := range []string{"text", "json", "tools"} {
		got := render(t, "reflexion_react_"+proto, learnData{Input: q.Question, MaxSteps: 6})
		if want := render(t, "react_"+proto, reactData{q.Question, 6}); got != want {
			t.Errorf("reflexion_react_%s without memory differs from react_%s", proto, proto)
		}
		full := render(t, "reflexion_react_"+proto, learnData{Input: q.Question, MaxSteps: 6, LastAttempt: "Thought: x\nAction: Finish[y]",
			Reflections: []string{"plan"}})
		if !strings.Contains(full, "Question: "+q.Question+"\nThought: x\nAction: Finish[y]\n(END PREVIOUS TRIAL)\n\nThe following reflection(s)") ||
			!strings.Contains(full, "Reflections:\n- plan\n") || !strings.HasSuffix(strings.TrimSpace(full), "Question: "+strings.TrimSpace(q.Question)) {
			t.Errorf("reflexion_react_%s with memory:\n%s", proto, full)
		}
	}
}

func TestSimReflectionsOnQuestions(t *testing.T) {
	qs, _ := Questions()
	q := qs[4]
	m := simModel(t, sim.DefaultParams())
	for _, c := range []struct {
		actor, answer string
		named         bool
		want          string
	}{
		{"cot", "Neverland", true, `The answer "Neverland" does not answer the question`},
		{"react", "Neverland", true, `I answered "Neverland"`},
		{"react", "(none)", true, "I used up my steps"},
		{"cot", q.Answer, false, "I am not sure what went wrong"},
	} {
		prompt := render(t, "reflect", learnData{Input: q.Question, Actor: c.actor, Trajectory: "Thought: ...", Answer: c.answer})
		got := ask(t, m, prompt, 1)
		if strings.Contains(got, sim.NamedFailure) != c.named || !strings.Contains(got, c.want) || strings.Contains(got, q.Answer) && c.named {
			t.Errorf("%s reflection on %q:\n%s", c.actor, c.answer, got)
		}
	}
}

func TestSimJudgesAnswersAtTheRate(t *testing.T) {
	qs, _ := Questions()
	p := sim.DefaultParams()
	p.Misjudge = 0.25
	m := simModel(t, p)
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	render := func(t *testing.T, name string, d learnData) string {
		s, err := lib.Render("hotpotqa/"+name, d)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	const n = 1000
	for _, right := range []bool{true, false} {
		wrongEval, wrongFeedback := 0, 0
		for i := range n {
			q := qs[i%len(qs)]
			ans := q.Answer
			if !right {
				ans = misconception(q)
			}
			ev := ask(t, m, render(t, "self_eval", learnData{Input: q.Question, Trajectory: "Answer: " + ans, Answer: ans}), int64(i))
			if strings.HasSuffix(ev, "Judgement: correct") != right {
				wrongEval++
			}
			fb := ask(t, m, render(t, "feedback", learnData{Input: q.Question, Output: "Answer: " + ans, Answer: ans}), int64(i))
			stop := strings.Contains(fb, "No change needed.")
			if stop != right {
				wrongFeedback++
			}
			if strings.Contains(fb, sim.NamedFailure) && (right || stop) {
				t.Fatalf("feedback names a failure of a right answer: %s", fb)
			}
			if _, ok := lineAfter(fb, "Score:"); !ok {
				t.Fatalf("feedback without a score: %s", fb)
			}
		}
		for what, k := range map[string]int{"self_eval": wrongEval, "feedback": wrongFeedback} {
			if rate := float64(k) / n; math.Abs(rate-p.Misjudge) > 0.04 {
				t.Errorf("%s on right=%v answers is wrong %.3f of the time, want %.2f", what, right, rate, p.Misjudge)
			}
		}
	}
}

func TestSimQALearnsOnlyFromNamedFailures(t *testing.T) {
	qs, _ := Questions()
	m := simModel(t, sim.Params{Skill: 0, Boost: 1})
	gold := func(q Question) string { return FormatParagraphs(q.Gold()) }
	named := sim.NamedFailure + ` the answer "x" does not answer the question.`
	prompts := map[string]func(Question) string{
		"plain": func(q Question) string {
			return render(t, "reflexion_cot", learnData{Input: q.Question, Context: gold(q)})
		},
		"vague": func(q Question) string {
			return render(t, "reflexion_cot", learnData{Input: q.Question, Context: gold(q), LastAttempt: "Answer: x", Reflections: []string{"Be careful."}})
		},
		"named": func(q Question) string {
			return render(t, "reflexion_cot", learnData{Input: q.Question, Context: gold(q), Reflections: []string{named}})
		},
		"refine named": func(q Question) string {
			return render(t, "refine", learnData{Input: q.Question, Context: gold(q), History: []attemptData{{1, "Answer: x", "x", named}}})
		},
		"refine vague": func(q Question) string {
			return render(t, "refine", learnData{Input: q.Question, Context: gold(q), History: []attemptData{{1, "Answer: x", "x", "Not sure."}}})
		},
	}
	for name, prompt := range prompts {
		acc := accuracy(t, m, qs[:30], 2, prompt)
		want := 0.0
		if strings.HasSuffix(name, "named") {
			want = 1
		}
		if acc != want {
			t.Errorf("%s at skill 0, boost 1: EM %.3f, want %.0f", name, acc, want)
		}
	}
}
