package catalog

// reflexionCodePresets are the Reflexion paper's programming runs (Shinn
// et al. 2023) as the reference ran them (strategy reflexion_code): the
// logged GPT-4 MBPP run (397 problems, 5 iterations) was made by the code
// at commit b448a9b, whose protocol version=b448a9b follows; the HumanEval
// log (164 problems, 10 iterations) does not say which code made it, and
// its presets use the same version (--set version=current gives today's
// programming_runs protocol). simple is the reference's one-shot baseline
// (simple.py). Temperature 0 as the reference. They score by the task's
// reference rule (the Reflexion executor's own check, forgeable by the
// program as that executor is), because the logged verdicts are that
// rule's; rescore a finished run in order, in one namespace, with
// `bench score --rule reference` (docs/reflexion-code.md). The reflexion
// presets run the internal tests in the reference executor's shared
// namespace (namespace=shared): problems in range order, each test seeing
// what the earlier problems' tests exec'd.
func reflexionCodePresets() []Preset {
	p := func(task, rng, strategy string, iters int, doc string) Preset {
		params := map[string]any{"strategy": strategy, "version": "b448a9b", "temperature": 0.0}
		if strategy == "reflexion" {
			params["max_iters"] = iters
			params["namespace"] = "shared"
		}
		return Preset{Name: "reflexion-" + task + "/" + strategy, Doc: doc, Task: task, Strategy: "reflexion_code", Range: rng, Params: params, Rule: "reference"}
	}
	return []Preset{
		p("mbpp", "0:397", "simple", 1, "MBPP (typed Python, 397 problems): one implementation, hidden tests (the reference's simple.py)"),
		p("mbpp", "0:397", "reflexion", 5, "MBPP: Reflexion with 5 model-written internal tests, up to 5 implementations, pass@1 (the logged GPT-4 run, code b448a9b); internal tests in the reference's shared namespace (problems one at a time, in order)"),
		p("humaneval", "0:164", "simple", 1, "HumanEval (164 problems): one implementation, hidden tests (the reference's simple.py)"),
		p("humaneval", "0:164", "reflexion", 10, "HumanEval: Reflexion with up to 10 implementations, pass@1 (the logged GPT-4 run's 10 iterations; protocol b448a9b); internal tests in the reference's shared namespace (problems one at a time, in order)"),
	}
}
