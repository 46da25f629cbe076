package hotpotqa

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/simulator/reading"
	"github.com/reasonbench/reasonbench/tasks/hotpotqa"
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
		if strings.Contains(strings.ToLower(text), reading.MarkerLastStep) {
			t.Errorf("hotpotqa/%s says %q", name, reading.MarkerLastStep)
		}
	}
	// Empty memory renders the plain prompts; a full one goes before the
	// question, which stays last.
	qs, _ := hotpotqa.Questions()
	q := qs[3]
	ctx := hotpotqa.FormatParagraphs(q.Gold())
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
	qs, _ := hotpotqa.Questions()
	q := qs[4]
	m := simModel(t, sim.DefaultParams())
	for _, c := range []struct {
		actor, answer string
		want          string
	}{
		{"cot", "Neverland", reading.AnsweredMarker + `Neverland"`},
		{"react", "Neverland", reading.AnsweredMarker + `Neverland"`},
		{"react", "(none)", "I gave no answer in time"},
		{"cot", q.Answer, reading.AnsweredMarker + q.Answer + `"`},
	} {
		// A reflection is asked for after a failed trial, so it names the
		// failure whatever the answer was: the model cannot check it.
		prompt := render(t, "reflect", learnData{Input: q.Question, Actor: c.actor, Trajectory: "Thought: ...", Answer: c.answer})
		got := ask(t, m, prompt, 1)
		if !strings.Contains(got, sim.NamedFailure) || !strings.Contains(got, c.want) {
			t.Errorf("%s reflection on %q:\n%s", c.actor, c.answer, got)
		}
	}
}

// TestSimJudgesAnswersAtTheRate: self-evaluation and feedback call the
// model's own considered answer correct, and another incorrect, each
// wrong with probability Misjudge; the gold answer plays no part.
func TestSimJudgesAnswersAtTheRate(t *testing.T) {
	qs, _ := hotpotqa.Questions()
	p := sim.DefaultParams()
	p.Misjudge = 0.25
	m := simModel(t, p)
	const n = 1000
	mine := make([]string, len(qs))
	for i, q := range qs {
		mine[i] = reading.Consider(mustRead(t, render(t, "cot", qaData{q.Question, hotpotqa.FormatParagraphs(q.Gold())}))).Answers[0]
	}
	for _, own := range []bool{true, false} {
		wrongEval, wrongFeedback := 0, 0
		for i := range n {
			q := qs[i%len(qs)]
			ctx := hotpotqa.FormatParagraphs(q.Gold())
			ans := mine[i%len(qs)]
			if !own {
				ans = "Neverland"
			}
			ev := ask(t, m, render(t, "self_eval", learnData{Input: q.Question, Context: ctx, Trajectory: "Answer: " + ans, Answer: ans}), int64(i))
			if strings.HasSuffix(ev, "Judgement: correct") != own {
				wrongEval++
			}
			fb := ask(t, m, render(t, "feedback", learnData{Input: q.Question, Context: ctx, Output: "Answer: " + ans, Answer: ans}), int64(i))
			stop := strings.Contains(fb, "No change needed.")
			if stop != own {
				wrongFeedback++
			}
			if strings.Contains(fb, sim.NamedFailure) == stop {
				t.Fatalf("feedback names a failure and stops, or neither: %s", fb)
			}
			if reading.LineAfter(fb, "Score:") == "" {
				t.Fatalf("feedback without a score: %s", fb)
			}
		}
		for what, k := range map[string]int{"self_eval": wrongEval, "feedback": wrongFeedback} {
			if rate := float64(k) / n; math.Abs(rate-p.Misjudge) > 0.04 {
				t.Errorf("%s on own=%v answers is wrong %.3f of the time, want %.2f", what, own, rate, p.Misjudge)
			}
		}
	}
}

// TestSimQALearnsOnlyFromNamedFailures: at skill 0 the model never gives
// its considered answer; a critique naming a failure (boost 1) makes it
// give it always, a vague one changes nothing.
func TestSimQALearnsOnlyFromNamedFailures(t *testing.T) {
	qs, _ := hotpotqa.Questions()
	m := simModel(t, sim.Params{Skill: 0, Boost: 1})
	gold := func(q hotpotqa.Question) string { return hotpotqa.FormatParagraphs(q.Gold()) }
	named := reading.Reflection("x")
	prompts := map[string]func(hotpotqa.Question) string{
		"plain": func(q hotpotqa.Question) string {
			return render(t, "reflexion_cot", learnData{Input: q.Question, Context: gold(q)})
		},
		"vague": func(q hotpotqa.Question) string {
			return render(t, "reflexion_cot", learnData{Input: q.Question, Context: gold(q), LastAttempt: "Answer: x", Reflections: []string{"Be careful."}})
		},
		"named": func(q hotpotqa.Question) string {
			return render(t, "reflexion_cot", learnData{Input: q.Question, Context: gold(q), Reflections: []string{named}})
		},
		"refine named": func(q hotpotqa.Question) string {
			return render(t, "refine", learnData{Input: q.Question, Context: gold(q), History: []attemptData{{1, "Answer: x", "x", named}}})
		},
		"refine vague": func(q hotpotqa.Question) string {
			return render(t, "refine", learnData{Input: q.Question, Context: gold(q), History: []attemptData{{1, "Answer: x", "x", "Not sure."}}})
		},
	}
	for name, prompt := range prompts {
		own, total := 0, 0
		for _, q := range qs[:30] {
			p := prompt(q)
			b := reading.Consider(mustRead(t, p))
			if len(b.Answers) < 2 {
				continue // nothing else to say
			}
			for seed := range int64(2) {
				total++
				if ans, _ := hotpotqa.ExtractAnswer(ask(t, m, p, seed)); reading.SameText(ans, b.Answers[0]) {
					own++
				}
			}
		}
		want := 0
		if strings.HasSuffix(name, "named") {
			want = total
		}
		if own != want {
			t.Errorf("%s at skill 0, boost 1: the considered answer %d of %d times, want %d", name, own, total, want)
		}
	}
}

// TestSimAvoidsRejectedAnswers: an answer a reflection quotes as wrong is
// not given again while another candidate remains.
func TestSimAvoidsRejectedAnswers(t *testing.T) {
	qs, _ := hotpotqa.Questions()
	m := simModel(t, sim.Params{Skill: 1})
	checked := 0
	for _, q := range qs[:30] {
		ctx := hotpotqa.FormatParagraphs(q.Gold())
		b := reading.Consider(mustRead(t, render(t, "cot", qaData{q.Question, ctx})))
		if len(b.Answers) < 2 {
			continue
		}
		checked++
		p := render(t, "reflexion_cot", learnData{Input: q.Question, Context: ctx, Reflections: []string{reading.Reflection(b.Answers[0])}})
		if ans, _ := hotpotqa.ExtractAnswer(ask(t, m, p, 1)); reading.SameText(ans, b.Answers[0]) {
			t.Errorf("%s: repeats the rejected %q", q.ID, ans)
		}
	}
	if checked < 10 {
		t.Errorf("only %d questions checked", checked)
	}
}

func mustRead(t *testing.T, prompt string) reading.Reading {
	t.Helper()
	r, ok := readPrompt(prompt)
	if !ok {
		t.Fatalf("no question in\n%s", prompt)
	}
	return r
}
