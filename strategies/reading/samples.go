package reading

import "encoding/json"

// Sample is one scored sample, as stored in an item's detail.
type Sample struct {
	Output  string `json:"output"`
	Answer  string `json:"answer"`
	Correct bool   `json:"correct"`
	Reason  string `json:"reason,omitempty"`
	// Metrics are the task's figures for this sample (HotpotQA em, f1).
	Metrics map[string]float64 `json:"metrics,omitempty"`
}

// ReadSamples reads the samples shape: samplingDetail's samples, with the
// vote's per-sample keys where the strategy votes (cotsc and pal record
// the shape so) and a verifier's score on each sample where one scored
// them, as {"vote": {"keys": [...]}, "samples": [{"answer", "correct",
// "score"}]}. Rule is left RuleFirst; false without samples. bench export
// reads any item's samples with it.
func ReadSamples(detail []byte) (Samples, bool) {
	var d struct {
		Vote struct {
			Keys []*string `json:"keys"`
		} `json:"vote"`
		Samples []struct {
			Answer  string   `json:"answer"`
			Correct bool     `json:"correct"`
			Score   *float64 `json:"score"`
		} `json:"samples"`
	}
	if json.Unmarshal(detail, &d) != nil || len(d.Samples) == 0 {
		return Samples{}, false
	}
	answers, correct := make([]string, len(d.Samples)), make([]bool, len(d.Samples))
	scores := make([]float64, len(d.Samples))
	for i, s := range d.Samples {
		answers[i], correct[i] = s.Answer, s.Correct
		if s.Score == nil {
			scores = nil
		} else if scores != nil {
			scores[i] = *s.Score
		}
	}
	out := sampled(RuleFirst, d.Vote.Keys, answers, correct)
	out.Scores = scores
	return out, true
}

// samplesUnder reads the samples shape as answered under rule: io and
// cot's samples (RuleFirst), cotsc's and pal's voted ones.
func samplesUnder(rule Rule) func([]byte) (Samples, bool) {
	return func(detail []byte) (Samples, bool) {
		s, ok := ReadSamples(detail)
		s.Rule = rule
		return s, ok
	}
}
