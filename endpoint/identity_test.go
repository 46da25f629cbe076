package endpoint

import (
	"context"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

// calls sends reqs (api, header name, request) through one Identity and
// returns the identities the model saw.
func identities(t *testing.T, reqs []sent) []string {
	t.Helper()
	var got []string
	s := Identity("program")(llm.SamplerFunc(func(_ context.Context, r llm.Request) (llm.Response, error) {
		if r.Purpose != "program" || r.Share != "" {
			t.Errorf("purpose %q share %q", r.Purpose, r.Share)
		}
		got = append(got, r.Call)
		return llm.Response{}, nil
	}))
	for _, r := range reqs {
		if _, err := s.Sample(withCall(context.Background(), r.name, r.api), r.req); err != nil {
			t.Fatal(err)
		}
	}
	return got
}

type sent struct {
	api, name string
	req       llm.Request
}

func TestIdentity(t *testing.T) {
	a := llm.Request{Messages: []llm.Message{{Role: "user", Content: "a"}}, N: 2, Temperature: llm.Temp(0.7)}
	b := llm.Request{Messages: []llm.Message{{Role: "user", Content: "b"}}, N: 2, Temperature: llm.Temp(0.7)}
	aSeeded := a
	aSeeded.Seed, aSeeded.Share, aSeeded.Call = 99, "x", "y" // what the program cannot set
	aN1 := a
	aN1.N = 1
	aCold := a
	aCold.Temperature = nil
	ka, kb := "p/"+ContentKey(APIChat, a), "p/"+ContentKey(APIChat, b)
	for _, c := range []struct {
		name string
		reqs []sent
		want []string
	}{
		{"identical requests count up in arrival order", []sent{{APIChat, "", a}, {APIChat, "", b}, {APIChat, "", a}, {APIChat, "", a}},
			[]string{ka + "#1", kb + "#1", ka + "#2", ka + "#3"}},
		{"the seed, share and call a request carries are not its content", []sent{{APIChat, "", a}, {APIChat, "", aSeeded}},
			[]string{ka + "#1", ka + "#2"}},
		{"n, temperature and the API are", []sent{{APIChat, "", a}, {APIChat, "", aN1}, {APIChat, "", aCold}, {APICompletions, "", a}},
			[]string{ka + "#1", "p/" + ContentKey(APIChat, aN1) + "#1", "p/" + ContentKey(APIChat, aCold) + "#1", "p/" + ContentKey(APICompletions, a) + "#1"}},
		{"a named call is its name, a repeat name#k", []sent{{APIChat, "plan", a}, {APIChat, "plan", b}, {APIChat, "", a}, {APIChat, "plan", a}},
			[]string{"plan", "plan#2", ka + "#1", "plan#3"}},
		{"a name sent literally is never issued twice", []sent{{APIChat, "s#2", a}, {APIChat, "s", a}, {APIChat, "s", a}},
			[]string{"s#2", "s", "s#3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := identities(t, c.reqs)
			if len(got) != len(c.want) {
				t.Fatalf("got %q", got)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("call %d: %q, want %q", i, got[i], c.want[i])
				}
			}
		})
	}
	if ka == kb || len(ka) != 2+12 {
		t.Errorf("content keys %q %q", ka, kb)
	}
}
