package strategies

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies/reading"
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
		rule     reading.Rule
	}{{"io", reading.RuleFirst}, {"cot", reading.RuleFirst}, {"cotsc", reading.RuleVote}} {
		s := newStrategy(t, c.strategy, map[string]any{"k": 5})
		res, err := s.Solve(context.Background(), testEnv(t, &scripted{outputs: outputs}), puzzle(t, "4 5 6 10"))
		if err != nil {
			t.Fatal(err)
		}
		detail, err := json.Marshal(res.Detail)
		if err != nil {
			t.Fatal(err)
		}
		var stored []reading.Sample
		var keys []*string
		switch d := res.Detail.(type) {
		case samplingDetail:
			stored = d.Samples
		case reading.VotedDetail:
			stored, keys = d.Samples, d.Vote.Keys
		default:
			t.Fatalf("%s: detail %T", c.strategy, res.Detail)
		}
		rd := reading.Of(c.strategy)
		got, ok := rd.SamplesOf(detail)
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
		v := rd.ViewOf(detail)
		if d, votes := res.Detail.(reading.VotedDetail); votes {
			if v.Votes == nil || !reflect.DeepEqual(v.Votes.Samples, d.Samples) || !reflect.DeepEqual(v.Votes.Vote, d.Vote) {
				t.Errorf("cotsc's vote drawn as %+v", v.Votes)
			}
		} else if v != (reading.ItemView{}) {
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
	rd := reading.Of("debate")
	tr, ok := rd.Rounds(detail)
	if !ok || tr.Agents != 2 || len(tr.Rounds) != 2 || len(tr.Rounds[0].Turns) != 2 || tr.Rounds[0].Turns[0].Key != nil ||
		tr.Rounds[0].Turns[1].Key == nil || !tr.Rounds[1].Correct {
		t.Errorf("transcript %+v (%v)", tr, ok)
	}
	if v := rd.ViewOf(detail); v.Transcript == nil || !reflect.DeepEqual(*v.Transcript, tr) {
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
	react := reading.ReActTrajectory{Protocol: "text", MaxSteps: 3, Steps: []reading.ReActStep{{Step: 1, Thought: "t"}}}
	trials := reading.ReflexionDetail{Actor: "cot", Trials: []reading.ReflexionTrial{{Trial: 1, Answer: "x"}}}
	iters := reading.SelfRefineDetail{StoppedBy: "limit", Iterations: []reading.RefineIteration{{Iteration: 1, Output: "o"}}}
	bon := reading.TTSDetail{Select: "weighted", Candidates: []reading.Candidate{{Key: &a, Answer: "a", Correct: true, Score: 0.5}, {Score: 0.1}}}
	cases := []struct {
		strategy string
		detail   []byte
		samples  *reading.Samples
		view     reading.ItemView
	}{
		{"bon", raw(bon),
			&reading.Samples{Rule: reading.RuleWeighted, Keys: []*string{&a, nil}, Answers: []string{"a", ""}, Correct: []bool{true, false}, Scores: []float64{0.5, 0.1}},
			reading.ItemView{Candidates: &reading.Candidates{Select: "weighted", List: bon.Candidates}}},
		// bon in the samples shape, scores on the samples: no rule recorded.
		{"bon", []byte(`{"vote":{"keys":["a",null]},"samples":[{"answer":"a","correct":true,"score":0.2},{"answer":"b","score":0.4}]}`),
			&reading.Samples{Keys: []*string{&a, nil}, Answers: []string{"a", "b"}, Correct: []bool{true, false}, Scores: []float64{0.2, 0.4}}, reading.ItemView{}},
		// a score missing on one sample: no scores.
		{"cotsc", []byte(`{"vote":{"keys":["a","a"]},"samples":[{"answer":"a","correct":true,"score":0.2},{"answer":"a"}]}`),
			&reading.Samples{Rule: reading.RuleVote, Keys: []*string{&a, &a}, Answers: []string{"a", "a"}, Correct: []bool{true, false}},
			reading.ItemView{Votes: &reading.Votes{Vote: reading.VoteResult{Keys: []*string{&a, &a}}, Samples: []reading.Sample{{Answer: "a", Correct: true}, {Answer: "a"}}}}},
		{"pal", raw(palDetail{Vote: reading.VoteResult{Key: "5", Keys: []*string{&five}}, Samples: []PALSample{{Program: "p", Answer: "5", Correct: true, Reason: "r"}}}),
			&reading.Samples{Rule: reading.RuleVote, Keys: []*string{&five}, Answers: []string{"5"}, Correct: []bool{true}},
			reading.ItemView{Votes: &reading.Votes{Vote: reading.VoteResult{Key: "5", Keys: []*string{&five}}, Samples: []reading.Sample{{Answer: "5", Correct: true, Reason: "r"}}}}},
		{"tot", raw(totDetail{Best: 3, Final: []int{3, 4}}), nil, reading.ItemView{Tree: &reading.TreeMarks{Best: 3, Final: []int{3, 4}}}},
		{"tot", []byte(`{"final":[1]}`), nil, reading.ItemView{Tree: &reading.TreeMarks{Best: -1, Final: []int{1}}}},
		{"mcts", raw(MCTSDetail{Best: 2, Terminals: []int{2}}), nil, reading.ItemView{Tree: &reading.TreeMarks{Best: 2}}},
		{"lats", raw(LATSDetail{Best: 5}), nil, reading.ItemView{Tree: &reading.TreeMarks{Best: 5}}},
		{"react", raw(react), nil, reading.ItemView{Trajectory: &react}},
		{"reflexion", raw(trials), nil, reading.ItemView{Trials: &trials}},
		{"selfrefine", raw(iters), nil, reading.ItemView{Iterations: &iters}},
	}
	for _, c := range cases {
		rd := reading.Of(c.strategy)
		got, ok := rd.SamplesOf(c.detail)
		if (c.samples != nil) != ok || (ok && !reflect.DeepEqual(got, *c.samples)) {
			t.Errorf("%s %s: samples %+v (%v), want %+v", c.strategy, c.detail, got, ok, c.samples)
		}
		v := rd.ViewOf(c.detail)
		if (v.Trajectory != nil || v.Trials != nil) && v.Conversation == nil {
			t.Errorf("%s %s: no conversation", c.strategy, c.detail)
		}
		v.Conversation = nil // its turns are reading's to test
		if !reflect.DeepEqual(v, c.view) {
			t.Errorf("%s %s: view %+v, want %+v", c.strategy, c.detail, v, c.view)
		}
	}
	for _, s := range Registry() {
		rd := reading.Of(s.Name)
		for _, bad := range []string{`garbage`, `{"samples":[]}`, `{"agents":2,"rounds":[]}`} {
			if got, ok := rd.SamplesOf([]byte(bad)); ok {
				t.Errorf("%s reads samples %+v from %s", s.Name, got, bad)
			}
			if rd.Rounds != nil {
				if got, ok := rd.Rounds([]byte(bad)); ok {
					t.Errorf("%s reads a transcript %+v from %s", s.Name, got, bad)
				}
			}
			if bad == "garbage" && rd.ViewOf([]byte(bad)) != (reading.ItemView{}) {
				t.Errorf("%s draws garbage", s.Name)
			}
		}
	}
}
