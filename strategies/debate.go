package strategies

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
)

// debate is multi-agent debate (Du et al. 2023): agents answer the task's
// cot prompt, then for rounds-1 more rounds each reads the others'
// previous answers and answers again in its own conversation; the final
// answer is the majority of the last round's answers under the task's
// vote key.
type debate struct {
	agents, rounds int
	temperature    *float64
	maxTokens      int
	voteKey        string
	context        string
	models         []string // each agent's model ("": the run's), or nil
	final          string   // DebateMajority or DebateJudge
}

// The final rules of a debate.
const (
	DebateMajority = "majority" // the last round's majority under the vote key
	DebateJudge    = "judge"    // the judge role reads the transcript and answers
)

var debateParams = []param.Param{
	{Name: "agents", Kind: param.Int, Default: 3, Min: param.Bound(1), Max: param.Bound(64), Show: true, Doc: "agents debating; with 1 the later rounds ask it to double-check its own answer"},
	{Name: "rounds", Kind: param.Int, Default: 2, Min: param.Bound(1), Max: param.Bound(32), Show: true, Doc: "rounds, the first included: round r>0 shows each agent the others' answers of round r-1"},
	temperatureParam("temperature", 0.7, "sampling temperature of every agent's call"),
	{Name: "max_tokens", Kind: param.Int, Default: 0, Min: param.Bound(0), Doc: "completion token limit per call (0: server default)"},
	{Name: "vote_key", Kind: param.String, Default: "", Doc: "what the final majority votes on (as cotsc's vote_key; empty: the task's first)"},
	contextParam,
	{Name: "final", Kind: param.String, Default: DebateMajority, Allowed: []string{DebateMajority, DebateJudge}, Late: true, Doc: "the final answer: majority (of the last round's answers under the vote key) or judge (the judge role, --judge-model or the run's model, reads every round's answers and answers; call judge)"},
	{Name: "models", Kind: param.String, Default: "", Late: true, Doc: "each agent's model, comma-separated, one per agent: MODEL (on the run's endpoint) or MODEL@NAME (on the endpoint --endpoint NAME=URL names); empty: every agent is the run's model"},
}

func newDebate(v param.Values) (Strategy, error) {
	v = v.WithDefaults(debateParams) // models is Late: absent at its default
	s := &debate{agents: v.Int("agents"), rounds: v.Int("rounds"), temperature: v.Temperature("temperature"),
		maxTokens: v.Int("max_tokens"), voteKey: v.String("vote_key"), context: v.String("context"), final: v.String("final")}
	if m := v.String("models"); m != "" {
		for _, name := range strings.Split(m, ",") {
			name = strings.TrimSpace(name)
			if name == "" || strings.HasPrefix(name, "@") || strings.HasSuffix(name, "@") {
				return nil, fmt.Errorf("parameter models=%s: want MODEL or MODEL@ENDPOINT for each agent, comma-separated", m)
			}
			s.models = append(s.models, name)
		}
		if len(s.models) != s.agents {
			return nil, fmt.Errorf("parameter models=%s names %d models for %d agents: name one per agent", m, len(s.models), s.agents)
		}
	}
	return s, nil
}

// UsesJudge: final=judge asks the judge role.
func (s *debate) UsesJudge() bool { return s.final == DebateJudge }

// AgentModels lists the models the agents ask besides the run's, in
// order of first use.
func (s *debate) AgentModels() []string {
	var out []string
	for _, m := range s.models {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// agentSampler is agent a's sampler: its model's, else the run's.
func (s *debate) agentSampler(env Env, a int) (llm.Sampler, error) {
	if s.models == nil {
		return env.Sampler, nil
	}
	smp, ok := env.Models[s.models[a]]
	if !ok {
		return nil, fmt.Errorf("debate agent %d: no sampler for model %s", a, s.models[a])
	}
	return smp, nil
}

// debateTemplates: the first round asks the task's cot prompt; later
// rounds show the others' answers (debate), or a lone agent its own
// (debate_alone).
func debateTemplates(v param.Values) []string {
	v = v.WithDefaults(debateParams)
	out := []string{"cot"}
	switch {
	case v.Int("rounds") < 2:
	case v.Int("agents") < 2:
		out = append(out, "debate_alone")
	default:
		out = append(out, "debate")
	}
	if v.String("final") == DebateJudge {
		out = append(out, "debate_judge")
	}
	return out
}

// CheckTask rejects a vote key the task does not know.
func (s *debate) CheckTask(t tasks.Task) error {
	if s.voteKey != "" && !slices.Contains(t.VoteKeys(), s.voteKey) {
		return fmt.Errorf("parameter vote_key=%s: task %s knows %v", s.voteKey, t.Name(), t.VoteKeys())
	}
	return checkContext(t, s.context)
}

// NeedsChat: from the second round on an agent's request is its
// conversation so far.
func (s *debate) NeedsChat() string {
	if s.rounds > 1 {
		return "debate's later rounds send each agent its conversation (its answers and the others')"
	}
	return ""
}

// DebateData is what the debate templates see: the task's prompt data,
// the round (1-based among the later rounds' prompts: the first debate
// prompt is round 1) and the other agents' answers of the previous round
// in agent order (empty for debate_alone).
type DebateData struct {
	PromptData
	Round  int
	Others []string
}

func (s *debate) Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error) {
	data, err := promptData(env.Task, inst, s.context)
	if err != nil {
		return Result{}, err
	}
	first, err := render(env, "cot", data)
	if err != nil {
		return Result{}, err
	}
	convs := make([][]llm.Message, s.agents)
	for a := range convs {
		convs[a] = userPrompt(first)
	}
	detail := reading.DebateDetail{Agents: s.agents, Models: s.models}
	var prev []string
	for r := range s.rounds {
		if r > 0 {
			for a := range convs {
				msg, err := s.debatePrompt(env, data, r, a, prev)
				if err != nil {
					return Result{}, err
				}
				convs[a] = append(convs[a], llm.Message{Role: "user", Content: msg})
			}
		}
		outs, err := s.round(ctx, env, r, convs)
		if err != nil {
			return Result{}, err
		}
		for a, out := range outs {
			convs[a] = append(convs[a], llm.Message{Role: "assistant", Content: out})
		}
		detail.Rounds = append(detail.Rounds, s.tally(env, inst, outs))
		prev = outs
	}
	last := detail.Rounds[len(detail.Rounds)-1]
	res := Result{Metrics: map[string]float64{}}
	if last.Vote.Winner >= 0 {
		res.Output = prev[last.Vote.Winner]
	}
	if s.final == DebateJudge {
		if res.Output, err = s.judge(ctx, env, data, detail); err != nil {
			return Result{}, err
		}
		res.Metrics["last_round_majority"] = boolFloat(last.Correct)
		detail.Judged = &res.Output
	}
	res.Detail = detail
	correct := 0
	for _, t := range last.Turns {
		if t.Correct {
			correct++
		}
	}
	res.Metrics["agent_accuracy"] = float64(correct) / float64(len(last.Turns))
	res.Metrics["first_round_majority"] = boolFloat(detail.Rounds[0].Correct)
	res.Score = env.Task.Score(inst, res.Output)
	res.Accuracy = boolFloat(res.Score.Correct)
	res.Metrics = mergeMetrics(res.Metrics, res.Score.Metrics)
	return res, nil
}

// DebateJudgeData is what the debate_judge template sees: the task's
// prompt data and every round's answers, agents in order.
type DebateJudgeData struct {
	PromptData
	Rounds []DebateJudgeRound
}

// DebateJudgeRound is one round's answers as the judge reads them.
type DebateJudgeRound struct {
	Round   int // from 1
	Answers []string
}

// judge asks the judge role (Env.Judge) for the final answer after
// reading the transcript; its answer is the output the task scores.
func (s *debate) judge(ctx context.Context, env Env, data PromptData, d reading.DebateDetail) (string, error) {
	if env.Judge == nil {
		return "", fmt.Errorf("debate final=judge: the run has no judge")
	}
	jd := DebateJudgeData{PromptData: data}
	for r, rd := range d.Rounds {
		jr := DebateJudgeRound{Round: r + 1}
		for _, t := range rd.Turns {
			jr.Answers = append(jr.Answers, t.Output)
		}
		jd.Rounds = append(jd.Rounds, jr)
	}
	prompt, err := render(env, "debate_judge", jd)
	if err != nil {
		return "", err
	}
	resp, err := env.Judge.Sample(ctx, llm.Request{Messages: userPrompt(prompt), Temperature: s.temperature,
		MaxTokens: s.maxTokens, Purpose: "judge", Call: "judge"})
	if err != nil {
		return "", fmt.Errorf("debate judge: %w", err)
	}
	if len(resp.Choices) == 0 {
		return "", errNoChoices("judge")
	}
	return resp.Choices[0].Content, nil
}

// debatePrompt renders agent a's prompt of round r from the previous
// round's answers of the others, in agent order, as the reference builds
// it (each agent sees every other agent's latest answer).
func (s *debate) debatePrompt(env Env, data PromptData, r, a int, prev []string) (string, error) {
	d := DebateData{PromptData: data, Round: r}
	if s.agents == 1 {
		return render(env, "debate_alone", d)
	}
	for b, out := range prev {
		if b != a {
			d.Others = append(d.Others, out)
		}
	}
	return render(env, "debate", d)
}

// round asks every agent at once; each call is its own draw.
func (s *debate) round(ctx context.Context, env Env, r int, convs [][]llm.Message) ([]string, error) {
	outs := make([]string, len(convs))
	errs := make([]error, len(convs))
	var wg sync.WaitGroup
	for a, conv := range convs {
		smp, err := s.agentSampler(env, a)
		if err != nil {
			return nil, err
		}
		wg.Go(func() {
			resp, err := smp.Sample(ctx, llm.Request{Messages: slices.Clone(conv), Temperature: s.temperature,
				MaxTokens: s.maxTokens, Purpose: "debate", Call: reading.DebateCall(r, a)})
			switch {
			case err != nil:
				errs[a] = fmt.Errorf("debate round %d agent %d: %w", r, a, err)
			case len(resp.Choices) == 0:
				errs[a] = errNoChoices("debate")
			default:
				outs[a] = resp.Choices[0].Content
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return outs, nil
}

// tally scores a round's answers and its majority.
func (s *debate) tally(env Env, inst tasks.Instance, outs []string) reading.DebateRound {
	samples, _ := scoreSamples(env, inst, outs)
	vote := Vote(env.Task, inst, outs, s.voteKey)
	rd := reading.DebateRound{Vote: vote, Turns: make([]reading.DebateTurn, len(outs))}
	for a, sm := range samples {
		rd.Turns[a] = reading.DebateTurn{Output: sm.Output, Key: vote.Keys[a], Answer: sm.Answer, Correct: sm.Correct}
	}
	if vote.Winner >= 0 {
		rd.Correct = samples[vote.Winner].Correct
	}
	return rd
}
