package bench

import (
	"encoding/json"

	"github.com/reasonbench/reasonbench/strategies"
)

// ParamSummary renders a run's recorded parameters as "k=10 temperature=0.7"
// in the strategy's declaration order.
func ParamSummary(strategy string, params json.RawMessage) string {
	spec, err := strategies.Lookup(strategy)
	if err != nil {
		return string(params)
	}
	var raw map[string]any
	if err := json.Unmarshal(params, &raw); err != nil {
		return string(params)
	}
	v, err := strategies.Resolve(spec.Params, raw)
	if err != nil {
		return string(params)
	}
	return v.Summary(spec.Params)
}
