package creative

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/tasks/creative"
)

func respond(t *testing.T, text string, p sim.Params, seed uint64) string {
	t.Helper()
	c, ok := (Responder{}).Respond(sim.Prompt{Messages: []llm.Message{{Role: "user", Content: text}}}, rand.New(rand.NewPCG(seed, 0)), p)
	if !ok {
		t.Fatalf("not recognised: %.80q", text)
	}
	return c.Content
}

// TestJudgeAndVoteFollowLinks: with no misjudging, the judge scores a
// skilled writer's passages above an unskilled one's, and the voter picks
// the linked plan.
func TestJudgeAndVoteFollowLinks(t *testing.T) {
	lib, err := prompts.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	insts, _ := creative.NewTask().Instances()
	io, _ := lib.Render("creative/io", struct{ Input string }{insts[0].Input})
	score, _ := lib.Render("creative/score", nil)
	judge := func(skill float64) float64 {
		p := sim.Params{Skill: skill}
		sum := 0.0
		for s := range 20 {
			out := respond(t, io, p, uint64(s))
			if skill == 1 && !creative.EndsInInput(insts[0].Input, out) {
				t.Errorf("a skilled passage misses the endings: %q", out)
			}
			sum += creative.MeanScore([]string{respond(t, score+out, p, uint64(s))})
		}
		return sum / 20
	}
	if hi, lo := judge(1), judge(0); hi != 10 || lo >= 5 {
		t.Errorf("judge: skill 1 scores %v, skill 0 %v", hi, lo)
	}
	vote, _ := lib.Render("creative/vote", nil)
	vote += "Choice 1:\nPlan:\n1. Write about something else entirely.\n2. Write about something else entirely.\n" +
		"Choice 2:\nPlan:\n1. Lead from the handstand towards the hands.\n2. Lead from the hands towards the steak.\n"
	if got := respond(t, vote, sim.Params{}, 1); !strings.HasSuffix(got, "The best choice is 2") {
		t.Errorf("vote: %q", got)
	}
}

// choiceLine is a choice as a vote prompt lists it.
var choiceLine = regexp.MustCompile(`(?m)^Choice [0-9]+:\n`)

// FuzzRespond: any text in a bundled prompt gets an answer the task reads,
// never a panic: a judge answer names a score of 1-10, and a vote answer
// names a listed choice (or says there is none to name).
func FuzzRespond(f *testing.F) {
	lib, err := prompts.Bundled()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(0, "A b. C d.\n")
	f.Add(1, "x\nPlan:\n1. a b c\n")
	f.Add(2, "Choice 1:\n\n\nChoice 2:\nPassage:\n\n")
	f.Add(3, "\n\n.\n\n")
	f.Fuzz(func(t *testing.T, kind int, body string) {
		names := []string{"io", "cot", "vote", "score"}
		name := names[(kind%4+4)%4]
		text, err := lib.Render("creative/"+name, struct{ Input string }{body})
		if err != nil {
			t.Fatal(err)
		}
		if name == "vote" || name == "score" {
			text += body
		}
		out := respond(t, text, sim.DefaultParams(), 1)
		switch name {
		case "score":
			if s, ok := creative.ParseScore(out); !ok || s < 1 || s > 10 {
				t.Fatalf("judge answer %q reads as %d %v", out, s, ok)
			}
		case "vote":
			// The choices are the prompt's "Choice i:" lines; the answer's
			// last line names one of them, by its position.
			n := len(choiceLine.FindAllStringIndex(text, -1))
			last := out[strings.LastIndexByte(out, '\n')+1:]
			k, err := strconv.Atoi(strings.TrimPrefix(last, "The best choice is "))
			if n > 0 && (err != nil || k < 1 || k > n) || n == 0 && err == nil {
				t.Fatalf("vote %q over %d choices", out, n)
			}
		}
	})
}
