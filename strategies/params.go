package strategies

import (
	"encoding/json"

	"github.com/reasonbench/reasonbench/strategies/param"
)

// temperatureParam declares a strategy's sampling temperature; doc says
// which calls it applies to.
func temperatureParam(name string, def float64, doc string) param.Param {
	return param.Param{Name: name, Kind: param.Float, Default: def, Min: param.Bound(0), Max: param.Bound(2), ModelDefault: true,
		Doc: doc + "; default: not sent, the model samples at its own default (for models that refuse temperature)"}
}

// ParamSummary is a recorded run's parameters as tables show them
// (Values.Summary), or the raw JSON when the strategy or values are not
// known (a run of a strategy since removed or changed).
func ParamSummary(strategy string, params json.RawMessage) string {
	spec, err := Lookup(strategy)
	if err != nil {
		return string(params)
	}
	var raw map[string]any
	if err := json.Unmarshal(params, &raw); err != nil {
		return string(params)
	}
	v, err := param.Resolve(spec.Params, raw)
	if err != nil {
		return string(params)
	}
	return v.Summary(spec.Params)
}
