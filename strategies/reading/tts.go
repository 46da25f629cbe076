package reading

import "encoding/json"

// Candidate is one complete solution of bon, beam or dvts as stored in an
// item's detail: enough to recompute every selection rule on any subset
// (bench report --by k) without the model or the verifier.
type Candidate struct {
	Output  string `json:"output"`
	Answer  string `json:"answer"`
	Correct bool   `json:"correct"`
	// Key is the candidate's vote key under the strategy's vote_key, nil
	// when it gives no answer (it then abstains from majority and weighted).
	Key *string `json:"key"`
	// Scores are the verifier's step scores of the solution, Score their
	// aggregation by agg (0 without a verifier or without steps).
	Scores []float64 `json:"scores,omitempty"`
	Score  float64   `json:"score"`
	Steps  int       `json:"steps"`
	// VerifierError says why the verifier's answer was no valid scores
	// (the candidate then scores 0).
	VerifierError string `json:"verifier_error,omitempty"`
}

// TTSDetail is the stored detail of bon, beam and dvts.
type TTSDetail struct {
	Select  string `json:"select"`
	Agg     string `json:"agg"`
	VoteKey string `json:"vote_key"`
	// Pick is the chosen candidate (-1: none), Picks each rule's choice.
	Pick       int            `json:"pick"`
	Picks      map[string]int `json:"picks"`
	Candidates []Candidate    `json:"candidates"`
	// Search is beam's or dvts's record of its iterations.
	Search any `json:"search,omitempty"`
}

// Candidates are the complete solutions of bon, beam or dvts as the read
// side draws them: each with its verifier scores, and each rule's pick.
type Candidates struct {
	Select, Agg string
	Pick        int            // the configured rule's choice, -1 none
	Picks       map[string]int // each rule's choice
	List        []Candidate
}

// viewTTS draws a bon, beam or dvts item's candidates and their scores.
func viewTTS(detail []byte) ItemView {
	var d TTSDetail
	if json.Unmarshal(detail, &d) != nil || len(d.Candidates) == 0 {
		return ItemView{}
	}
	return ItemView{Candidates: &Candidates{Select: d.Select, Agg: d.Agg, Pick: d.Pick, Picks: d.Picks, List: d.Candidates}}
}

// readBoN reads a bon item's candidates as its samples under its select
// rule, each with its answer key and aggregated verifier score. An item in
// the samples shape (scores on the samples) reads as that shape.
func readBoN(detail []byte) (Samples, bool) {
	var d TTSDetail
	if json.Unmarshal(detail, &d) != nil || len(d.Candidates) == 0 {
		return ReadSamples(detail)
	}
	n := len(d.Candidates)
	keys, answers, correct, scores := make([]*string, n), make([]string, n), make([]bool, n), make([]float64, n)
	for i, c := range d.Candidates {
		keys[i], answers[i], correct[i], scores[i] = c.Key, c.Answer, c.Correct, c.Score
	}
	s := sampled(Rule(d.Select), keys, answers, correct)
	if s.Rule != RuleMajority { // majority calls no verifier: its zero scores are none
		s.Scores = scores
	}
	return s, true
}
