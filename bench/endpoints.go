package bench

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies"
)

// Endpoint is a named endpoint (--endpoint NAME=URL[,KEY_ENV]) a role's
// model may be on, written MODEL@NAME; its key is read from the variable
// KeyEnv names (the name is recorded, never the key).
type Endpoint struct {
	Name   string `json:"name"`
	URL    string `json:"url"`
	KeyEnv string `json:"key_env,omitempty"`
}

var endpointName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// ParseEndpoint reads NAME=URL[,KEY_ENV].
func ParseEndpoint(s string) (Endpoint, error) {
	name, rest, ok := strings.Cut(s, "=")
	if !ok || !endpointName.MatchString(name) {
		return Endpoint{}, fmt.Errorf("--endpoint %q: want NAME=URL[,KEY_ENV], NAME a letter then letters, digits, - or _", s)
	}
	u, keyEnv, _ := strings.Cut(rest, ",")
	if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return Endpoint{}, fmt.Errorf("--endpoint %s: %q is not an http(s) URL (e.g. http://127.0.0.1:8000/v1)", name, u)
	}
	if keyEnv != "" && !endpointName.MatchString(keyEnv) {
		return Endpoint{}, fmt.Errorf("--endpoint %s: %q is not an environment variable name", name, keyEnv)
	}
	return Endpoint{Name: name, URL: u, KeyEnv: keyEnv}, nil
}

// EndpointKeys reads each endpoint's key from the variable it names.
func EndpointKeys(eps []Endpoint, getenv func(string) string) map[string]string {
	keys := map[string]string{}
	for _, e := range eps {
		if e.KeyEnv != "" {
			keys[e.Name] = getenv(e.KeyEnv)
		}
	}
	return keys
}

// agentModel is where a model a strategy names goes: its name on the
// wire and its endpoint's URL and key ("" URL: in process).
type agentModel struct {
	model, baseURL, key string
}

// resolveModel resolves MODEL or MODEL@NAME against the run's endpoint
// and the named ones.
func (c Config) resolveModel(spec string) (agentModel, error) {
	model, name, named := strings.Cut(spec, "@")
	if !named {
		if c.BaseURL == "" && model != SimModel {
			return agentModel{}, fmt.Errorf("model %s: the run is in process (the simulator); put it on an endpoint with %s@NAME and --endpoint NAME=URL", model, model)
		}
		return agentModel{model: model, baseURL: c.BaseURL, key: c.APIKey}, nil
	}
	for _, e := range c.NamedEndpoints {
		if e.Name == name {
			key := c.NamedKeys[name]
			if key == "" && e.KeyEnv != "" {
				key = os.Getenv(e.KeyEnv) // a resume: the flags are not given again
			}
			return agentModel{model: model, baseURL: e.URL, key: key}, nil
		}
	}
	return agentModel{}, fmt.Errorf("model %s: no endpoint %s (name it with --endpoint %s=URL[,KEY_ENV])", spec, name, name)
}

// judgeKey is the key sent to the judge: its named endpoint's for a judge
// model MODEL@NAME, the run's on the run's endpoint, else its own
// (--judge-api-key; "" sends none): the run's key never goes to another
// endpoint.
func (c Config) judgeKey() string {
	if c.JudgeBaseURL == "" && strings.Contains(c.JudgeModel, "@") {
		if am, err := c.resolveModel(c.JudgeModel); err == nil {
			return am.key
		}
	}
	if _, u := c.Judge(); u == c.BaseURL {
		return c.APIKey
	}
	return c.JudgeAPIKey
}

// moveEndpoints points a resumed run at the endpoints a resume names: the
// run's model and named endpoints, by name (a name the run never had is
// refused).
func (c *Config) moveEndpoints(o ResumeOptions) error {
	if o.BaseURL == "" && c.BaseURL != "" {
		o.BaseURL = o.EnvBaseURL
	}
	if o.BaseURL != "" {
		if c.BaseURL == "" {
			return fmt.Errorf("--base-url: run's model %s ran in process (the simulator); it cannot move to an endpoint", c.Model)
		}
		c.BaseURL = o.BaseURL
	}
	for _, e := range o.Endpoints {
		found := false
		for i := range c.NamedEndpoints {
			if c.NamedEndpoints[i].Name == e.Name {
				c.NamedEndpoints[i] = e
				found = true
			}
		}
		if !found {
			return fmt.Errorf("--endpoint %s: the run has no endpoint of that name", e.Name)
		}
	}
	if len(o.NamedKeys) > 0 {
		if c.NamedKeys == nil {
			c.NamedKeys = map[string]string{}
		}
		for k, v := range o.NamedKeys {
			if v != "" {
				c.NamedKeys[k] = v
			}
		}
	}
	return nil
}

// checkAgents refuses a strategy's model whose endpoint is unknown,
// before the run is stored.
func checkAgents(p *plan) error {
	mu, ok := p.strategy.(strategies.ModelUser)
	if !ok {
		return nil
	}
	for _, m := range mu.AgentModels() {
		if _, err := p.cfg.resolveModel(m); err != nil {
			return err
		}
	}
	return nil
}

// labelModel names the model that answered in each response, and its
// endpoint: the server's name for the model (a dated snapshot, say), else
// the one asked, then "@NAME" for a named endpoint, so the recorded call
// says which answered.
func labelModel(spec string) llm.Middleware {
	model, endpoint, named := strings.Cut(spec, "@")
	return func(next llm.Sampler) llm.Sampler {
		return llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			resp, err := next.Sample(ctx, req)
			if err != nil {
				return resp, err
			}
			if resp.Model == "" {
				resp.Model = model
			}
			if named {
				resp.Model += "@" + endpoint
			}
			return resp, err
		})
	}
}
