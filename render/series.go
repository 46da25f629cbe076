package render

import (
	"fmt"
	"io"
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
	// For --by k (CoT-SC, step = k'): Accuracy is the vote's expected
	// accuracy over k'-subsets of the samples; BestOf that any sample of
	// the subset is right; Exact whether every subset was enumerated, else
	// MCSE is the Monte Carlo standard error; TokensPerItem what k'
	// samples cost. Ran counts the items with at least k' samples.
	BestOf        *float64 `json:"best_of,omitempty"`
	Exact         *bool    `json:"exact,omitempty"`
	MCSE          *float64 `json:"mc_se,omitempty"`
	TokensPerItem *float64 `json:"tokens_per_item,omitempty"`
}

// Float and Bool make optional fields.
func Float(v float64) *float64 { return &v }
func Bool(v bool) *bool        { return &v }

// SeriesFormats lists the formats WriteSeries accepts.
var SeriesFormats = []string{"md", "csv", "json"}

// WriteSeries renders series rows; unit names the step column ("trial",
// "iteration").
func WriteSeries(w io.Writer, format, unit string, rows []SeriesRow) error {
	header := []string{"run", "task", "strategy", "params", "model", "n", unit, "ran", "accuracy", "gain"}
	curve := len(rows) > 0 && rows[0].BestOf != nil
	rounds := curve && unit == "round"  // debate: the majority after each round
	trials := curve && unit == "trials" // episodes: pass^k and pass@k
	switch {
	case trials:
		header[6], header[8] = "k", "pass^k"
		header = append(header, "pass@k")
	case rounds:
		header[8] = "majority accuracy"
		header = append(header, "any agent right")
	case curve:
		header[8] = "vote accuracy"
		header = append(header, "mc_se", "best-of-k'", "tokens/item")
	}
	var body [][]string
	for _, r := range rows {
		line := []string{fmt.Sprint(r.RunID), r.Task, strategyText(r.Strategy, r.Status), r.Params,
			ModelText(r.Model, r.Simulated), fmt.Sprint(r.N),
			fmt.Sprint(r.Step), fmt.Sprint(r.Ran), fmt.Sprintf("%.3f", r.Accuracy), fmt.Sprintf("%+.3f", noNegZero(r.Gain))}
		switch {
		case rounds, trials:
			line = append(line, fmtOpt(r.BestOf, "%.3f"))
		case curve:
			se := "exact"
			if r.Exact != nil && !*r.Exact && r.MCSE != nil {
				se = fmt.Sprintf("%.4f", *r.MCSE)
			}
			line = append(line, se, fmtOpt(r.BestOf, "%.3f"), fmtOpt(r.TokensPerItem, "%.0f"))
		}
		body = append(body, line)
	}
	if rows == nil {
		rows = []SeriesRow{}
	}
	return writeTable(w, format, table{header: header, body: plainBody(body), json: rows, flag: "--by"}, nil)
}

func fmtOpt(v *float64, format string) string {
	if v == nil {
		return ""
	}
	return fmt.Sprintf(format, *v)
}
