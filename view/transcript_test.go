package view

import (
	"encoding/json"

	"github.com/reasonbench/reasonbench/strategies/reading"
)

// debateView is the grid of a debate item's detail, read as the debate's
// Rounds reader reads it; nil when the detail holds no transcript.
func debateView(detail json.RawMessage, calls []callView) map[string]any {
	d, ok := reading.ReadTranscript(detail)
	if !ok {
		return nil
	}
	return transcriptGrid(d, calls)
}
