package view

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/reasonbench/reasonbench/events"
	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/results"
	"github.com/reasonbench/reasonbench/store"
	"github.com/reasonbench/reasonbench/strategies/reading"
)

// eventView is one event as the trajectory draws it: the event, and for a
// model call the start of its reply.
type eventView struct {
	events.Event
	Reply string
}

// trajectoryView groups an item's events into their steps, each model
// call with the first choice of its recorded response.
func trajectoryView(evs []events.Event, calls []callView) []stepView {
	byID := map[int64]callView{}
	for _, c := range calls {
		byID[c.ID] = c
	}
	var out []stepView
	for _, st := range results.ByStep(evs) {
		sv := stepView{Step: st.Step}
		for _, e := range st.Events {
			ev := eventView{Event: e}
			if c, ok := byID[e.CallID]; ok && e.Kind == events.Model && len(c.Choices) > 0 {
				ev.Reply = c.Choices[0]
			}
			sv.Events = append(sv.Events, ev)
		}
		out = append(out, sv)
	}
	return out
}

// stepView is one step of the trajectory.
type stepView struct {
	Step   string
	Events []eventView
}

// candidateView is a candidate of bon, beam or dvts as the page lists it.
type candidateView struct {
	reading.Candidate
	Index  int
	Picked []string // the rules that pick it
	Chosen bool     // the configured rule's pick
}

func candidatesView(c reading.Candidates) map[string]any {
	var list []candidateView
	for i, cand := range c.List {
		v := candidateView{Candidate: cand, Index: i, Chosen: i == c.Pick}
		for _, rule := range slices.Sorted(maps.Keys(c.Picks)) {
			if c.Picks[rule] == i {
				v.Picked = append(v.Picked, rule)
			}
		}
		list = append(list, v)
	}
	return map[string]any{"Select": c.Select, "Agg": c.Agg, "List": list}
}

// callView is one model call as the item page shows it.
type callView struct {
	store.Call
	Messages []llm.Message
	Choices  []string
	Raw      string // the request JSON, indented, when it is not a plain chat request
	// Identity is the call's place in the strategy (llm.Request.Call);
	// Shared names the sharing it declares, if any.
	Identity, Shared string
	// Place is where a page's grid draws the call, numbered as drawn
	// ("round 1, agent 3"), "" elsewhere.
	Place string
}

// treeNode is a ToT node with its children, for the interactive tree.
type treeNode struct {
	store.Node
	Children []*treeNode
	OnPath   bool    // on the path to the node the search ranks best
	Best     bool    // the node the search ranks best
	Final    bool    // in the final frontier
	Calls    []int64 // calls that produced or evaluated it
	// Numbers are the per-node figures shown next to the thought, in order;
	// a new one (e.g. MCTS visits) is one line in numbers().
	Numbers []nodeNumber
}

type nodeNumber struct {
	Name  string
	Value string
}

func numbers(n store.Node) []nodeNumber {
	out := []nodeNumber{
		{"value", fourDigits(n.Value)},
	}
	if n.Visits > 0 { // MCTS: Value is then the backed-up mean or max return
		out = append(out, nodeNumber{"visits", strconv.Itoa(n.Visits)})
	}
	return out
}

func (s *Server) item(ctx context.Context, r *http.Request) (page, error) {
	run, err := s.runID(ctx, r)
	if err != nil {
		return page{}, err
	}
	idx, err := strconv.Atoi(r.PathValue("idx"))
	if err != nil {
		return page{}, notFound(fmt.Sprintf("item %q: not an item index", r.PathValue("idx")))
	}
	it, err := s.st.GetItem(ctx, run.ID, idx)
	if err != nil {
		return page{}, err
	}
	calls, err := s.st.Calls(ctx, run.ID, idx)
	if err != nil {
		return page{}, err
	}
	cv := make([]callView, len(calls))
	for i, c := range calls {
		cv[i] = viewCall(c)
	}
	answers := results.RunAnswers(s.cat, run)
	data := map[string]any{"Run": run, "Item": it, "Calls": cv, "Rule": scoringRule(run.Spec),
		"Metrics": it.Metrics, "Detail": indentJSON(it.Detail),
		"Gold": answers.Gold(idx), "Extracted": answers.Extracted(idx, it.Output), "Tests": answers.HiddenTests(idx)}
	if t, ok := results.TallyOf(run.Strategy, it.Detail); ok {
		data["Tally"] = t
	}
	// The strategy's View reader says what its detail draws
	// (reading.Reading); the page never names a strategy nor decodes
	// its detail.
	v := reading.Of(run.Strategy).ViewOf(it.Detail)
	// Any stored search tree is drawn (tot, tot_dfs, mcts, lats, and
	// strategies to come): nodes, values, visits, selection.
	nodes, err := s.st.Nodes(ctx, run.ID, idx)
	if err != nil {
		return page{}, err
	}
	if len(nodes) > 0 {
		marks := reading.TreeMarks{Best: -1}
		if v.Tree != nil {
			marks = *v.Tree
		}
		data["Tree"] = buildTree(nodes, marks, cv)
		data["NodeCount"] = len(nodes)
	}
	if v.Conversation != nil && len(v.Conversation.Threads) > 0 {
		data["Conversation"] = v.Conversation.Threads
	}
	if v.Candidates != nil {
		data["Candidates"] = candidatesView(*v.Candidates)
	}
	evs, err := results.ItemEvents(ctx, s.st, run.ID, idx)
	if err != nil {
		return page{}, err
	}
	if len(evs) > 0 {
		data["Events"] = trajectoryView(evs, cv)
	}
	if v.Trials != nil {
		data["Reflexion"] = reflexionView(*v.Trials)
	}
	if v.Iterations != nil {
		data["Refine"] = refineView(*v.Iterations)
	}
	if v.Transcript != nil {
		placeDebateCalls(cv, *v.Transcript)
		data["Debate"] = transcriptGrid(*v.Transcript, cv)
	}
	if v.Votes != nil {
		data["Vote"] = voteView(*v.Votes)
	}
	steps, err := s.st.Steps(ctx, run.ID, idx)
	if err != nil {
		return page{}, err
	}
	data["Steps"] = steps
	if data["Executions"], err = s.st.Executions(ctx, run.ID, idx); err != nil {
		return page{}, err
	}
	return page{name: "item.html", title: fmt.Sprintf("run %d item %d", run.ID, idx), data: data}, nil
}

func viewCall(c store.Call) callView {
	v := callView{Call: c}
	var req llm.Request
	if err := json.Unmarshal(c.Request, &req); err == nil && len(req.Messages) > 0 {
		v.Messages, v.Identity, v.Shared = req.Messages, req.Call, req.Share
	} else {
		v.Raw = indentJSON(c.Request)
	}
	var resp llm.Response
	if err := json.Unmarshal(c.Response, &resp); err == nil {
		for _, ch := range resp.Choices {
			text := ch.Content
			for _, tc := range ch.ToolCalls {
				text += fmt.Sprintf("\n[tool call] %s(%s)", tc.Name, tc.Arguments)
			}
			v.Choices = append(v.Choices, text)
		}
	}
	return v
}

func indentJSON(b []byte) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	return string(out)
}

// scoringRule reads the rule recorded in the run spec, if any.
func scoringRule(spec json.RawMessage) string {
	var s map[string]any
	if json.Unmarshal(spec, &s) != nil {
		return ""
	}
	for _, k := range []string{"scoring_rule", "rule"} {
		if v, ok := s[k].(string); ok && v != "" {
			return v
		}
	}
	return ""
}

// buildTree links nodes to their parents, marks the best path and finds the
// calls behind each node: the generating call whose completion contains the
// node's new step, and the evaluating calls whose prompt contains its state.
func buildTree(nodes []store.Node, d reading.TreeMarks, calls []callView) []*treeNode {
	byID := map[int]*treeNode{}
	var roots []*treeNode
	for _, n := range nodes {
		byID[n.ID] = &treeNode{Node: n, Numbers: numbers(n)}
	}
	for _, n := range nodes {
		t := byID[n.ID]
		if p, ok := byID[n.Parent]; ok && n.Parent != n.ID {
			p.Children = append(p.Children, t)
		} else {
			roots = append(roots, t)
		}
	}
	for _, id := range d.Final {
		if t, ok := byID[id]; ok {
			t.Final = true
		}
	}
	for id, steps := d.Best, 0; id >= 0 && steps <= len(nodes); steps++ {
		t, ok := byID[id]
		if !ok {
			break
		}
		t.OnPath = true
		t.Best = id == d.Best
		id = t.Parent
	}
	for _, t := range byID {
		step := strings.TrimSpace(lastLine(t.Thought))
		if step == "" {
			continue
		}
		for _, c := range calls {
			if containsAny(c.Choices, step) || (t.Depth > 0 && promptContains(c.Messages, t.Thought)) {
				t.Calls = append(t.Calls, c.ID)
			}
		}
	}
	return roots
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndex(s, "\n"); i >= 0 {
		return s[i+1:]
	}
	return s
}

func containsAny(texts []string, sub string) bool {
	for _, t := range texts {
		if strings.Contains(t, sub) {
			return true
		}
	}
	return false
}

func promptContains(msgs []llm.Message, sub string) bool {
	sub = strings.TrimSpace(sub)
	if len(msgs) == 0 || sub == "" {
		return false
	}
	return strings.Contains(msgs[len(msgs)-1].Content, sub)
}

// trialView is one Reflexion trial with the reflections its prompt showed.
type trialView struct {
	reading.ReflexionTrial
	Shown []string
}

func reflexionView(d reading.ReflexionDetail) map[string]any {
	var memory []string
	for _, r := range d.Seeded {
		memory = append(memory, r.Text)
	}
	var trials []trialView
	for _, t := range d.Trials {
		tv := trialView{ReflexionTrial: t}
		if n := t.ShownReflections; n > 0 {
			tv.Shown = memory[max(0, len(memory)-n):]
		}
		trials = append(trials, tv)
		if t.Reflection != "" {
			memory = append(memory, t.Reflection)
		}
	}
	return map[string]any{"D": d, "Trials": trials}
}

type iterView struct {
	reading.RefineIteration
	Diff []diffLine
}

func refineView(d reading.SelfRefineDetail) map[string]any {
	var its []iterView
	prev := ""
	for i, it := range d.Iterations {
		v := iterView{RefineIteration: it}
		if i > 0 {
			v.Diff = lineDiff(prev, it.Output)
		}
		prev = it.Output
		its = append(its, v)
	}
	return map[string]any{"D": d, "Iterations": its}
}

type voteBar struct {
	Key    string
	Count  int
	Pct    float64
	Winner bool
	Right  bool // a sample voting for it was scored right
}

func voteView(d reading.Votes) map[string]any {
	total := d.Vote.Abstain
	for _, c := range d.Vote.Counts {
		total += c.Count
	}
	right := map[string]bool{}
	for i, k := range d.Vote.Keys {
		if k != nil && i < len(d.Samples) && d.Samples[i].Correct {
			right[*k] = true
		}
	}
	var bars []voteBar
	for _, c := range d.Vote.Counts {
		bars = append(bars, voteBar{Key: c.Key, Count: c.Count, Pct: 100 * float64(c.Count) / float64(max(total, 1)), Winner: c.Key == d.Vote.Key,
			Right: right[c.Key]})
	}
	return map[string]any{"Bars": bars, "Abstain": d.Vote.Abstain, "Total": total, "Samples": d.Samples}
}

// fourDigits prints v to four significant digits without an exponent
// (10790, not 1.079e+04).
func fourDigits(v float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}
