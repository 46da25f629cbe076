package game24

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks/game24"
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

func renderLearn(t *testing.T, name string, d learnData) string {
	t.Helper()
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	s, err := lib.Render("game24/"+name, d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ask samples one reply to a prompt.
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
		"reflect":               {markerTask, sim.MarkerReflect},
		"self_eval":             {markerTask, sim.MarkerSelfEval},
		"feedback":              {markerTask, sim.MarkerFeedback},
		"refine":                {markerTask, sim.MarkerRefine},
		"reflexion_cot":         {markerTask, markerCoT},
		"reflexion_react_text":  {markerReAct, markerReActText},
		"reflexion_react_json":  {markerReAct, markerReActJSON},
		"reflexion_react_tools": {markerReAct},
	} {
		text, ok := lib.Text("game24/" + name)
		if !ok {
			t.Errorf("no template game24/%s", name)
			continue
		}
		for _, m := range markers {
			if !strings.Contains(text, m) {
				t.Errorf("game24/%s lacks %q", name, m)
			}
		}
	}
	// No template may name a failure the way the simulator's critiques do.
	for _, name := range lib.Names() {
		if text, _ := lib.Text(name); strings.Contains(text, sim.NamedFailure) {
			t.Errorf("%s contains %q, which the simulator counts as a critique", name, sim.NamedFailure)
		}
	}
	// The memory section comes before the puzzle, which stays last, and
	// shows nothing when empty.
	plain := renderBundled(t, "cot", "4 5 6 10")
	if got := renderLearn(t, "reflexion_cot", learnData{Input: "4 5 6 10"}); got != plain {
		t.Errorf("reflexion_cot without memory differs from cot:\n%s", got)
	}
	full := renderLearn(t, "reflexion_cot", learnData{Input: "4 5 6 10", LastAttempt: "Steps:\n4 + 5 = 9 (left: 6 9 10)\nAnswer: x = 24",
		Reflections: []string{"first", "second"}})
	if !strings.HasSuffix(full, "(END PREVIOUS TRIAL)\n\nThe following reflection(s) give a plan to avoid failing to solve the puzzle in the same way you did previously. Use them to improve your strategy of correctly solving it.\nReflections:\n- first\n- second\nInput: 4 5 6 10\n") {
		t.Errorf("reflexion_cot with memory:\n%s", full)
	}
	if nums, ok := lastInput(full); !ok || len(nums) != 4 || nums[0] != 4 {
		t.Errorf("the simulator reads %v from the memory prompt", nums)
	}
}

func TestSimReflectionNamesRealFailures(t *testing.T) {
	m := simModel(t, sim.DefaultParams())
	for _, c := range []struct {
		traj, answer, want string
	}{
		{"Steps:\n4 + 5 = 10 (left: 6 10 10)\n10 + 10 = 20 (left: 6 20)\n6 + 20 = 26 (left: 26)\nAnswer: 6 + (10 + (4 + 5)) = 24",
			"6 + (10 + (4 + 5))", "the step 4 + 5 = 10 has wrong arithmetic, since 4 + 5 = 9"},
		{"Steps:\n10 - 6 = 4 (left: 4 4 5)\n4 + 4 = 8 (left: 5 8)\n5 + 8 = 13 (left: 13)\nAnswer: 5 + (4 + (10 - 6)) = 24",
			"5 + (4 + (10 - 6))", "after the step 4 + 4 = 8 the numbers left (5 8) cannot make 24"},
		{"Steps:\nAnswer: 4 * 5 + 10 - 6 - 1 = 24", "4 * 5 + 10 - 6 - 1", "the final expression 4 * 5 + 10 - 6 - 1 is wrong"},
		{"I give up.", "(none)", "I gave no final expression"},
	} {
		prompt := renderLearn(t, "reflect", learnData{Input: "4 5 6 10", Actor: "cot", Trajectory: c.traj, Answer: c.answer})
		got := ask(t, m, prompt, 1)
		if !strings.HasPrefix(got, sim.NamedFailure) || !strings.Contains(got, c.want) {
			t.Errorf("reflection on %q:\n%s\nwant it to name %q", c.traj, got, c.want)
		}
	}
	right := renderLearn(t, "reflect", learnData{Input: "4 5 6 10", Actor: "cot", Trajectory: "Answer: 4 * 5 + 10 - 6 = 24", Answer: "4 * 5 + 10 - 6"})
	if got := ask(t, m, right, 1); strings.Contains(got, sim.NamedFailure) {
		t.Errorf("a right attempt's reflection names a failure: %s", got)
	}
}

func TestSimJudgementsMisjudgeAtTheRate(t *testing.T) {
	p := sim.DefaultParams()
	p.Misjudge = 0.2
	m := simModel(t, p)
	const n = 2000
	for _, c := range []struct {
		answer string
		right  bool
	}{{"4 * 5 + 10 - 6", true}, {"(10 - 6) * (5 + 4)", false}} {
		wrongEval, wrongFeedback := 0, 0
		evPrompt := renderLearn(t, "self_eval", learnData{Input: "4 5 6 10", Trajectory: "Answer: " + c.answer + " = 24", Answer: c.answer})
		fbPrompt := renderLearn(t, "feedback", learnData{Input: "4 5 6 10", Output: "Answer: " + c.answer + " = 24", Answer: c.answer})
		for seed := range int64(n) {
			ev := ask(t, m, evPrompt, seed)
			if strings.HasSuffix(ev, "Judgement: correct") != c.right {
				wrongEval++
			}
			fb := ask(t, m, fbPrompt, seed)
			stop := strings.Contains(fb, "No change needed.")
			if stop && !strings.HasSuffix(fb, "Score: 10/10") {
				t.Fatalf("stop without full score: %s", fb)
			}
			if stop != c.right {
				wrongFeedback++
			}
			// Only feedback on a really wrong answer names a failure.
			if strings.Contains(fb, sim.NamedFailure) && (c.right || stop) {
				t.Fatalf("feedback names a failure of %q: %s", c.answer, fb)
			}
		}
		for what, k := range map[string]int{"self_eval": wrongEval, "feedback": wrongFeedback} {
			if rate := float64(k) / n; math.Abs(rate-p.Misjudge) > 0.03 {
				t.Errorf("%s on a %v answer is wrong %.3f of the time, want %.2f", what, c.right, rate, p.Misjudge)
			}
		}
	}
}

func TestSimLearnsOnlyFromNamedFailures(t *testing.T) {
	// Skill 0 plays any move; each critique naming a failure adds Boost.
	p := sim.Params{Skill: 0, Slip: 0, Misjudge: 0, Boost: 1, Focus: 0}
	m := simModel(t, p)
	all, err := game24.Puzzles()
	if err != nil {
		t.Fatal(err)
	}
	named := sim.NamedFailure + " the step 4 + 5 = 10 has wrong arithmetic."
	accuracy := func(d func(puzzle string) (string, learnData)) float64 {
		ok := 0
		for _, pz := range all[900:950] {
			name, data := d(pz.Text())
			if game24.Check(pz.Numbers, ask(t, m, renderLearn(t, name, data), 1)).Correct {
				ok++
			}
		}
		return float64(ok) / 50
	}
	base := accuracy(func(in string) (string, learnData) { return "reflexion_cot", learnData{Input: in} })
	vague := accuracy(func(in string) (string, learnData) {
		return "reflexion_cot", learnData{Input: in, LastAttempt: "Steps:\nAnswer: 1 = 24", Reflections: []string{"I should be careful."}}
	})
	boosted := accuracy(func(in string) (string, learnData) {
		return "reflexion_cot", learnData{Input: in, Reflections: []string{named}}
	})
	refined := accuracy(func(in string) (string, learnData) {
		return "refine", learnData{Input: in, History: []attemptData{{Iteration: 1, Output: "Answer: 1 = 24", Feedback: named}}}
	})
	doubted := accuracy(func(in string) (string, learnData) {
		return "refine", learnData{Input: in, History: []attemptData{{Iteration: 1, Output: "Answer: 1 = 24", Feedback: "I am not sure."}}}
	})
	if base > 0.5 || vague > 0.5 || doubted > 0.5 || boosted != 1 || refined != 1 {
		t.Errorf("accuracy at skill 0: plain %.2f, vague memory %.2f, refine after vague feedback %.2f; with a named failure (boost 1): reflexion %.2f, refine %.2f",
			base, vague, doubted, boosted, refined)
	}
	if got := sim.Boosted(sim.Prompt{Messages: []llm.Message{{Role: "user", Content: named + "\n" + named}}}, sim.Params{Skill: 0.5, Boost: 0.2}); math.Abs(got.Skill-0.9) > 1e-9 {
		t.Errorf("two named failures at boost 0.2 give skill %v, want 0.9", got.Skill)
	}
}
