package reading

import "encoding/json"

// RefineIteration is one answer of the loop and the feedback on it.
type RefineIteration struct {
	Iteration int                `json:"iteration"` // 1-based
	Output    string             `json:"output"`
	Answer    string             `json:"answer"`
	Correct   bool               `json:"correct"`
	Metrics   map[string]float64 `json:"metrics,omitempty"`
	Feedback  string             `json:"feedback,omitempty"`
	Score     *float64           `json:"score,omitempty"` // read from the feedback
	Stop      bool               `json:"stop,omitempty"`  // the feedback stopped the loop
	// protocol=pal: the program run, and how its run ended; protocol=code:
	// the function, how its examples' run ended, and the example results
	// the feedback was shown.
	Program  string `json:"program,omitempty"`
	Status   string `json:"status,omitempty"`
	Error    string `json:"error,omitempty"`
	Examples string `json:"examples,omitempty"`
}

// SelfRefineDetail is what a selfrefine item stores.
type SelfRefineDetail struct {
	Stop       string            `json:"stop"`
	Iterations []RefineIteration `json:"iterations"`
	StoppedBy  string            `json:"stopped_by"` // feedback or limit
}

// viewSelfRefine draws a selfrefine item's iterations.
func viewSelfRefine(detail []byte) ItemView {
	var d SelfRefineDetail
	if json.Unmarshal(detail, &d) != nil {
		return ItemView{}
	}
	return ItemView{Iterations: &d}
}
