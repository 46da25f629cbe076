package tau

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/reasonbench/reasonbench/pyval"
)

// gtCell caches a task's ground-truth hash: its gold actions replayed on a
// fresh database, once per process.
type gtCell struct {
	once sync.Once
	hash string
	err  error
}

// Reward is the reference's reward of one episode (Env.calculate_reward at
// the domain's version) with its parts.
type Reward struct {
	Reward float64
	// RActions is 1 when the episode's database hash equals the ground
	// truth's, else 0; nil where the version's rule does not check the
	// database (7362a17, for a task with outputs).
	RActions *float64
	// ROutputs is 1 when every required output was said, else 0; nil for a
	// task without outputs.
	ROutputs *float64
	// Outputs lists each required output once, in the task's order, and
	// whether some message to the user contained it.
	Outputs []OutputFound
	// DataHash is the episode's database hash, GTHash the ground truth's
	// (computed for every task; the reference reports it only when it
	// checks it).
	DataHash, GTHash string
	// GoldActions are the task's gold actions without respond ones, the
	// reference's reward_info.actions.
	GoldActions []Action
}

// OutputFound is one required output and whether the agent said it.
type OutputFound struct {
	Output string
	Found  bool
}

// Reward computes the reference's reward for an episode of the task that
// ended with the database db after the actions taken (every action of the
// episode in order: tool calls, and respond actions whose kwargs hold the
// message as "content").
//
// At 7362a17 a task with outputs is scored by its outputs alone (each,
// lowercased, must occur in some respond content lowercased with commas
// removed) and a task without outputs by the database (its hash must equal
// the ground truth's: the gold actions, terminate tool skipped, replayed
// on a fresh database). At HEAD the database check always runs and the
// outputs check comes on top; as in the reference, the replayed gold
// actions then join the actions the outputs are looked for in (a gold
// respond action's content counts; none of the bundled tasks has one, and
// the reference would also send it to its user simulator, which is not
// done here).
//
// The error is non-nil where the reference's calculate_reward raises: a
// respond action without a string "content" reached by the outputs check,
// a gold action whose tool returns None, db from another domain.
func (t *Task) Reward(db *DB, taken []Action) (*Reward, error) {
	if db.dom != t.dom {
		return nil, fmt.Errorf("tau: reward of %s@%s task %d on a %s@%s database", t.dom.name, t.dom.version, t.Index, db.dom.name, db.dom.version)
	}
	dataHash, err := db.Hash()
	if err != nil {
		return nil, err
	}
	gt, err := t.GroundTruthHash()
	if err != nil {
		return nil, err
	}
	r := &Reward{Reward: 1, DataHash: dataHash, GTHash: gt}
	for _, a := range t.Actions {
		if a.Name != RespondAction {
			r.GoldActions = append(r.GoldActions, a)
		}
	}
	checkDB := t.dom.version == VersionHead || len(t.Outputs) == 0
	if checkDB {
		ra := 0.0
		if dataHash == gt {
			ra = 1
		}
		r.RActions = &ra
		if ra == 0 {
			r.Reward = 0
		}
	}
	if len(t.Outputs) == 0 {
		return r, nil
	}
	scan := taken
	if t.dom.version == VersionHead {
		// The replay appended the gold actions (terminate tool skipped).
		for _, a := range t.Actions {
			if a.Name != TerminateTool {
				scan = append(scan[:len(scan):len(scan)], a)
			}
		}
	}
	contents := make([]*string, len(scan)) // lowered, commas removed; parsed on first use
	content := func(i int) (string, error) {
		if contents[i] == nil {
			c, err := respondContent(scan[i])
			if err != nil {
				return "", err
			}
			c = strings.ReplaceAll(pyval.Lower(c), ",", "")
			contents[i] = &c
		}
		return *contents[i], nil
	}
	ro := 1.0
	for _, out := range t.Outputs {
		want := pyval.Lower(out)
		found := false
		for i, a := range scan {
			if a.Name != RespondAction {
				continue
			}
			c, err := content(i)
			if err != nil {
				return nil, err
			}
			if strings.Contains(c, want) {
				found = true
				break
			}
		}
		r.setOutput(out, found)
		if !found {
			ro = 0
			r.Reward = 0
		}
	}
	r.ROutputs = &ro
	return r, nil
}

// setOutput records an output as a Python dict assignment does: a repeated
// output keeps its first place.
func (r *Reward) setOutput(out string, found bool) {
	for i := range r.Outputs {
		if r.Outputs[i].Output == out {
			r.Outputs[i].Found = found
			return
		}
	}
	r.Outputs = append(r.Outputs, OutputFound{Output: out, Found: found})
}

// respondContent is action.kwargs["content"] of a respond action, failing
// as the reference's check fails (KeyError, or no .lower()).
func respondContent(a Action) (string, error) {
	v, err := pyval.ParseJSON(a.Kwargs)
	if err != nil {
		return "", fmt.Errorf("tau: respond action kwargs: %w", err)
	}
	d, ok := v.(*pyval.Dict)
	if !ok {
		return "", fmt.Errorf("tau: respond action kwargs are a JSON %s, not an object", pyval.TypeName(v))
	}
	c, ok := d.Get("content")
	if !ok {
		return "", fmt.Errorf("tau: respond action: %w", &pyval.Exception{Type: "KeyError", Msg: "'content'"})
	}
	s, ok := c.(string)
	if !ok {
		return "", fmt.Errorf("tau: respond action: %w", pyval.Errorf("AttributeError", "'%s' object has no attribute 'lower'", pyval.TypeName(c)))
	}
	return s, nil
}

// GroundTruthHash is the hash of the database after the task's gold
// actions, replayed on a fresh database as the reference's reward replays
// them (the terminate tool skipped, respond actions changing nothing).
// It is computed once per process and task.
func (t *Task) GroundTruthHash() (string, error) {
	t.gt.once.Do(func() {
		db := t.dom.NewDB()
		for _, a := range t.Actions {
			if a.Name == TerminateTool || a.Name == RespondAction {
				continue
			}
			kw, ok := mustDict(a.Kwargs) // a fresh copy: tools keep their arguments
			if !ok {
				t.gt.err = fmt.Errorf("tau: task %d gold action %s: kwargs not an object", t.Index, a.Name)
				return
			}
			if _, err := db.call(a.Name, kw); err != nil {
				t.gt.err = fmt.Errorf("tau: task %d gold action %s: %w", t.Index, a.Name, err)
				return
			}
		}
		t.gt.hash, t.gt.err = db.Hash()
	})
	return t.gt.hash, t.gt.err
}

// Info returns the reference's reward_info for the result, the
// RewardResult's model_dump() as json.dumps prints it: {"reward": ...,
// "info": {"r_outputs", "outputs"} for a task with outputs, else
// {"r_actions", "gt_data_hash"}, "actions": the gold actions}.
func (r *Reward) Info() (string, error) {
	info := pyval.NewDict(2)
	switch {
	case r.ROutputs != nil:
		info.Set("r_outputs", *r.ROutputs)
		outs := pyval.NewDict(len(r.Outputs))
		for _, o := range r.Outputs {
			outs.Set(o.Output, o.Found)
		}
		info.Set("outputs", outs)
	case r.RActions != nil:
		info.Set("r_actions", *r.RActions)
		info.Set("gt_data_hash", r.GTHash)
	default:
		return "", errors.New("tau: reward without info")
	}
	actions := pyval.NewList()
	for _, a := range r.GoldActions {
		kw, ok := mustDict(a.Kwargs)
		if !ok {
			return "", fmt.Errorf("tau: gold action %s: kwargs not an object", a.Name)
		}
		actions.Items = append(actions.Items, dict("name", a.Name, "kwargs", kw))
	}
	return pyval.DumpJSON(dict("reward", r.Reward, "info", info, "actions", actions))
}
