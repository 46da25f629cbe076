package events

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestNatural(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"s2/f9", "s2/f10", -1},
		{"t0/s10", "t0/s9", 1},
		{"t1/s1", "t1/s1", 0},
		{"", "s0", -1},
		{"s01", "s1", 0},
		{"a", "b", -1},
		{"t0/s3", "t0/s3/x", -1},
		{"s2/f10", "s2/f9", 1},
		{"s10/f0", "s9/f0", 1},
		{"n3/value", "n3/value", 0},
		{"a007", "a7", 0},
		{"judge/ab", "judge/b", -1},
	} {
		if got := Natural(c.a, c.b); got != c.want {
			t.Errorf("Natural(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestStepOfCall(t *testing.T) {
	for call, want := range map[string]string{"t0/s3/react": "t0/s3", "bon": "", "": "", "s1/b2/verify": "s1/b2", "judge/ab12": "judge"} {
		if got := StepOfCall(call); got != want {
			t.Errorf("StepOfCall(%q) = %q, want %q", call, got, want)
		}
	}
}

// A declared step numbers its events in arrival order; an undeclared one
// takes its call's step and no number; a nil log records nothing.
func TestLogStamps(t *testing.T) {
	var l Log
	ctx := context.Background()
	l.Record(ctx, Event{Kind: Verifier, Call: "s2/verify"})
	l.Record(ctx, Event{Kind: Tool, Call: "srv/add/abc#1"}) // a tool call's id is no step
	in := WithStep(ctx, "t0/s1")
	l.Record(in, Event{Kind: Tool, Call: "srv/add/abc#0"})
	l.Record(in, Event{Kind: User, Text: "hi"})
	m := l.Stamp(in, Event{Kind: Model, Call: "t0/user/1"})
	got := l.Take()
	want := []Event{{Kind: Verifier, Call: "s2/verify", Step: "s2"}, {Kind: Tool, Call: "srv/add/abc#1"}, {Kind: Tool, Call: "srv/add/abc#0", Step: "t0/s1"},
		{Kind: User, Text: "hi", Step: "t0/s1", Seq: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("recorded %+v, want %+v", got, want)
	}
	if m.Step != "t0/s1" || m.Seq != 2 {
		t.Errorf("stamped model call %+v, want step t0/s1 seq 2", m)
	}
	if l.Take() != nil {
		t.Error("Take after Take returned events")
	}
	l.Return(got[:1])
	if len(l.Take()) != 1 {
		t.Error("Return: the event was not taken again")
	}
	var nilLog *Log
	nilLog.Record(ctx, Event{Kind: User})
	if nilLog.Take() != nil {
		t.Error("a nil log kept an event")
	}
}

// Events sorted by Compare come out the same whatever order they arrived
// in: what makes an item's record identical at any concurrency.
func TestCompareIgnoresArrival(t *testing.T) {
	evs := []Event{
		{Kind: Model, Call: "bon", Role: "model"},
		{Kind: Verifier, Call: "s0/verify", Step: "s0"},
		{Kind: Verifier, Call: "s10/verify", Step: "s10"},
		{Kind: Verifier, Call: "s9/verify", Step: "s9"},
		{Kind: Model, Call: "t0/s1/react", Step: "t0/s1"},
		{Kind: Tool, Call: "b/x#0", Step: "t0/s1", Seq: 1},
		{Kind: Tool, Call: "a/y#0", Step: "t0/s1", Seq: 2},
		{Kind: Verdict, Correct: true, Score: 1},
		{Kind: Model, Call: "t0/s2/react", Step: "t0/s2"},
	}
	want := slices.Clone(evs)
	slices.SortFunc(want, Compare)
	if want[len(want)-1].Kind != Verdict {
		t.Errorf("the verdict sorts at %v, not last", want)
	}
	if i, j := slices.IndexFunc(want, func(e Event) bool { return e.Call == "s9/verify" }), slices.IndexFunc(want, func(e Event) bool { return e.Call == "s10/verify" }); i > j {
		t.Error("s10 sorts before s9")
	}
	// Within a declared step, the order of arrival (Seq), not the name.
	if i, j := slices.IndexFunc(want, func(e Event) bool { return e.Call == "b/x#0" }), slices.IndexFunc(want, func(e Event) bool { return e.Call == "a/y#0" }); i > j {
		t.Error("a declared step's tool calls are not in the order they were made")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		got := slices.Clone(evs)
		r.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		slices.SortFunc(got, Compare)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("order depends on arrival:\n%+v\n%+v", got, want)
		}
	}
}

// Concurrent recording keeps every event and numbers a step's events
// 0..n-1 once each.
func TestLogConcurrent(t *testing.T) {
	var l Log
	ctx := WithStep(context.Background(), "s")
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() { l.Record(ctx, Event{Kind: Tool, Call: fmt.Sprint(i)}) })
	}
	wg.Wait()
	got := l.Take()
	var seqs []int
	for _, e := range got {
		seqs = append(seqs, e.Seq)
	}
	slices.Sort(seqs)
	for i, s := range seqs {
		if s != i {
			t.Fatalf("sequence numbers %v, want 0..63 once each", seqs)
		}
	}
}

func sample() []Event {
	return []Event{
		{Kind: Model, Step: "t0/s1", Call: "t0/s1/react", Role: "model"},
		{Kind: Model, Step: "t0/s1", Seq: 3, Call: "t0/user/1", Role: "user"},
		{Kind: Model, Step: "t0/s1", Seq: 4, Call: "t0/user/2", Role: "user"},
		{Kind: Tool, Step: "t0/s2", Seq: 1, Call: "srv/add/0a1b#0", Server: "srv", Tool: "add", Arguments: json.RawMessage(`{"a":1}`),
			Result: "3", LatencyMS: 1.234, Cached: true},
		{Kind: Tool, Step: "t0/s2", Seq: 2, Call: "srv/add/0a1b#1", Server: "srv", Tool: "add", Error: "crashed", Result: "Error: crashed"},
		{Kind: User, Step: "t0/s3", Seq: 1, Text: "thanks ###STOP###"},
		{Kind: Verifier, Step: "s1/b0", Call: "s1/b0/verify", Scores: []float64{0.25, 1, math.Inf(1)}},
		{Kind: Verifier, Step: "s1/b1", Call: "s1/b1/verify", Error: "no scores"},
		{Kind: Verdict, Correct: true, Score: 0.5, Answer: "24"},
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	in := sample()
	got, err := Decode(Encode(in), []string{"t0/s1/react", "t0/user/1", "t0/user/2"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, in)
	}
	// A model call's event keeps only what its call record lacks: its
	// identity comes from its request, its step from the identity unless
	// declared.
	m := Event{Kind: Model, Step: "s1/f2", Call: "s1/f2/propose", Role: "model", PromptTokens: 9, LatencyMS: 3, Cached: true, Error: "x", CallID: 7}
	declared := Event{Kind: Model, Step: "t0/s1", Seq: 2, Call: "t0/user/3", Role: "user"}
	b := Encode([]Event{m, declared})
	if strings.Contains(string(b), "propose") || strings.Contains(string(b), "user/3") {
		t.Errorf("a model call's identity is stored with its event: %q", b)
	}
	back, err := Decode(b, []string{"s1/f2/propose", "t0/user/3"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Event{{Kind: Model, Step: "s1/f2", Call: "s1/f2/propose", Role: "model"}, declared}; !reflect.DeepEqual(back, want) {
		t.Errorf("model events stored %+v, want only %+v", back, want)
	}
}

// Every strict prefix of an encoding, and a byte changed anywhere, is an
// error or a different list of events; never a panic.
func TestDecodeCorrupt(t *testing.T) {
	b := Encode(sample())
	for i := range len(b) {
		if _, err := Decode(b[:i], nil); err == nil {
			t.Fatalf("prefix of %d of %d bytes decoded", i, len(b))
		}
	}
	if _, err := Decode(append(slices.Clone(b), 0), nil); err == nil {
		t.Error("trailing byte decoded")
	}
	bad := slices.Clone(b)
	bad[0] = 9
	if _, err := Decode(bad, nil); err == nil {
		t.Error("another version decoded")
	}
}

// FuzzDecode: whatever the bytes, Decode returns events or an error, and
// events it returns encode to bytes that decode to the same events.
func FuzzDecode(f *testing.F) {
	f.Add(Encode(sample()))
	f.Add([]byte{1, 0})
	f.Add([]byte{1, 1, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, err := Decode(b, nil)
		if err != nil {
			return
		}
		again, err := Decode(Encode(evs), nil)
		if err != nil {
			t.Fatalf("re-encoded events do not decode: %v", err)
		}
		if !sameEvents(again, evs) {
			t.Fatalf("re-encoding changed the events:\n%+v\n%+v", again, evs)
		}
	})
}

// sameEvents compares events with NaN scores equal to themselves.
func sameEvents(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if len(x.Scores) != len(y.Scores) {
			return false
		}
		for j := range x.Scores {
			if math.Float64bits(x.Scores[j]) != math.Float64bits(y.Scores[j]) {
				return false
			}
		}
		if math.Float64bits(x.Score) != math.Float64bits(y.Score) {
			return false
		}
		x.Scores, y.Scores, x.Score, y.Score = nil, nil, 0, 0
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

func TestKindText(t *testing.T) {
	for _, k := range Kinds {
		b, err := k.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Kind
		if err := back.UnmarshalText(b); err != nil || back != k {
			t.Errorf("%v: round trip gave %v, %v", k, back, err)
		}
	}
	if _, err := Kind(0).MarshalText(); err == nil {
		t.Error("kind 0 marshalled")
	}
	var k Kind
	if k.UnmarshalText([]byte("nope")) == nil {
		t.Error(`"nope" read as a kind`)
	}
}
