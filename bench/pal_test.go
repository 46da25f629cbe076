package bench

import (
	"context"
	"github.com/reasonbench/reasonbench/sandbox/sandboxtest"
	"reflect"
	"testing"

	"github.com/reasonbench/reasonbench/llm"
)

// palConfigs are the program-running configurations: pal with a vote on
// GSM8K and on Game of 24, and Self-Refine's PAL preset.
func palConfigs(t *testing.T) map[string]Config {
	t.Helper()
	sandboxtest.Runner(t)
	mk := func(task, strategy, rng string, params map[string]any) Config {
		cfg := DefaultConfig()
		cfg.Task, cfg.Strategy, cfg.Range, cfg.Params = task, strategy, rng, params
		return cfg
	}
	refine, err := ApplyPreset(DefaultConfig(), "selfrefine-gsm8k/pal")
	if err != nil {
		t.Fatal(err)
	}
	refine.Range = "0:6"
	return map[string]Config{
		"pal-sc-gsm8k": mk("gsm8k", "pal", "0:6", map[string]any{"k": 4, "temperature": 0.7}),
		"pal-game24":   mk("game24", "pal", "900:906", map[string]any{"k": 2, "temperature": 0.7}),
		"selfrefine":   refine,
	}
}

// The program-running configurations give the same summary and items in
// process and against `bench serve-sim`'s server.
func TestPALSameInProcessAndOverHTTP(t *testing.T) {
	ctx := context.Background()
	for name, cfg := range palConfigs(t) {
		localStore := tempStore(t)
		local, err := (&Engine{Store: localStore}).Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		srv, _ := simServer(t, cfg, llm.ServerOptions{})
		remoteCfg := cfg
		remoteCfg.BaseURL = srv.URL + "/v1"
		remoteStore := tempStore(t)
		remote, err := (&Engine{Store: remoteStore}).Run(ctx, remoteCfg)
		if err != nil {
			t.Fatal(err)
		}
		if local.Accuracy != remote.Accuracy || local.Calls != remote.Calls || local.CompletionTokens != remote.CompletionTokens ||
			local.PromptTokens != remote.PromptTokens || !reflect.DeepEqual(local.Metrics, remote.Metrics) {
			t.Errorf("%s: in process %+v\nover HTTP %+v", name, local, remote)
		}
		a, _ := localStore.Items(ctx, local.RunID)
		b, _ := remoteStore.Items(ctx, remote.RunID)
		if len(a) != 6 || len(a) != len(b) {
			t.Fatalf("%s: %d and %d items", name, len(a), len(b))
		}
		for i := range a {
			if a[i].Output != b[i].Output || string(a[i].Detail) != string(b[i].Detail) {
				t.Errorf("%s item %d differs:\n%s\n%s", name, a[i].Index, a[i].Detail, b[i].Detail)
			}
			ea, _ := localStore.Executions(ctx, local.RunID, a[i].Index)
			eb, _ := remoteStore.Executions(ctx, remote.RunID, b[i].Index)
			if len(ea) == 0 || len(ea) != len(eb) {
				t.Errorf("%s item %d: %d and %d executions", name, a[i].Index, len(ea), len(eb))
				continue
			}
			for j := range ea {
				if ea[j].Site != eb[j].Site || ea[j].Program != eb[j].Program || ea[j].Stdout != eb[j].Stdout || ea[j].Status != eb[j].Status {
					t.Errorf("%s item %d execution %s differs", name, a[i].Index, ea[j].Site)
				}
			}
		}
		t.Logf("%s: accuracy %.3f, %d calls", name, local.Accuracy, local.Calls)
	}
}
