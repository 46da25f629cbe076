package catalog

// tauPresets are τ-bench's four agents (sierra-research/tau-bench,
// run.py's agent strategies) on each domain's test split at HEAD, as run.py
// runs them by default: temperature 0, at most 30 steps, the llm user
// simulator (the run's model unless --user-model), one trial (--set
// trials=4 for pass^1..4), the user simulator's setup call made as the
// reference makes it; and the logged run's configuration. Their prompts
// are the reference's with --prompts from `bench prompts import --from
// tau-bench CHECKOUT`, else the bundled templates of our own wording.
func tauPresets() []Preset {
	agents := []struct {
		name, doc string
		params    map[string]any
	}{
		{"tool-calling", "native tool calls (the reference's tool-calling agent: the policy as the system turn, the first tool call of a turn acted on)",
			map[string]any{"protocol": "tools"}},
		{"act", "the reference's act agent: the policy, the tools as JSON and an Action: JSON line a turn",
			map[string]any{"protocol": "act"}},
		{"react", "the reference's react agent: as act with a Thought: line before the action",
			map[string]any{"protocol": "react"}},
		{"few-shot", "the reference's few-shot agent: tool calling with 5 example dialogues after the policy, drawn as run.py draws them (--seed 10)",
			map[string]any{"protocol": "tools", "fewshot": 5, "fewshot_seed": 10}},
	}
	var out []Preset
	for _, domain := range []string{"airline", "retail"} {
		for _, a := range agents {
			params := map[string]any{"max_steps": 30, "temperature": 0.0, "user": "llm", "user_setup": true, "trials": 1}
			for k, v := range a.params {
				params[k] = v
			}
			out = append(out, Preset{Name: "tau-" + domain + "/" + a.name, Doc: "τ-bench " + domain + ", " + a.doc,
				Task: "tau-" + domain, Strategy: "react", Params: params})
		}
	}
	out = append(out, Preset{Name: "tau-airline/logged-run",
		Doc:  "the configuration of GPT-4o's logged airline run (historical_trajectories/gpt-4o-airline.json): version 7362a17, tool-calling agent, llm user, 4 trials of the 50 test tasks; its pass^1..4 0.420, 0.273, 0.220, 0.200",
		Task: "tau-airline-7362a17", Strategy: "react", Range: "0:50",
		Params: map[string]any{"protocol": "tools", "max_steps": 30, "temperature": 0.0, "user": "llm", "user_setup": true, "trials": 4}})
	return out
}
