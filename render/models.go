package render

import (
	"fmt"
	"io"
)

// ModelRow is what one model answered in a run (bench report --by model):
// its calls, tokens and cost.
type ModelRow struct {
	RunID            int64   `json:"run_id"`
	Strategy         string  `json:"strategy"`
	Params           string  `json:"params"`
	Model            string  `json:"model"`
	Calls            int     `json:"calls"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Cost             float64 `json:"cost"`
}

// WriteModels writes one row per (run, model) in md, csv or json.
func WriteModels(w io.Writer, format string, rows []ModelRow) error {
	header := []string{"run", "strategy", "params", "model", "calls", "tokens in", "tokens out", "cost"}
	var body [][]string
	for _, r := range rows {
		body = append(body, []string{fmt.Sprint(r.RunID), r.Strategy, r.Params, r.Model, fmt.Sprint(r.Calls),
			fmt.Sprint(r.PromptTokens), fmt.Sprint(r.CompletionTokens), fmt.Sprintf("%.4f", r.Cost)})
	}
	if rows == nil {
		rows = []ModelRow{}
	}
	return writeTable(w, format, table{header: header, body: plainBody(body), json: rows, flag: "--by model"}, nil)
}
