package llm

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
)

// fullRequest sets every field of a request, so that each can be changed.
func fullRequest() Request {
	return Request{
		Messages: []Message{{Role: "user", Content: "c", Reasoning: "r", ToolCalls: []ToolCall{{ID: "i", Name: "n", Arguments: "{}"}},
			ToolCallID: "t", Name: "m"}},
		N: 2, Temperature: Temp(0.7), MaxTokens: 10, Stop: []string{"\n"}, Seed: 5,
		Tools: []ToolSpec{{Name: "search", Description: "d", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Extra: map[string]json.RawMessage{"top_p": json.RawMessage(`0.9`)}, Purpose: "p", Call: "s1/propose", Share: "",
		TopLogprobs: 3, Reward: &Reward{Kind: "prm", Sep: "<extra_0>"},
	}
}

// TestCacheKeyFields: every field that can change an answer changes the
// key, and only those. The list of fields is read by reflection, so a new
// field of Request (or of the types inside it) fails this test until it is
// placed on one side.
func TestCacheKeyFields(t *testing.T) {
	notInKey := map[string]bool{"Request.Purpose": true, "Request.Share": true}
	base := fullRequest()
	k0 := CacheKey("sim", base)
	checked := 0
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name := prefix + "." + f.Name
			fv := v.Field(i)
			switch fv.Kind() {
			case reflect.Slice:
				if fv.Type().Elem().Kind() == reflect.Struct && fv.Len() > 0 {
					walk(v.Type().Field(i).Type.Elem().Name(), fv.Index(0))
					v = rebind(prefix, &base) // the walk replaced base
					fv = v.Field(i)
				}
			}
			if !mutate(fv) {
				t.Fatalf("%s: no way to change a %s in this test", name, fv.Kind())
			}
			checked++
			changed := CacheKey("sim", base) != k0
			if changed == notInKey[name] {
				t.Errorf("%s changed: key changed %v, want %v", name, changed, !notInKey[name])
			}
			base = fullRequest()
			// fv points into the old base: rebind v to the new one.
			v = rebind(prefix, &base)
		}
	}
	walk("Request", reflect.ValueOf(&base).Elem())
	if checked < 20 {
		t.Errorf("checked %d fields, want every field of Request, Message, ToolCall and ToolSpec", checked)
	}
	if CacheKey("other", base) == k0 {
		t.Error("the backend does not change the key")
	}
}

// rebind returns the struct a walk prefix names inside r.
func rebind(prefix string, r *Request) reflect.Value {
	switch prefix {
	case "Message":
		return reflect.ValueOf(&r.Messages[0]).Elem()
	case "ToolCall":
		return reflect.ValueOf(&r.Messages[0].ToolCalls[0]).Elem()
	case "ToolSpec":
		return reflect.ValueOf(&r.Tools[0]).Elem()
	}
	return reflect.ValueOf(r).Elem()
}

func mutate(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Int, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Pointer: // *float64, *Reward
		if r, ok := v.Interface().(*Reward); ok {
			v.Set(reflect.ValueOf(&Reward{Kind: r.Kind + "x", Sep: r.Sep}))
			return true
		}
		x := v.Elem().Float() + 0.1
		v.Set(reflect.ValueOf(&x))
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(json.RawMessage{}) {
			v.SetBytes([]byte(`{"type":"string"}`))
			return true
		}
		if v.Len() == 0 {
			return false
		}
		v.Set(reflect.Append(v, v.Index(0)))
	case reflect.Map:
		v.Set(reflect.ValueOf(map[string]json.RawMessage{"top_p": json.RawMessage(`0.8`)}))
	default:
		return false
	}
	return true
}

func TestIdentifySeeds(t *testing.T) {
	var got []Request
	var mu sync.Mutex
	rec := SamplerFunc(func(_ context.Context, req Request) (Response, error) {
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		return Response{Choices: []Choice{{}}}, nil
	})
	item1 := Identify(100, 7)(rec)
	item2 := Identify(200, 7)(rec)
	ctx := context.Background()
	ask := func(s Sampler, call, share string) int64 {
		t.Helper()
		if _, err := s.Sample(ctx, Request{Messages: []Message{{Role: "user", Content: "same text"}}, Call: call, Share: share, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		return got[len(got)-1].Seed
	}
	a, b := ask(item1, "t0/act", ""), ask(item1, "t1/act", "")
	if a == b {
		t.Errorf("two identities of an item drew with one seed %d", a)
	}
	if again := ask(item1, "t0/act", ""); again != a {
		t.Errorf("one identity gave seeds %d then %d", a, again)
	}
	if other := ask(item2, "t0/act", ""); other == a {
		t.Errorf("two items' calls of one identity share seed %d", a)
	}
	if s1, s2 := ask(item1, "value/x", "tot_value"), ask(item2, "value/x", "tot_value"); s1 != s2 {
		t.Errorf("a shared call has seeds %d and %d in two items", s1, s2)
	}
	if s1, s2 := ask(item1, "value/x", "tot_value"), ask(item1, "value/x", "other"); s1 == s2 {
		t.Error("two sharing names give one draw")
	}
	for _, s := range got {
		if s.Seed < 0 || s.Seed >= 1<<30 {
			t.Errorf("seed %d outside [0, 2^30)", s.Seed)
		}
	}
	if _, err := item1.Sample(ctx, Request{Purpose: "cot"}); err == nil {
		t.Error("a call without an identity was sent")
	}
	if k1, k2 := CacheKey("b", Request{Call: "a", Seed: 3}), CacheKey("b", Request{Call: "b", Seed: 3}); k1 == k2 {
		t.Error("two identities share a key when their seeds collide")
	}
}

func TestAnonymousStripsIdentity(t *testing.T) {
	var seen Request
	s := Anonymous(9)(SamplerFunc(func(_ context.Context, req Request) (Response, error) { seen = req; return Response{}, nil }))
	if _, err := s.Sample(context.Background(), Request{Call: "c", Share: "s"}); err != nil {
		t.Fatal(err)
	}
	if seen.Call != "" || seen.Share != "" || seen.Seed != 9 {
		t.Errorf("anonymous request %+v, want no identity and the item's seed", seen)
	}
	// A request keyed without identity is keyed as before identities.
	b, _ := json.Marshal(Request{Seed: 9})
	if string(b) != `{"messages":null,"n":0,"temperature":null,"seed":9,"purpose":""}` {
		t.Errorf("a request without identity encodes as %s", b)
	}
}

func TestSharedDrawsOnce(t *testing.T) {
	var calls atomic.Int64
	release := make(chan struct{})
	backend := SamplerFunc(func(_ context.Context, req Request) (Response, error) {
		calls.Add(1)
		<-release
		return Response{Choices: []Choice{{Content: req.Call}}, Usage: Usage{PromptTokens: 3}}, nil
	})
	shared := Shared()
	const askers = 8
	var wg sync.WaitGroup
	resps := make([]Response, askers)
	for i := range askers {
		s := shared(backend) // one chain per item, one Shared per run
		wg.Go(func() {
			var err error
			resps[i], err = s.Sample(context.Background(), Request{Call: "value/x", Share: "tot_value", Seed: 4})
			if err != nil {
				t.Error(err)
			}
		})
	}
	for calls.Load() == 0 {
		// wait for the first asker to reach the backend
	}
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("%d draws for one shared call, want 1", n)
	}
	hits := 0
	for _, r := range resps {
		if r.Choices[0].Content != "value/x" || r.Usage.PromptTokens != 3 {
			t.Errorf("asker got %+v", r)
		}
		if r.CacheHit {
			hits++
		}
	}
	if hits != askers-1 {
		t.Errorf("%d hits, want %d (all but the asker that drew)", hits, askers-1)
	}
	// Later askers get it too; calls without Share pass through every time.
	if r, _ := shared(backend).Sample(context.Background(), Request{Call: "value/x", Share: "tot_value", Seed: 4}); !r.CacheHit {
		t.Error("a later asker drew again")
	}
	for range 2 {
		if _, err := shared(backend).Sample(context.Background(), Request{Call: "t0/cot", Seed: 4}); err != nil {
			t.Fatal(err)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d backend calls, want 1 shared and 2 unshared", n)
	}
}

func TestSharedForgetsFailures(t *testing.T) {
	fail := true
	backend := SamplerFunc(func(_ context.Context, req Request) (Response, error) {
		if fail {
			return Response{}, errors.New("503")
		}
		return Response{Choices: []Choice{{Content: "ok"}}}, nil
	})
	s := Shared()(backend)
	req := Request{Call: "value/x", Share: "tot_value"}
	if _, err := s.Sample(context.Background(), req); err == nil {
		t.Fatal("want the failure")
	}
	fail = false
	r, err := s.Sample(context.Background(), req)
	if err != nil || r.CacheHit || r.Choices[0].Content != "ok" {
		t.Errorf("after a failure: %+v %v, want a fresh draw", r, err)
	}
}
