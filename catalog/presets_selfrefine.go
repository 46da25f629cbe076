package catalog

// selfRefinePresets are Self-Refine's math-reasoning setting (Madaan et
// al., 2023; madaan/self-refine src/gsm): GSM8K with programs (PAL), the
// first program at temperature 0 (run.py's default), feedback at 0.7,
// stopping when the feedback says "it is correct", at most 4 feedback
// rounds (max_attempts=4: five programs at most); every program is run in
// the sandbox and scored. The baseline is the first program alone (the
// reference's generated_answer_direct, the paper's "Base" column). The
// few-shot prompts are ours, not the reference's data/prompt/gsm files
// (which reach a run only through `bench prompts import`). The program's
// limit is the strategy's timeout (5 s of wall and CPU time with the
// interpreter's start); the reference's evaluation allows solution() 1 s.
//
// selfrefine-humaneval/code is not a setting of the paper (its code has no
// HumanEval task): Self-Refine's loop on HumanEval with execution feedback
// on the docstring's visible examples (protocol=code), at most 4
// functions, stopping on the answer protocol's "no change needed", the
// first function and every call at temperature 0.
func selfRefinePresets() []Preset {
	pal := func(iterations int) map[string]any {
		return map[string]any{"protocol": "pal", "iterations": iterations, "stop": "phrase", "stop_phrase": "it is correct",
			"temperature": 0.0, "feedback_temperature": 0.7}
	}
	return []Preset{
		{Name: "selfrefine-gsm8k/pal-init", Doc: "Self-Refine's GSM8K baseline: the first PAL program only (greedy)", Task: "gsm8k", Strategy: "selfrefine",
			Params: pal(1)},
		{Name: "selfrefine-gsm8k/pal", Doc: "Self-Refine on GSM8K with PAL: feedback on the program writes the fixed program, until it says \"it is correct\", at most 4 rounds", Task: "gsm8k", Strategy: "selfrefine",
			Params: pal(5)},
		{Name: "selfrefine-humaneval/code", Doc: "Self-Refine on HumanEval with execution feedback: each function run on the docstring's examples, a review of it and the results, an improved function, until the review says \"no change needed\", at most 4 functions; hidden tests once on the last", Task: "humaneval", Strategy: "selfrefine",
			Range: "0:164", Params: map[string]any{"protocol": "code", "iterations": 4, "stop": "phrase", "stop_phrase": "no change needed", "temperature": 0.0}},
	}
}
