package hotpotqa

import (
	"context"
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/tasks"
)

// Tool names: ReAct's three actions.
const (
	ToolSearch = "search"
	ToolLookup = "lookup"
	ToolFinish = "finish"
)

// SearchArgs are the arguments of search.
type SearchArgs struct {
	Entity string `json:"entity" desc:"the title of the page to open, e.g. an entity named in the question"`
}

// LookupArgs are the arguments of lookup.
type LookupArgs struct {
	Keyword string `json:"keyword" desc:"a word or phrase to find in the current page"`
}

// FinishArgs are the arguments of finish.
type FinishArgs struct {
	Answer string `json:"answer" desc:"the final answer: a short phrase, or yes or no"`
}

// maxFinishAnswer bounds the answer finish keeps, in runes.
const maxFinishAnswer = 1000

// ObsEmptyAnswer is the observation for finish with an empty answer.
const ObsEmptyAnswer = "Finish needs an answer: Finish[answer] with a non-empty answer."

// Tools returns ReAct's actions over a fresh docstore of the question's
// paragraphs (or t.NewDocstore): search[entity], lookup[keyword] and
// finish[answer]. finish ends the trajectory with the output
// "Answer: <answer>" (on one line).
func (t *Task) Tools(inst tasks.Instance) ([]tasks.Tool, error) {
	q, ok := inst.Data.(Question)
	if !ok {
		return nil, fmt.Errorf("hotpotqa: instance %d carries no question paragraphs", inst.Index)
	}
	var ds Docstore
	if t != nil && t.NewDocstore != nil {
		ds = t.NewDocstore(q)
	} else {
		ds = NewLocalDocstore(q.Context)
	}
	return []tasks.Tool{
		tasks.NewTool(ToolSearch, "Search for a page by its exact title. Returns the page text if it exists; otherwise lists similar titles.", false,
			func(ctx context.Context, a SearchArgs) (tasks.ToolResult, error) {
				obs, err := ds.Search(ctx, a.Entity)
				return tasks.ToolResult{Observation: obs}, err
			}),
		tasks.NewTool(ToolLookup, "Return the next sentence containing the keyword in the page found by the last search.", false,
			func(ctx context.Context, a LookupArgs) (tasks.ToolResult, error) {
				obs, err := ds.Lookup(ctx, a.Keyword)
				return tasks.ToolResult{Observation: obs}, err
			}),
		tasks.NewTool(ToolFinish, "Give the final answer and end the task.", true,
			func(_ context.Context, a FinishArgs) (tasks.ToolResult, error) {
				ans := truncateRunes(strings.Join(strings.Fields(strings.ToValidUTF8(a.Answer, "\uFFFD")), " "), maxFinishAnswer)
				if cleanAnswer(ans) == "" {
					return tasks.ToolResult{Observation: ObsEmptyAnswer, Refused: true}, nil
				}
				return tasks.ToolResult{Final: true, Output: "Answer: " + cleanAnswer(ans), Observation: "Episode finished."}, nil
			}),
	}, nil
}
