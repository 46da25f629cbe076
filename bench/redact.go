package bench

import (
	"os"

	"github.com/reasonbench/reasonbench/secrets"
	"github.com/reasonbench/reasonbench/store"
)

// registerKeys adds every key a run knows (its own, the judge's, the
// verifier's, the named endpoints', and the variables bench reads them
// from) to secrets.Process, which keeps them from the processes bench
// starts and from what it stores.
func registerKeys(cfg Config) {
	secrets.Process.Add(cfg.APIKey, cfg.VerifierAPIKey, cfg.JudgeAPIKey,
		os.Getenv("OPENAI_API_KEY"), os.Getenv("JUDGE_API_KEY"), os.Getenv("VERIFIER_API_KEY"))
	for _, k := range cfg.NamedKeys {
		secrets.Process.Add(k)
	}
	for _, e := range cfg.NamedEndpoints {
		if e.KeyEnv != "" {
			secrets.Process.Add(os.Getenv(e.KeyEnv))
		}
	}
}

// redact is secrets.Process.Redact: every text a run stores that a
// program, a tool or a server wrote goes through it.
func redact(s string) string { return secrets.Process.Redact(s) }

// redactItem is an item as stored: no key in its output, detail (a
// program's stderr tail) or error.
func redactItem(it store.Item) store.Item {
	it.Output = redact(it.Output)
	it.Error = redact(it.Error)
	it.Detail = secrets.Process.RedactJSON(it.Detail)
	return it
}
