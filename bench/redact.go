package bench

import (
	"context"
	"os"
	"slices"

	"github.com/reasonbench/reasonbench/llm"

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
	for _, u := range cfg.urls() {
		secrets.Process.Add(secrets.URLCredentials(u)...)
	}
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

// urls are every endpoint URL a configuration names.
func (c Config) urls() []string {
	out := []string{c.BaseURL, c.JudgeBaseURL, c.Verify.BaseURL}
	for _, e := range c.NamedEndpoints {
		out = append(out, e.URL)
	}
	return out
}

// stored is the configuration as a run's spec records it: its URLs
// without user info or credential-named query parameters (secrets.StripURL).
// changed says whether a URL held credentials, which a resume must be given
// again (--base-url, --endpoint).
func (c Config) stored() (Config, bool) {
	var changed, ch bool
	c.BaseURL, ch = secrets.StripURL(c.BaseURL)
	changed = changed || ch
	c.JudgeBaseURL, ch = secrets.StripURL(c.JudgeBaseURL)
	changed = changed || ch
	c.Verify.BaseURL, ch = secrets.StripURL(c.Verify.BaseURL)
	changed = changed || ch
	c.NamedEndpoints = slices.Clone(c.NamedEndpoints)
	for i := range c.NamedEndpoints {
		c.NamedEndpoints[i].URL, ch = secrets.StripURL(c.NamedEndpoints[i].URL)
		changed = changed || ch
	}
	return c, changed
}

// redactResponses removes every known key from what a model returned
// (content, reasoning, tool calls) before anything reads it: an endpoint
// that echoes its Authorization header would otherwise carry the key into
// the stored calls, the cache, the item's output and the prompts of other
// roles (a judge's).
func redactResponses(next llm.Sampler) llm.Sampler {
	return llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		resp, err := next.Sample(ctx, req)
		for i := range resp.Choices {
			c := &resp.Choices[i]
			c.Content = redact(c.Content)
			c.Reasoning = redact(c.Reasoning)
			for j := range c.ToolCalls {
				c.ToolCalls[j].Arguments = redact(c.ToolCalls[j].Arguments)
				c.ToolCalls[j].Name = redact(c.ToolCalls[j].Name)
			}
		}
		return resp, err
	})
}
