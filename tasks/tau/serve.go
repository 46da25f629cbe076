package tau

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/reasonbench/reasonbench/tasks"
)

// Toolbox is the split's tools for `bench mcp serve --task tau-DOMAIN`: an
// agent written elsewhere acts on a database of its own per session and
// item (Tools is called once for each), through the reference's tools with
// their exact results and errors. The simulated user and the reward are
// not served: such an agent talks to its own user.
func (t *EnvTask) Toolbox() tasks.Toolbox { return toolbox{t} }

type toolbox struct{ t *EnvTask }

// Tools gives a fresh database and the domain's tools acting on it.
func (b toolbox) Tools(tasks.Instance) ([]tasks.Tool, error) {
	db := b.t.dom.NewDB()
	var out []tasks.Tool
	for _, et := range (&envEpisode{dom: b.t.dom}).Tools() {
		name := et.Name
		tool := tasks.NewSchemaTool(et.Name, et.Description, false, et.Parameters, nil)
		out = append(out, tool.Routed(func(_ context.Context, args json.RawMessage) (tasks.ToolResult, error) {
			obs, err := db.Invoke(name, args)
			if err != nil {
				// What the reference would not survive (arguments that are
				// not an object) is the call's refusal here.
				if errors.Is(err, ErrArguments) || errors.Is(err, ErrNoObservation) {
					return tasks.ToolResult{Refused: true, Observation: "Error: " + err.Error()}, nil
				}
				return tasks.ToolResult{}, err
			}
			return tasks.ToolResult{Observation: obs}, nil
		}))
	}
	return out, nil
}
