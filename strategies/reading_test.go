package strategies

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

// TestSampleReadersReadWhatSolveRecords solves with io, cot and cotsc
// (k=5) and reads the stored detail back through each one's registry
// reading: every sample, in order, with the answer and verdict Solve
// recorded, cotsc's vote keys as voted (io and cot keep none: their
// answers stand in), and cotsc's vote drawn as recorded.
func TestSampleReadersReadWhatSolveRecords(t *testing.T) {
	outputs := []string{"Answer: 4 * 5 + 10 - 6 = 24", "Answer: (10 - 6) * (5 + 4) = 24", "garbage with no answer line", "", "Answer: 4 * 5 + 10 - 6 = 24"}
	for _, c := range []struct {
		strategy string
		rule     Rule
	}{{"io", RuleFirst}, {"cot", RuleFirst}, {"cotsc", RuleVote}} {
		s := newStrategy(t, c.strategy, map[string]any{"k": 5})
		res, err := s.Solve(context.Background(), testEnv(t, &scripted{outputs: outputs}), puzzle(t, "4 5 6 10"))
		if err != nil {
			t.Fatal(err)
		}
		detail, err := json.Marshal(res.Detail)
		if err != nil {
			t.Fatal(err)
		}
		var stored []Sample
		var keys []*string
		switch d := res.Detail.(type) {
		case samplingDetail:
			stored = d.Samples
		case cotscDetail:
			stored, keys = d.Samples, d.Vote.Keys
		default:
			t.Fatalf("%s: detail %T", c.strategy, res.Detail)
		}
		reading := ReadingOf(c.strategy)
		got, ok := reading.SamplesOf(detail)
		if !ok || got.Rule != c.rule || len(got.Correct) != len(outputs) || len(got.Answers) != len(outputs) || len(got.Keys) != len(outputs) || got.Scores != nil {
			t.Fatalf("%s: read %+v (%v), want %d samples under rule %q, no scores", c.strategy, got, ok, len(outputs), c.rule)
		}
		for i, st := range stored {
			if got.Answers[i] != st.Answer || got.Correct[i] != st.Correct {
				t.Errorf("%s sample %d: read %q %v, stored %q %v", c.strategy, i, got.Answers[i], got.Correct[i], st.Answer, st.Correct)
			}
			want := keys
			if keys == nil {
				want = got.Keys // checked below: the answers stand in
				if (st.Answer == "") != (want[i] == nil) || (want[i] != nil && *want[i] != st.Answer) {
					t.Errorf("%s sample %d: key %v for answer %q", c.strategy, i, want[i], st.Answer)
				}
			}
			if (want[i] == nil) != (got.Keys[i] == nil) || (want[i] != nil && *want[i] != *got.Keys[i]) {
				t.Errorf("%s sample %d: key %v, voted %v", c.strategy, i, got.Keys[i], want[i])
			}
		}
		if got.KeysFromAnswers != (keys == nil) {
			t.Errorf("%s: keys from answers %v", c.strategy, got.KeysFromAnswers)
		}
		v := reading.ViewOf(detail)
		if d, votes := res.Detail.(cotscDetail); votes {
			if v.Votes == nil || !reflect.DeepEqual(v.Votes.Samples, d.Samples) || !reflect.DeepEqual(v.Votes.Vote, d.Vote) {
				t.Errorf("cotsc's vote drawn as %+v", v.Votes)
			}
		} else if v != (ItemView{}) {
			t.Errorf("%s draws %+v, want nothing", c.strategy, v)
		}
	}
}

// TestTranscriptReaderReadsWhatSolveRecords: a 2×2 debate's stored
// transcript reads back with its agents, rounds and each turn's key, for
// --by round and for the viewer alike.
func TestTranscriptReaderReadsWhatSolveRecords(t *testing.T) {
	const right = "Answer: 4 * 5 + 10 - 6 = 24"
	d := &debater{reqs: map[string]llm.Request{}, answers: map[string]string{
		"r0/a0": "garbage", "r0/a1": right, "r1/a0": right, "r1/a1": right,
	}}
	s := newStrategy(t, "debate", map[string]any{"agents": 2, "rounds": 2})
	res, err := s.Solve(context.Background(), testEnv(t, d), puzzle(t, "4 5 6 10"))
	if err != nil {
		t.Fatal(err)
	}
	detail, _ := json.Marshal(res.Detail)
	reading := ReadingOf("debate")
	tr, ok := reading.Rounds(detail)
	if !ok || tr.Agents != 2 || len(tr.Rounds) != 2 || len(tr.Rounds[0].Turns) != 2 || tr.Rounds[0].Turns[0].Key != nil ||
		tr.Rounds[0].Turns[1].Key == nil || !tr.Rounds[1].Correct {
		t.Errorf("transcript %+v (%v)", tr, ok)
	}
	if v := reading.ViewOf(detail); v.Transcript == nil || !reflect.DeepEqual(*v.Transcript, tr) {
		t.Errorf("drawn %+v, read %+v", v.Transcript, tr)
	}
}

// TestReadersOfEachDetail reads each strategy's detail type, as stored,
// through its registry reading, and garbage through every reader.
func TestReadersOfEachDetail(t *testing.T) {
	a, five := "a", "5"
	raw := func(v any) []byte {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	react := ReActTrajectory{Protocol: "text", MaxSteps: 3, Steps: []ReActStep{{Step: 1, Thought: "t"}}}
	trials := ReflexionDetail{Actor: "cot", Trials: []ReflexionTrial{{Trial: 1, Answer: "x"}}}
	iters := SelfRefineDetail{StoppedBy: "limit", Iterations: []RefineIteration{{Iteration: 1, Output: "o"}}}
	bon := TTSDetail{Select: "weighted", Candidates: []Candidate{{Key: &a, Answer: "a", Correct: true, Score: 0.5}, {Score: 0.1}}}
	reactTalk := Conversation{Threads: []Thread{react.conversation("trajectory")}}
	trialsTalk := trials.conversation()
	cases := []struct {
		strategy string
		detail   []byte
		samples  *Samples
		view     ItemView
	}{
		{"bon", raw(bon),
			&Samples{Rule: RuleWeighted, Keys: []*string{&a, nil}, Answers: []string{"a", ""}, Correct: []bool{true, false}, Scores: []float64{0.5, 0.1}},
			ItemView{Candidates: &Candidates{Select: "weighted", List: bon.Candidates}}},
		// bon in the samples shape, scores on the samples: no rule recorded.
		{"bon", []byte(`{"vote":{"keys":["a",null]},"samples":[{"answer":"a","correct":true,"score":0.2},{"answer":"b","score":0.4}]}`),
			&Samples{Keys: []*string{&a, nil}, Answers: []string{"a", "b"}, Correct: []bool{true, false}, Scores: []float64{0.2, 0.4}}, ItemView{}},
		// a score missing on one sample: no scores.
		{"cotsc", []byte(`{"vote":{"keys":["a","a"]},"samples":[{"answer":"a","correct":true,"score":0.2},{"answer":"a"}]}`),
			&Samples{Rule: RuleVote, Keys: []*string{&a, &a}, Answers: []string{"a", "a"}, Correct: []bool{true, false}},
			ItemView{Votes: &Votes{Vote: VoteResult{Keys: []*string{&a, &a}}, Samples: []Sample{{Answer: "a", Correct: true}, {Answer: "a"}}}}},
		{"pal", raw(palDetail{Vote: VoteResult{Key: "5", Keys: []*string{&five}}, Samples: []PALSample{{Program: "p", Answer: "5", Correct: true, Reason: "r"}}}),
			&Samples{Rule: RuleVote, Keys: []*string{&five}, Answers: []string{"5"}, Correct: []bool{true}},
			ItemView{Votes: &Votes{Vote: VoteResult{Key: "5", Keys: []*string{&five}}, Samples: []Sample{{Answer: "5", Correct: true, Reason: "r"}}}}},
		{"tot", raw(totDetail{Best: 3, Final: []int{3, 4}}), nil, ItemView{Tree: &TreeMarks{Best: 3, Final: []int{3, 4}}}},
		{"tot", []byte(`{"final":[1]}`), nil, ItemView{Tree: &TreeMarks{Best: -1, Final: []int{1}}}},
		{"mcts", raw(MCTSDetail{Best: 2, Terminals: []int{2}}), nil, ItemView{Tree: &TreeMarks{Best: 2}}},
		{"lats", raw(LATSDetail{Best: 5}), nil, ItemView{Tree: &TreeMarks{Best: 5}}},
		{"react", raw(react), nil, ItemView{Trajectory: &react, Conversation: &reactTalk}},
		{"reflexion", raw(trials), nil, ItemView{Trials: &trials, Conversation: &trialsTalk}},
		{"selfrefine", raw(iters), nil, ItemView{Iterations: &iters}},
	}
	for _, c := range cases {
		reading := ReadingOf(c.strategy)
		got, ok := reading.SamplesOf(c.detail)
		if (c.samples != nil) != ok || (ok && !reflect.DeepEqual(got, *c.samples)) {
			t.Errorf("%s %s: samples %+v (%v), want %+v", c.strategy, c.detail, got, ok, c.samples)
		}
		if v := reading.ViewOf(c.detail); !reflect.DeepEqual(v, c.view) {
			t.Errorf("%s %s: view %+v, want %+v", c.strategy, c.detail, v, c.view)
		}
	}
	for _, s := range Registry() {
		for _, bad := range []string{`garbage`, `{"samples":[]}`, `{"agents":2,"rounds":[]}`} {
			if got, ok := s.Read.SamplesOf([]byte(bad)); ok {
				t.Errorf("%s reads samples %+v from %s", s.Name, got, bad)
			}
			if s.Read.Rounds != nil {
				if got, ok := s.Read.Rounds([]byte(bad)); ok {
					t.Errorf("%s reads a transcript %+v from %s", s.Name, got, bad)
				}
			}
			if bad == "garbage" && s.Read.ViewOf([]byte(bad)) != (ItemView{}) {
				t.Errorf("%s draws garbage", s.Name)
			}
		}
	}
}

// TestReadSamplesOfOldDetails: items recorded before vote keys were kept
// vote by their samples' extracted answers ("" abstains); garbage and an
// item without samples read as none.
func TestReadSamplesOfOldDetails(t *testing.T) {
	detail := []byte(`{"samples":[{"answer":"3","correct":true},{"answer":"","correct":false},{"answer":"4","correct":false}]}`)
	s, ok := ReadSamples(detail)
	if !reflect.DeepEqual(s.Answers, []string{"3", "", "4"}) {
		t.Errorf("answers %q", s.Answers)
	}
	if !ok || !s.KeysFromAnswers || !reflect.DeepEqual(s.Correct, []bool{true, false, false}) || len(s.Keys) != 3 ||
		s.Keys[0] == nil || *s.Keys[0] != "3" || s.Keys[1] != nil || s.Keys[2] == nil || *s.Keys[2] != "4" {
		t.Errorf("keys from answers: %+v %v", s, ok)
	}
	if s, ok := ReadSamples([]byte(`not json`)); ok || s.Answers != nil {
		t.Errorf("samples of garbage %+v %v", s, ok)
	}
	if _, ok := ReadSamples([]byte(`{"samples":[]}`)); ok {
		t.Error("no samples, yet ok")
	}
}

// TestReadTranscript reads a stored transcript field by field; a CoT-SC
// detail, an empty one and garbage are no transcript.
func TestReadTranscript(t *testing.T) {
	good := []byte(`{"agents":2,"models":["a","b@x"],"rounds":[{"turns":[{"output":"o","key":"5","correct":true},{"output":"","key":null}],"vote":{"key":"5","winner":0},"correct":true}],"judged":"J"}`)
	d, ok := ReadTranscript(good)
	if !ok || d.Agents != 2 || len(d.Rounds) != 1 || d.Rounds[0].Turns[1].Key != nil || *d.Rounds[0].Turns[0].Key != "5" ||
		!d.Rounds[0].Correct || d.Models[1] != "b@x" || d.Judged == nil || *d.Judged != "J" {
		t.Errorf("ReadTranscript = %+v, %v", d, ok)
	}
	for _, bad := range []string{`{"vote":{"key":"5"},"samples":[{"answer":"5"}]}`, `{}`, `null`, `not json`, `{"agents":3,"rounds":[]}`} {
		if _, ok := ReadTranscript([]byte(bad)); ok {
			t.Errorf("a transcript from %s", bad)
		}
	}
}
