package strategies

// Reading says how the read side (results/, view/) reads a strategy's item
// detail, so those packages look a strategy up instead of naming it: a new
// strategy whose detail has one of these shapes is drawn by the viewer and
// read by `--by k`, `--by budget` and `--by round` by declaring it here.
type Reading struct {
	// Draw is how the viewer draws an item's detail ("" draws none beyond
	// the raw JSON; a stored search tree is drawn whatever this says).
	Draw Drawing
	// ByK is how `--by k` and `--by budget` read per-sample answers:
	// SamplesVote (the detail has the shape CoT-SC records: vote keys and
	// samples with verdicts), SamplesScored (candidates with a verifier's
	// scores under a rule, as bon records), "" none.
	ByK SampleReading
	// Rounds: the detail is a debate transcript, read by `--by round`.
	Rounds bool
}

// Drawing names a shape of item detail the viewer can draw.
type Drawing string

// The shapes the viewer draws, each over the detail type named.
const (
	DrawTrajectory Drawing = "trajectory" // ReActTrajectory: thought, action, observation
	DrawTrials     Drawing = "trials"     // ReflexionDetail: trials and the reflections each was shown
	DrawIterations Drawing = "iterations" // SelfRefineDetail: outputs, feedback and their diffs
	DrawTranscript Drawing = "transcript" // DebateDetail: agents' answers per round
	DrawVotes      Drawing = "votes"      // VoteDetail: the vote's counts and the samples
)

// SampleReading names how per-sample answers are read from item detail.
type SampleReading string

// The per-sample readings of `--by k` and `--by budget`.
const (
	SamplesVote   SampleReading = "vote"
	SamplesScored SampleReading = "scored"
)

// VoteDetail is the part of a voting strategy's detail the read side uses:
// the vote (each sample's key, nil when it abstains) and the samples with
// their verdicts. A strategy declaring DrawVotes or SamplesVote records at
// least these fields.
type VoteDetail struct {
	Vote    VoteResult `json:"vote"`
	Samples []Sample   `json:"samples"`
}

// ReadingOf is the named strategy's reading; the zero Reading for an
// unknown name (a run of a strategy since removed is still shown).
func ReadingOf(name string) Reading {
	s, err := Lookup(name)
	if err != nil {
		return Reading{}
	}
	return s.Read
}
