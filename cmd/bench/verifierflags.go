package main

import (
	"flag"
	"os"
	"strings"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/verify"
)

// verifierFlags registers the verifier role's flags (bon, beam and dvts
// ask a verifier; any other strategy refuses them).
func verifierFlags(fs *flag.FlagSet, cfg *bench.Config) {
	v := &cfg.Verify
	fs.StringVar(&v.Model, "verifier-model", "", "model scoring solutions for bon, beam and dvts, MODEL@NAME for one on an --endpoint NAME; default the run's model (the simulator: its simulated verifier)")
	fs.StringVar(&v.BaseURL, "verifier-base-url", "", "the verifier's endpoint: a reward model server's root for prm/orm (vLLM /pooling, SGLang /classify), an OpenAI-compatible /v1 for llm; default the run's endpoint")
	fs.StringVar(&v.Kind, "verifier-kind", "", "verifier kind: "+strings.Join(verify.Kinds, "|")+" (prm: a score per step; orm: one per answer; llm: P(\"Yes\") of a generative judge); default prm on the simulator, llm otherwise")
	fs.StringVar(&v.Sep, "verifier-sep", "", "a prm's step tag, written after each step (default "+verify.DefaultSep+", Qwen2.5-Math-PRM's)")
	fs.StringVar(&v.Server, "verifier-server", "", "a reward model's server: "+strings.Join(verify.Servers, "|")+" (default vllm)")
	fs.StringVar(&v.System, "verifier-system", "", "a reward model's system turn (default Qwen's math reward models'; - for none)")
	fs.IntVar(&v.Samples, "verifier-samples", 0, "an llm verifier's answers per request: P(\"Yes\") is averaged from their log probabilities, or their Yes votes where the server gives none (default 1)")
}

// verifierKeyFlag registers --verifier-api-key: the key of a verifier on
// its own endpoint (default $VERIFIER_API_KEY). The run's key is never
// sent there.
func verifierKeyFlag(fs *flag.FlagSet) func() string {
	key := fs.String("verifier-api-key", "", "API key of a verifier on another endpoint than the run's (default $VERIFIER_API_KEY; the run's key is never sent there; never stored"+keysNote+")")
	return func() string {
		if *key != "" {
			return *key
		}
		return os.Getenv("VERIFIER_API_KEY")
	}
}

// keysNote is said by every flag taking a key: a process's command line is
// visible to every user of the machine.
const keysNote = "; a key given as a flag is visible to other users in ps and /proc: prefer the variable"

// judgeKeyFlag registers --judge-api-key: the key of a judge on its own
// endpoint (default $JUDGE_API_KEY). The run's key is never sent there;
// without one the judge gets no key.
func judgeKeyFlag(fs *flag.FlagSet) func() string {
	key := fs.String("judge-api-key", "", "API key of a judge on another endpoint than the run's (default $JUDGE_API_KEY; the run's key is never sent there, and without one the judge gets none; never stored"+keysNote+")")
	return func() string {
		if *key != "" {
			return *key
		}
		return os.Getenv("JUDGE_API_KEY")
	}
}
