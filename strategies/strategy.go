// Package strategies holds the reasoning strategies, each a small type
// implementing Strategy and listed with its typed parameters in
// registry.go: IO, CoT, CoT-SC, ToT (BFS/DFS, and the reference protocol),
// ToT's crosswords DFS, MCTS, ReAct, Reflexion (the harness's, the
// reference HotpotQA agents', the reference programming protocol's), LATS,
// Self-Refine and program-aided reasoning (PAL).
package strategies

import (
	"context"
	"fmt"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/prompts"
	"github.com/reasonbench/reasonbench/strategies/reading"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/verify"
)

// Env is what a strategy gets to solve one instance.
type Env struct {
	Sampler llm.Sampler // recorded and metered for this item
	Task    tasks.Task
	Prompts *prompts.Library
	// Seed is the item's seed, for the strategy's own draws (sampled
	// selection, rollouts, test sampling); requests are seeded by the
	// engine from their identity (llm.Identify), never from it.
	Seed  int64
	Trace Tracer // where trees and trajectories go; nil discards them
	// Checkpoint lets a multi-trial strategy resume an item mid-way after a
	// crash; nil keeps nothing.
	Checkpoint Checkpointer
	// Memory is the long-term memory of reflections (Reflexion); nil keeps
	// them in process for the one item.
	Memory Memory
	// Exec runs model-written programs in the run's sandbox, recording each
	// execution with the item; nil when the run has no sandbox (a strategy
	// that needs one says so with NeedsSandbox and the engine refuses the
	// run before it starts).
	Exec tasks.Executor
	// Verifier scores solutions (--verifier-model, --verifier-kind); nil
	// when the run has none (a strategy that needs one says so with
	// NeedsVerifier and the engine refuses the run before it starts).
	Verifier verify.Verifier
	// Model is the run's model name (--model), for a strategy that hands it
	// on (a program is told it in BENCH_MODEL); requests need not name it.
	Model string
	// Models are the samplers of the other models a ModelUser names
	// (debate's agents), by the name it gives: recorded and metered for
	// this item like Sampler, each costed at its model's price.
	Models map[string]llm.Sampler
	// Judge is the judge role's sampler (--judge-model, --judge-base-url;
	// the run's model by default) for a strategy that asks it (JudgeUser),
	// recorded and metered for this item; nil otherwise.
	Judge llm.Sampler
	// User is the user role's sampler (--user-model; the run's model by
	// default) that an episode's simulated user talks through
	// (tasks.Environment), recorded and metered for this item apart from
	// the agent's calls; nil on tasks without episodes.
	User llm.Sampler
	// Tools are the run's tools from outside the task (--mcp), offered by
	// agents beside the task's own; nil when the run has none.
	Tools tasks.ToolHost
	// Events records what only the strategy sees as an event of the item
	// (an episode's user turns); nil discards. The engine records model
	// calls, tool calls, verifier scores and the verdict itself; a
	// strategy declares the step they belong to with events.WithStep.
	Events events.Recorder
}

// record records an event of the item, if the run keeps them.
func (env Env) record(ctx context.Context, e events.Event) {
	if env.Events != nil {
		env.Events.Record(ctx, e)
	}
}

// JudgeUser is implemented by strategies that may ask the judge role
// (debate's final=judge); UsesJudge says whether this configuration does.
type JudgeUser interface {
	UsesJudge() bool
}

// ModelUser is implemented by strategies whose calls go to models other
// than the run's (debate's models=A,B,C): AgentModels names them, each
// MODEL (on the run's endpoint) or MODEL@NAME (on a named endpoint).
type ModelUser interface {
	AgentModels() []string
}

// ToolUser is implemented by strategies whose agents act with tools (react,
// reflexion with actor=react, lats). UseExternalTools tells the
// configured strategy that the run brings tools (Env.Tools), so a task
// without tools of its own is no longer refused; it reports false when the
// configured strategy acts with none (reflexion's cot actor).
type ToolUser interface {
	UseExternalTools() bool
}

// VerifierUser is implemented by strategies that ask a verifier (bon,
// beam, dvts): NeedsVerifier says why, or "" when the configured strategy
// asks none.
type VerifierUser interface {
	NeedsVerifier() string
}

// SandboxUser is implemented by strategies that run model-written programs
// (pal, reflexion's code actor, react with tools=python): NeedsSandbox says
// why, or "" when the configured strategy runs none.
type SandboxUser interface {
	NeedsSandbox() string
}

// Checkpointer saves an item's progress between trials. On resume, the calls
// and steps of the trials before the saved next trial are kept; the rest of
// the item is redone.
type Checkpointer interface {
	// Save records that trials before next are complete, with state (any
	// JSON-encodable value).
	Save(ctx context.Context, next int, state any) error
	// Load fills state from the last Save and returns its next trial;
	// ok is false when there is none.
	Load(ctx context.Context, state any) (next int, ok bool, err error)
}

// TreeNode is one search-tree node as traced.
type TreeNode struct {
	ID, Parent, Depth          int
	Thought                    string
	Value                      float64
	Selected, Pruned, Terminal bool
	// Visits counts the MCTS iterations whose path went through the node
	// (0 for the other searches); Value is then the node's backed-up Q.
	Visits int
}

// Tracer keeps what a strategy produces beyond its result: search trees and
// agent trajectories (the store implements it per run and item).
type Tracer interface {
	// Tree stores the item's search tree, replacing an earlier one.
	Tree(ctx context.Context, nodes []TreeNode) error
	// Step appends one trajectory step (kind: thought, action, observation,
	// answer, reflection, feedback, ...) of a trial (0 for single-trial
	// strategies).
	Step(ctx context.Context, trial, step int, kind, content string) error
}

// tracer returns env.Trace or one that discards.
func (env Env) tracer() Tracer {
	if env.Trace == nil {
		return discard{}
	}
	return env.Trace
}

type discard struct{}

func (discard) Tree(context.Context, []TreeNode) error               { return nil }
func (discard) Step(context.Context, int, int, string, string) error { return nil }

// Result is a strategy's outcome on one instance.
type Result struct {
	Output string      // the final output the strategy stands by
	Score  tasks.Score // the task's verdict on Output
	// Accuracy is this item's contribution to the run's accuracy, in [0,1]:
	// 1/0 for a single answer, the fraction correct for k independent samples.
	Accuracy float64
	// Metrics are further per-item figures averaged into the run's summary
	// (best_of_k, any_at_b, top1, em, f1, ...).
	Metrics map[string]float64
	// Detail is stored as JSON with the item: samples, votes, trajectories.
	Detail any
}

// Strategy solves instances of a task.
type Strategy interface {
	Solve(ctx context.Context, env Env, inst tasks.Instance) (Result, error)
}

// PromptData is what templates see.
type PromptData struct {
	Input   string
	Context string // reading material shown with the input (a task's ContextRenderer); "" for none
}

// render renders the task's template called name ("cot" → "game24/cot";
// see tasks.TemplateName).
func render(env Env, name string, data any) (string, error) {
	return env.Prompts.Render(tasks.TemplateName(env.Prompts, env.Task, name), data)
}

// userPrompt is a single-turn conversation.
func userPrompt(text string) []llm.Message {
	return []llm.Message{{Role: "user", Content: text}}
}

// sampleScorer is implemented by tasks that record how they score each of
// an item's samples apart (code tasks run sample i's program at site
// "hidden/<i>").
type sampleScorer interface {
	ScoreSample(inst tasks.Instance, output string, i int) tasks.Score
}

// scoreSamples scores every output with the task.
func scoreSamples(env Env, inst tasks.Instance, outputs []string) ([]reading.Sample, int) {
	samples := make([]reading.Sample, len(outputs))
	correct := 0
	ss, perSample := env.Task.(sampleScorer)
	for i, out := range outputs {
		var sc tasks.Score
		if perSample {
			sc = ss.ScoreSample(inst, out, i)
		} else {
			sc = env.Task.Score(inst, out)
		}
		samples[i] = reading.Sample{Output: out, Answer: sc.Answer, Correct: sc.Correct, Reason: sc.Reason, Metrics: sc.Metrics}
		if sc.Correct {
			correct++
		}
	}
	return samples, correct
}

func errNoChoices(purpose string) error {
	return fmt.Errorf("%s: the model returned no choices", purpose)
}

// TaskChecker is implemented by strategies whose parameters depend on the
// task (a vote key, a tool set); the engine calls it before a run starts.
type TaskChecker interface {
	CheckTask(t tasks.Task) error
}

// ChatOnly is implemented by strategies that may send more than one
// message (their own turns, observations, tool calls) in a request: they
// cannot run on a completions endpoint, which takes one prompt. NeedsChat
// says why, or "" when the configured strategy sends one user turn.
type ChatOnly interface {
	NeedsChat() string
}

// askOne samples one completion of a single-turn prompt; call is its
// identity (llm.Request.Call).
func askOne(ctx context.Context, env Env, prompt, purpose, call string, temperature *float64, maxTokens int) (string, error) {
	resp, err := env.Sampler.Sample(ctx, llm.Request{Messages: userPrompt(prompt), Temperature: temperature,
		MaxTokens: maxTokens, Purpose: purpose, Call: call})
	if err != nil {
		return "", err
	}
	if len(resp.Choices) == 0 {
		return "", errNoChoices(purpose)
	}
	return resp.Choices[0].Content, nil
}
