package render

import (
	"fmt"
	"io"
)

// ToolRow is one tool of a run (`bench report --by tool`): its calls, how
// many succeeded and their latency; Tool "(all)" is the run's whole with
// the distribution of tool calls and steps per item.
type ToolRow struct {
	RunID     int64   `json:"run_id"`
	Task      string  `json:"task"`
	Strategy  string  `json:"strategy"`
	Model     string  `json:"model"`
	Simulated bool    `json:"simulated"`
	Status    string  `json:"status"`
	N         int     `json:"n"`
	Server    string  `json:"server"`
	Tool      string  `json:"tool"`
	Calls     int     `json:"calls"`
	Errors    int     `json:"errors"`
	Success   float64 `json:"success_rate"` // (calls - errors) / calls
	Replayed  int     `json:"replayed"`     // answered from the cache
	LatencyMS float64 `json:"latency_mean_ms"`
	P50MS     float64 `json:"latency_p50_ms"`
	P90MS     float64 `json:"latency_p90_ms"`
	// Per item, on the (all) row: tool calls and steps (the strategy's
	// steps metric) as mean, median and maximum.
	CallsPerItem *Spread `json:"calls_per_item,omitempty"`
	StepsPerItem *Spread `json:"steps_per_item,omitempty"`
}

// Spread is a per-item distribution.
type Spread struct {
	Mean   float64 `json:"mean"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

func (s *Spread) text() string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("%.2f (%g, %g)", s.Mean, s.Median, s.Max)
}

// WriteTools renders tool rows.
func WriteTools(w io.Writer, format string, rows []ToolRow) error {
	header := []string{"run", "task", "strategy", "model", "n", "server", "tool", "calls", "errors", "success", "replayed",
		"latency ms", "p50 ms", "p90 ms", "calls/item (median, max)", "steps/item (median, max)"}
	var body [][]string
	for _, r := range rows {
		body = append(body, []string{fmt.Sprint(r.RunID), r.Task, strategyText(r.Strategy, r.Status), ModelText(r.Model, r.Simulated),
			fmt.Sprint(r.N), r.Server, r.Tool, fmt.Sprint(r.Calls), fmt.Sprint(r.Errors), fmt.Sprintf("%.3f", r.Success), fmt.Sprint(r.Replayed),
			fmt.Sprintf("%.1f", r.LatencyMS), fmt.Sprintf("%.1f", r.P50MS), fmt.Sprintf("%.1f", r.P90MS), r.CallsPerItem.text(), r.StepsPerItem.text()})
	}
	if rows == nil {
		rows = []ToolRow{}
	}
	return writeTable(w, format, table{header: header, body: plainBody(body), json: rows, flag: "--by tool"}, nil)
}
