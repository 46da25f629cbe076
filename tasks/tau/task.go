// τ-bench's domains as reasonbench tasks: each item an episode with a
// simulated user (tasks.Environment).

package tau

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/pyrand"
	"github.com/reasonbench/reasonbench/pyval"
	"github.com/reasonbench/reasonbench/tasks"
	"github.com/reasonbench/reasonbench/tasks/tau/user"
)

// TaskNames are the task names of each (domain, version, split): tau-DOMAIN
// for the test split at HEAD, tau-retail-SPLIT for retail's other splits,
// and the same with -7362a17 for the logged run's version.
func TaskName(domain, version, split string) string {
	n := "tau-" + domain
	if split != "test" {
		n += "-" + split
	}
	if version != VersionHead {
		n += "-" + version
	}
	return n
}

// EnvTask is one split of a domain at a version as a task: its items are
// the split's tasks; solving one is an episode (a conversation with the
// simulated user on a fresh copy of the database), scored by the
// reference's reward.
type EnvTask struct {
	name  string
	dom   *Domain
	split string
	tasks []Task
}

// NewTask loads the task of a domain's split at a version.
func NewTask(domain, version, split string) (*EnvTask, error) {
	dom, err := Load(domain, version)
	if err != nil {
		return nil, err
	}
	ts, err := dom.Tasks(split)
	if err != nil {
		return nil, err
	}
	return &EnvTask{name: TaskName(domain, version, split), dom: dom, split: split, tasks: ts}, nil
}

func (t *EnvTask) Name() string { return t.name }

// Domain is the task's domain at its version.
func (t *EnvTask) Domain() *Domain { return t.dom }

// Instances are the split's tasks; an instance's input is the user's
// instruction (what the simulated user is told), its Data the *Task.
func (t *EnvTask) Instances() ([]tasks.Instance, error) {
	out := make([]tasks.Instance, len(t.tasks))
	for i := range t.tasks {
		tk := &t.tasks[i]
		out[i] = tasks.Instance{Index: tk.Index, Key: fmt.Sprintf("%s/%s/%d", t.dom.name, t.split, tk.Index), Input: tk.Instruction, Data: tk}
	}
	return out, nil
}

// Score: an episode is scored by its reward (Environment), never by an
// output's text.
func (t *EnvTask) Score(tasks.Instance, string) tasks.Score {
	return tasks.Score{Reason: "an episode is scored by its reward, not by an output"}
}

func (t *EnvTask) AnswerKey(tasks.Instance, string, string) (string, bool) { return "", false }
func (t *EnvTask) VoteKeys() []string                                      { return nil }

// TemplateFolders: every domain and version uses the templates of tau/.
func (t *EnvTask) TemplateFolders() []string { return []string{user.Folder} }

// UserStrategies are the reference's simulated users, llm first.
func (t *EnvTask) UserStrategies() []string { return user.Strategies() }

// Dataset names the data an episode reads: the domain's files at its
// version (the version is part of the digest).
func (t *EnvTask) Dataset() tasks.Dataset {
	return tasks.Dataset{Name: t.name, SHA256: t.dom.DataDigest(), Rows: len(t.tasks)}
}

// ScoringRule says which reference's reward scores the run.
func (t *EnvTask) ScoringRule() string {
	if t.dom.version == Version7362a17 {
		return "tau/7362a17: τ-bench's reward at 7362a17 (a task with outputs scored by its outputs alone, else the database's hash against the gold actions')"
	}
	return "tau/head: τ-bench's reward at 59a200c (the database's hash against the gold actions', and every required output said)"
}

// FewShot is the few-shot agent's system turn addition for trial of inst:
// n displays drawn as run.py draws them, with --seed seed, the whole split
// as its range (start 0, end the split's size), one worker and no shuffle:
// random.seed(seed), one random.randint(0, len(tasks)) when the first
// environment is made without a task index, then one random.sample of the
// displays per episode, trial by trial, task by task. A narrower range
// draws what the whole split's run draws for its tasks.
func (t *EnvTask) FewShot(inst tasks.Instance, trial, n int, seed int64) (string, error) {
	displays := t.dom.FewShot()
	if n > len(displays) {
		return "", fmt.Errorf("fewshot=%d: the %s domain has %d example dialogues", n, t.dom.name, len(displays))
	}
	pos := -1
	for i := range t.tasks {
		if t.tasks[i].Index == inst.Index {
			pos = i
		}
	}
	if pos < 0 {
		return "", fmt.Errorf("fewshot: item %d is not a task of %s", inst.Index, t.name)
	}
	r := pyrand.New(uint64(seed))
	r.RandInt(0, len(t.tasks))
	var idx []int
	for range trial*len(t.tasks) + pos + 1 {
		idx = r.Sample(len(displays), n)
	}
	parts := make([]string, len(idx))
	for i, j := range idx {
		parts[i] = fmt.Sprintf("Example %d:\n%s", i+1, displays[j])
	}
	return strings.Join(parts, "\n\n"), nil
}

// Episode starts trial of inst on a fresh database with its simulated user.
func (t *EnvTask) Episode(ctx context.Context, inst tasks.Instance, trial int, u tasks.User) (tasks.Episode, error) {
	tk, ok := inst.Data.(*Task)
	if !ok {
		return nil, fmt.Errorf("%s: item %d is not a τ-bench task", t.name, inst.Index)
	}
	sim, err := user.New("", trial, u)
	if err != nil {
		return nil, err
	}
	return &envEpisode{task: tk, dom: t.dom, db: t.dom.NewDB(), sim: sim}, nil
}

// envEpisode is one trial: the reference's Env for one task.
type envEpisode struct {
	task    *Task
	dom     *Domain
	db      *DB
	sim     *user.Simulator
	actions []Action
	done    bool
	outcome *events.Outcome
}

func (e *envEpisode) Policy() string { return e.dom.Wiki() }

func (e *envEpisode) Tools() []tasks.EnvTool {
	var out []tasks.EnvTool
	for _, tl := range e.dom.Tools() {
		var spec struct {
			Function struct {
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		json.Unmarshal(tl.JSON, &spec)
		out = append(out, tasks.EnvTool{Name: tl.Name, Description: tl.Description, Parameters: spec.Function.Parameters, Spec: tl.JSON})
	}
	return out
}

// ToolsJSON is json.dumps(tools_info) as the reference's text agents show it.
func (e *envEpisode) ToolsJSON() string {
	s, err := e.dom.ToolsJSON()
	if err != nil {
		return "[]"
	}
	return s
}

// Start asks the simulated user for its first message (after the
// constructor's setup calls, when the user is given them).
func (e *envEpisode) Start(ctx context.Context) (string, error) {
	if err := e.sim.Setup(ctx); err != nil {
		return "", userErr(err)
	}
	first, err := e.sim.Reset(ctx, e.task.Instruction)
	if err != nil {
		return "", userErr(err)
	}
	return first, nil
}

// userErr is a user simulator's failure as the episode reports it: a reply
// the reference cannot parse fails the episode; anything else (the model,
// the context) is the run's.
func userErr(err error) error {
	if errors.Is(err, user.ErrReply) {
		return tasks.EpisodeFailed{Err: err}
	}
	return err
}

// Act is the reference's Env.step.
func (e *envEpisode) Act(ctx context.Context, name string, args json.RawMessage) (string, bool, error) {
	if e.done {
		return "", true, errors.New("tau: the episode is over")
	}
	e.actions = append(e.actions, Action{Name: name, Kwargs: args})
	var obs string
	switch {
	case name == RespondAction:
		var r struct {
			Content *string `json:"content"`
		}
		if json.Unmarshal(args, &r) != nil || r.Content == nil {
			return "", false, tasks.EpisodeFailed{Err: errors.New(`tau: a respond action without a string "content"`)}
		}
		reply, err := e.sim.Step(ctx, *r.Content)
		if err != nil {
			return "", false, userErr(err)
		}
		obs, e.done = reply, strings.Contains(reply, user.Stop)
	case e.dom.HasTool(name):
		o, err := e.db.Invoke(name, args)
		if err != nil {
			return "", false, tasks.EpisodeFailed{Err: err}
		}
		obs, e.done = o, e.dom.IsTerminal(name)
	default:
		obs = "Unknown action " + name
	}
	if e.done {
		out := e.score()
		e.outcome = &out
	}
	return obs, e.done, nil
}

// Outcome is the reward as the reference computes it when the episode
// ends (computed now if it has not ended: the caller decides what an
// unended episode scores).
func (e *envEpisode) Outcome() events.Outcome {
	if e.outcome != nil {
		return *e.outcome
	}
	return e.score()
}

// outcomeInfo is what an item stores of an episode's reward.
type outcomeInfo struct {
	RewardInfo  json.RawMessage `json:"reward_info,omitempty"` // the reference's, as json.dumps prints it
	RActions    *float64        `json:"r_actions,omitempty"`
	ROutputs    *float64        `json:"r_outputs,omitempty"`
	Outputs     []outputJSON    `json:"outputs_found,omitempty"`
	DataHash    string          `json:"data_hash"`
	GTHash      string          `json:"gt_data_hash"`
	GoldActions []actionJSON    `json:"gold_actions"`
	Taken       []actionJSON    `json:"actions_taken"`
	Error       string          `json:"error,omitempty"`
}

type outputJSON struct {
	Output string `json:"output"`
	Found  bool   `json:"found"`
}

type actionJSON struct {
	Name   string          `json:"name"`
	Kwargs json.RawMessage `json:"kwargs"`
}

func actionsJSON(as []Action) []actionJSON {
	out := make([]actionJSON, len(as))
	for i, a := range as {
		kw := a.Kwargs
		if !json.Valid(kw) { // arguments a model wrote for an unknown tool
			kw, _ = json.Marshal(string(a.Kwargs))
		}
		out[i] = actionJSON{Name: a.Name, Kwargs: kw}
	}
	return out
}

func (e *envEpisode) score() events.Outcome {
	info := outcomeInfo{Taken: actionsJSON(e.actions)}
	r, err := e.task.Reward(e.db, e.actions)
	if err != nil {
		info.Error = err.Error()
		b, _ := json.Marshal(info)
		return events.Outcome{Info: b, UserCalls: e.sim.Calls()}
	}
	info.RActions, info.ROutputs = r.RActions, r.ROutputs
	for _, o := range r.Outputs {
		info.Outputs = append(info.Outputs, outputJSON{Output: o.Output, Found: o.Found})
	}
	info.DataHash, info.GTHash, info.GoldActions = r.DataHash, r.GTHash, actionsJSON(r.GoldActions)
	if s, err := r.Info(); err == nil {
		info.RewardInfo = json.RawMessage(s)
	}
	b, _ := json.Marshal(info)
	return events.Outcome{Reward: r.Reward, Info: b, UserCalls: e.sim.Calls()}
}

// HasTool reports whether name is one of the domain's tools.
func (d *Domain) HasTool(name string) bool {
	for _, t := range d.tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// ToolsJSON is json.dumps of the tools' get_info() list, as the reference's
// text agents put it in their prompt (Python's separators ", " and ": ",
// non-ASCII escaped).
func (d *Domain) ToolsJSON() (string, error) {
	list := pyval.NewList()
	for _, t := range d.tools {
		v, err := pyval.ParseJSON(t.JSON)
		if err != nil {
			return "", fmt.Errorf("tau: tool %s: %w", t.Name, err)
		}
		list.Items = append(list.Items, v)
	}
	return pyval.DumpJSON(list)
}
