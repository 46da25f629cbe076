package reading

import "encoding/json"

// ReflexionTrial is one trial as stored in the detail and the checkpoint.
type ReflexionTrial struct {
	Trial   int    `json:"trial"` // 1-based
	Output  string `json:"output"`
	Answer  string `json:"answer"`
	Correct bool   `json:"correct"` // the task's score (the truth, whatever the evaluator)
	// Judged is the evaluator's verdict: Correct for oracle, the model's
	// own judgement for self.
	Judged    bool   `json:"judged_correct"`
	Judgement string `json:"judgement,omitempty"` // the self-evaluator's reply
	// ShownReflections and ShownLastAttempt say what the trial's prompt
	// carried of earlier trials.
	ShownReflections int                `json:"shown_reflections"`
	ShownLastAttempt bool               `json:"shown_last_attempt,omitempty"`
	Trajectory       string             `json:"trajectory"`           // the short-term memory, untruncated
	Reflection       string             `json:"reflection,omitempty"` // written after this trial
	Metrics          map[string]float64 `json:"metrics,omitempty"`
	// ToolCalls are the react actor's calls to the run's tools (--mcp),
	// with the step of each.
	ToolCalls []StepToolCall `json:"tool_calls,omitempty"`
}

// ReflexionDetail is what a reflexion item stores.
type ReflexionDetail struct {
	Actor      string `json:"actor"`
	Reflection string `json:"reflection"`
	Evaluator  string `json:"evaluator"`
	// PeeksAtGold is set for the oracle evaluator, which stops the loop on
	// the task's score against the gold answer.
	PeeksAtGold bool             `json:"peeks_at_gold"`
	MemoryFrom  int64            `json:"memory_from,omitempty"`
	Seeded      []Reflection     `json:"seeded,omitempty"` // from memory_from
	Trials      []ReflexionTrial `json:"trials"`
}

// viewReflexion draws a reflexion item's trials.
func viewReflexion(detail []byte) ItemView {
	var d ReflexionDetail
	if json.Unmarshal(detail, &d) != nil {
		return ItemView{}
	}
	c := d.conversation()
	return ItemView{Trials: &d, Conversation: &c}
}

// Reflection is one entry of a long-term memory: what the model wrote
// about a failed trial on an instance.
type Reflection struct {
	RunID int64  `json:"run_id,omitempty"` // the run that wrote it (0: not stored)
	Trial int    `json:"trial"`            // the trial it reflects on, 0-based
	Text  string `json:"text"`
}
