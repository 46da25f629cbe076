package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// SeriesRow is one step of a multi-trial run (`bench report --by trial`):
// the accuracy after Reflexion trial Step, or Self-Refine iteration Step.
type SeriesRow struct {
	RunID     int64   `json:"run_id"`
	Task      string  `json:"task"`
	Strategy  string  `json:"strategy"`
	Params    string  `json:"params"`
	Model     string  `json:"model"`
	Simulated bool    `json:"simulated"`
	Status    string  `json:"status"`
	N         int     `json:"n"`
	Step      int     `json:"step"`     // 1-based trial or iteration
	Ran       int     `json:"ran"`      // items that ran this step
	Accuracy  float64 `json:"accuracy"` // after this step
	Gain      float64 `json:"gain"`     // over the step before (the first: 0)
}

// SeriesFormats lists the formats WriteSeries accepts.
var SeriesFormats = []string{"md", "csv", "json"}

// WriteSeries renders series rows; unit names the step column ("trial",
// "iteration").
func WriteSeries(w io.Writer, format, unit string, rows []SeriesRow) error {
	header := []string{"run", "task", "strategy", "params", "model", "n", unit, "ran", "accuracy", "gain"}
	var body [][]string
	for _, r := range rows {
		body = append(body, []string{fmt.Sprint(r.RunID), r.Task, strategyText(r.Strategy, r.Status), r.Params,
			modelText(r.Model, r.Simulated), fmt.Sprint(r.N),
			fmt.Sprint(r.Step), fmt.Sprint(r.Ran), fmt.Sprintf("%.3f", r.Accuracy), fmt.Sprintf("%+.3f", r.Gain)})
	}
	switch format {
	case "md":
		return renderMarkdown(w, header, body, rightAligned(header))
	case "csv":
		return csv.NewWriter(w).WriteAll(append([][]string{header}, body...))
	case "json":
		if rows == nil {
			rows = []SeriesRow{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	return fmt.Errorf("unknown format %q for --by (known: %s)", format, strings.Join(SeriesFormats, ", "))
}
