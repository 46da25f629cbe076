package bench

import (
	"encoding/json"

	"github.com/reasonbench/reasonbench/strategies"
)

// ParamSummary is strategies.ParamSummary, kept for the engine's callers.
func ParamSummary(strategy string, params json.RawMessage) string {
	return strategies.ParamSummary(strategy, params)
}
