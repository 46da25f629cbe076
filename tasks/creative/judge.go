package creative

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/tasks"
)

// JudgeSamples is how many judge samples a score averages, the paper's 5;
// JudgeTemperature the reference's default temperature for them.
const (
	JudgeSamples     = 5
	JudgeTemperature = 0.7
)

// judging is one item's judge: each distinct output is judged once, the
// k-th one under call identity "p{k}/judge".
type judging struct {
	ctx    context.Context
	j      tasks.Judge
	mu     sync.Mutex
	scores map[string]float64
	err    error
}

// WithJudge returns a copy of the task that asks j for coherency scores.
func (t *Task) WithJudge(ctx context.Context, j tasks.Judge) (tasks.Task, func() error) {
	jd := &judging{ctx: ctx, j: j, scores: map[string]float64{}}
	return &Task{judge: jd}, func() error {
		jd.mu.Lock()
		defer jd.mu.Unlock()
		return jd.err
	}
}

// scoreRe is the reference's reading of a judge answer: the number after
// the last "coherency score is".
var scoreRe = regexp.MustCompile(`(?s)^.*coherency score is (\d+)`)

// ParseScore reads one judge answer; ok is false when it names no score.
// Two departures from the reference, both on hostile text only: digits
// are ASCII (Python's \d also takes other scripts' digits), and a number
// too large for an int names no score (Python keeps any integer).
func ParseScore(answer string) (int, bool) {
	m := scoreRe.FindStringSubmatch(answer)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// MeanScore is the reference's score: the mean of the answers that name
// one, 0 when none does.
func MeanScore(answers []string) float64 {
	sum, n := 0.0, 0 // a float sum: huge scores must not wrap around
	for _, a := range answers {
		if s, ok := ParseScore(a); ok {
			sum += float64(s)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// score judges output's passage; false after a failed judge call.
func (jd *judging) score(output string) (float64, bool) {
	jd.mu.Lock()
	defer jd.mu.Unlock()
	if jd.err != nil {
		return 0, false
	}
	if s, ok := jd.scores[output]; ok {
		return s, true
	}
	prompt, err := jd.j.Prompts.Render("creative/score", nil)
	if err != nil {
		jd.err = err
		return 0, false
	}
	// One draw per distinct passage, named by its digest, so the judge's
	// answers do not depend on the order passages are scored in.
	sum := sha256.Sum256([]byte(output))
	call := "judge/" + hex.EncodeToString(sum[:8])
	resp, err := jd.j.Sampler.Sample(jd.ctx, llm.Request{Messages: []llm.Message{{Role: "user", Content: prompt + Passage(output)}},
		N: JudgeSamples, Temperature: llm.Temp(JudgeTemperature), Purpose: "judge", Call: call})
	if err != nil {
		jd.err = fmt.Errorf("judge %s (the judge: --judge-model at --judge-base-url, default the run's): %w", call, err)
		return 0, false
	}
	s := MeanScore(resp.Texts())
	jd.scores[output] = s
	return s, true
}
