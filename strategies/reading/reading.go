// Package reading is the read side's half of the strategies: the shapes a
// strategy records as an item's detail (samples, votes, transcripts,
// trajectories, trials, iterations, candidates) and the readers that fill
// what the read side draws from them (Reading: --by k's samples, --by
// round's transcript, the viewer's ItemView), one line of readers a
// strategy. strategies writes these shapes; results/, view/ and bench
// show read them through Of without importing the engine: the package
// imports only the standard library and events.
package reading

import (
	"maps"
	"slices"
)

// Reading is how the read side (results/, view/) reads a strategy's item
// detail: each field a reader written beside the detail type it decodes
// and named on the strategy's line of readings, nil when the detail has
// no such reading. results/ and view/ look a run's strategy up (Of) and
// call these, so they neither name a strategy nor decode its detail; a
// new strategy is read by `--by k` and drawn by the viewer by declaring
// readers that fill these shapes from its own detail type.
type Reading struct {
	// Samples reads an item's independent samples: `--by k` and `--by
	// budget` recompute the strategy's Rule over subsets of them, `--by
	// difficulty` takes their pass rate. false: the item has none.
	Samples func(detail []byte) (Samples, bool)
	// Rounds reads a transcript of agents' answers round by round, for
	// `--by round`. false: the item has none.
	Rounds func(detail []byte) (DebateDetail, bool)
	// View reads what the viewer's item page draws of the detail beyond
	// its JSON (the zero ItemView: nothing).
	View func(detail []byte) ItemView
}

// Samples are an item's independent samples as the read side uses them,
// index by index.
type Samples struct {
	// Rule is how the strategy answered from them.
	Rule Rule
	// Keys are each sample's vote key, nil where it abstains.
	Keys []*string
	// KeysFromAnswers says the item was recorded before vote keys were
	// kept (or its strategy keeps none): Keys are the extracted answers,
	// "" abstaining.
	KeysFromAnswers bool
	Answers         []string // each sample's extracted answer
	Correct         []bool   // each sample's verdict, as stored
	// Scores are a verifier's score of each sample; nil unless every
	// sample has one.
	Scores []float64
}

// Rule is how a strategy answers from its samples.
type Rule string

// The rules `--by k` and `--by budget` recompute on subsets of samples.
const (
	// RuleFirst: the first sample is the answer (io, cot); there is no
	// selection to recompute.
	RuleFirst Rule = ""
	// RuleVote: the majority of the keys, ties to the key seen first.
	RuleVote Rule = "vote"
	// The rules over a verifier's scores (bon's select): the highest
	// score, the largest sum of scores per key, or the keys' majority.
	RuleBest     Rule = "best"
	RuleWeighted Rule = "weighted"
	RuleMajority Rule = "majority"
)

// ItemView is what the viewer's item page draws of an item's detail: the
// shapes the strategy's View reader fills, each nil otherwise.
type ItemView struct {
	Votes      *Votes            // a vote's counts and the samples behind it
	Transcript *DebateDetail     // agents' answers round by round
	Trajectory *ReActTrajectory  // thought, action, observation
	Trials     *ReflexionDetail  // trials and the reflections each was shown
	Iterations *SelfRefineDetail // answers and the feedback on each
	// Conversation is the item's exchange, turn by turn (react's
	// trajectory and episodes, reflexion's trials, debate's agents).
	Conversation *Conversation
	// Candidates are the solutions a verifier scored (bon, beam, dvts).
	Candidates *Candidates
	// Tree marks the stored search tree (drawn whenever the item has one;
	// without marks no node is best).
	Tree *TreeMarks
}

// Votes is a vote as the viewer draws it: the outcome (with each sample's
// key) and the samples with their verdicts.
type Votes struct {
	Vote    VoteResult
	Samples []Sample
}

// TreeMarks are the nodes of a stored search tree the search singled out.
type TreeMarks struct {
	Best  int   // the node it ranks best, -1 for none
	Final []int // its final frontier, if it keeps one
}

// Of is the named strategy's reading; the zero Reading for a strategy
// with none, or unknown (a run of a strategy since removed is still
// shown).
func Of(strategy string) Reading {
	return readings()[strategy]
}

// Strategies lists the strategies readings knows, each a registered
// strategy's name (strategies' registry test checks both lists agree).
func Strategies() []string {
	return slices.Sorted(maps.Keys(readings()))
}

// readings are the readers of each strategy's item detail, by strategy
// name: the one declaration of how a strategy's detail is read. A strategy
// whose detail the read side draws nothing of beyond its JSON is listed
// with the zero Reading.
func readings() map[string]Reading {
	return map[string]Reading{
		"io":             {Samples: samplesUnder(RuleFirst)},
		"cot":            {Samples: samplesUnder(RuleFirst)},
		"cotsc":          {Samples: samplesUnder(RuleVote), View: viewVote},
		"tot":            {View: viewTree},
		"react":          {View: viewReAct},
		"reflexion":      {View: viewReflexion},
		"reflexion_ref":  {},
		"reflexion_code": {},
		"tot_dfs":        {},
		"mcts":           {View: viewTree},
		"lats":           {View: viewTree},
		"pal":            {Samples: samplesUnder(RuleVote), View: viewVote},
		"bon":            {Samples: readBoN, View: viewTTS},
		"beam":           {View: viewTTS},
		"dvts":           {View: viewTTS},
		"program":        {View: viewProgram},
		"debate":         {Rounds: ReadTranscript, View: viewDebate},
		"selfrefine":     {View: viewSelfRefine},
	}
}

// SamplesOf reads detail's samples with the Samples reader; false without
// one.
func (r Reading) SamplesOf(detail []byte) (Samples, bool) {
	if r.Samples == nil {
		return Samples{}, false
	}
	return r.Samples(detail)
}

// ViewOf reads what the item page draws of detail with the View reader;
// the zero ItemView without one.
func (r Reading) ViewOf(detail []byte) ItemView {
	if r.View == nil {
		return ItemView{}
	}
	return r.View(detail)
}

// sampled makes Samples of per-sample answers and verdicts under rule;
// keys are the vote's per-sample keys, or nil where none were kept, and
// the answers then stand in for them.
func sampled(rule Rule, keys []*string, answers []string, correct []bool) Samples {
	s := Samples{Rule: rule, Keys: keys, Answers: answers, Correct: correct}
	if len(keys) == len(answers) {
		return s
	}
	s.Keys, s.KeysFromAnswers = make([]*string, len(answers)), true
	for i, a := range answers {
		if a != "" {
			s.Keys[i] = &a
		}
	}
	return s
}
