package catalog

// scPresets are the self-consistency paper's GSM8K setting for its GPT-3
// runs (Wang et al. 2023, ICLR; section 3.1): chain-of-thought prompting
// with greedy decoding, against self-consistency over 40 sampled paths at
// temperature 0.7 (no top-k truncation), majority vote on the final
// number. The few-shot prompts are ours, not the paper's eight exemplars.
// The paper's figures (accuracy on the test split) are its models', quoted
// in docs/papers.md: code-davinci-002 60.1 → 78.0, PaLM 540B 56.5 → 74.4,
// LaMDA 137B 17.1 → 27.7.
func scPresets() []Preset {
	return []Preset{
		{Name: "sc-gsm8k/cot", Doc: "CoT, greedy decoding (one path, temperature 0); the paper's baseline", Task: "gsm8k", Strategy: "cot",
			Params: map[string]any{"k": 1, "temperature": 0.0}},
		{Name: "sc-gsm8k/cotsc-40", Doc: "CoT-SC: 40 paths at temperature 0.7, majority vote on the number", Task: "gsm8k", Strategy: "cotsc",
			Params: map[string]any{"k": 40, "temperature": 0.7, "vote_key": "answer"}},
	}
}
