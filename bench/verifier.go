package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/param"
	"github.com/reasonbench/reasonbench/verify"
)

// VerifierConfig is the verifier role of a run (--verifier-*): the model
// scoring solutions for a strategy that asks one (strategies.VerifierUser).
// Every field "" (0) is the default: on the simulator its simulated
// verifier as a prm; on a real endpoint an llm verifier over the run's
// model.
type VerifierConfig struct {
	Model   string `json:"model,omitempty" yaml:"model"`
	BaseURL string `json:"base_url,omitempty" yaml:"base_url"`
	Kind    string `json:"kind,omitempty" yaml:"kind"`     // verify.PRM, ORM or LLM
	Sep     string `json:"sep,omitempty" yaml:"sep"`       // a prm's step tag (verify.DefaultSep)
	Server  string `json:"server,omitempty" yaml:"server"` // a reward model's server: verify.VLLM or SGLang
	// System is a reward model's system turn (verify.DefaultSystem; "-" none).
	System string `json:"system,omitempty" yaml:"system"`
	// Samples is an llm verifier's answers per request (1).
	Samples int `json:"samples,omitempty" yaml:"samples"`
}

// verifierFlags are the flags of the fields set, for messages.
func (v VerifierConfig) flags() []string {
	var out []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"--verifier-model", v.Model != ""}, {"--verifier-base-url", v.BaseURL != ""}, {"--verifier-kind", v.Kind != ""},
		{"--verifier-sep", v.Sep != ""}, {"--verifier-server", v.Server != ""}, {"--verifier-system", v.System != ""},
		{"--verifier-samples", v.Samples != 0}} {
		if f.set {
			out = append(out, f.name)
		}
	}
	return out
}

// Verifier returns the verifier's model, endpoint and kind: the run's
// model and endpoint unless set, the kind prm for the simulator and llm
// for any other model unless set.
func (c Config) Verifier() (model, baseURL, kind string) {
	v := c.Verify
	model, baseURL = c.Model, c.BaseURL
	if v.Model != "" {
		model = v.Model
	}
	if v.BaseURL != "" {
		baseURL = v.BaseURL
	} else if strings.Contains(v.Model, "@") { // MODEL@NAME: on the named endpoint, as the judge's
		if am, err := c.resolveModel(v.Model); err == nil {
			model, baseURL = am.model, am.baseURL
		}
	}
	kind = v.Kind
	if kind == "" {
		kind = verify.LLM
		if model == SimModel {
			kind = verify.PRM
		}
	}
	return model, baseURL, kind
}

// validateVerifier checks the verifier flags alone.
func (v VerifierConfig) validate() error {
	if v.Kind != "" && !slices.Contains(verify.Kinds, v.Kind) {
		return fmt.Errorf("--verifier-kind %q: want one of %s", v.Kind, strings.Join(verify.Kinds, ", "))
	}
	if v.Server != "" && !slices.Contains(verify.Servers, v.Server) {
		return fmt.Errorf("--verifier-server %q: want one of %s", v.Server, strings.Join(verify.Servers, ", "))
	}
	if v.BaseURL != "" {
		u, err := url.Parse(v.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--verifier-base-url %q: want http(s)://HOST[:PORT] (a reward model's server, or /v1 of a chat endpoint)", v.BaseURL)
		}
	}
	if v.Samples < 0 || v.Samples > llm.MaxChoicesPerRequest {
		return fmt.Errorf("--verifier-samples %d: want 1 to %d", v.Samples, llm.MaxChoicesPerRequest)
	}
	return nil
}

// verifies says why a plan's strategy asks a verifier, or "".
func verifies(strat strategies.Strategy) string {
	if vu, ok := strat.(strategies.VerifierUser); ok {
		return vu.NeedsVerifier()
	}
	return ""
}

// checkVerifier refuses what a new run may not ask of the verifier role:
// verifier flags on a strategy that asks none (recorded and silently
// unused otherwise), and a verifier that cannot be.
func checkVerifier(p *plan) error {
	v := p.cfg.Verify
	why := verifies(p.strategy)
	if why == "" {
		if fl := v.flags(); len(fl) > 0 {
			return fmt.Errorf("%s: strategy %s asks no verifier (bon, beam and dvts do); drop it", fl[0], p.cfg.Strategy)
		}
		return nil
	}
	model, _, kind := p.cfg.Verifier()
	if kind != verify.PRM && v.Sep != "" {
		return fmt.Errorf("--verifier-sep: only a prm's steps are joined by a separator (the kind is %s)", kind)
	}
	if kind == verify.LLM && v.Server != "" {
		return fmt.Errorf("--verifier-server: an llm verifier is a chat endpoint; --verifier-server names a reward model's (kind prm or orm)")
	}
	if kind != verify.LLM && v.Samples != 0 {
		return fmt.Errorf("--verifier-samples: only an llm verifier samples (the kind is %s)", kind)
	}
	if kind != verify.LLM && model != SimModel && v.Model == "" {
		return fmt.Errorf("strategy %s %s, and a %s verifier is a reward model: pass --verifier-model and --verifier-base-url of its server (the run's model %s generates)",
			p.cfg.Strategy, why, kind, model)
	}
	return nil
}

// verifierIdentity names what answers the verifier's requests, for the
// response cache and the config key.
func (p *plan) verifierIdentity() string {
	model, baseURL, kind := p.cfg.Verifier()
	switch {
	case kind == verify.LLM && !p.separateVerifier():
		return p.cfg.BackendIdentity()
	case model == SimModel && baseURL == "":
		b, _ := json.Marshal(p.cfg.Sim)
		return "verifier " + kind + " sim " + string(b)
	case kind == verify.LLM:
		id := "verifier llm " + model + " @ " + PublicEndpoint(baseURL)
		if p.cfg.API == llm.APICompletions { // its client speaks the run's API
			id += " (completions)"
		}
		return id
	}
	return "verifier " + kind + " " + model + " @ " + PublicEndpoint(baseURL) + " (" + orDefault(p.cfg.Verify.Server, verify.VLLM) + ")"
}

// verifierKey is what of the verifier enters the config key: "" for a run
// that asks none (keys of every earlier run are unchanged).
func (p *plan) verifierKey() string {
	if verifies(p.strategy) == "" {
		return ""
	}
	_, _, kind := p.cfg.Verifier()
	v := p.cfg.Verify
	key := p.verifierIdentity()
	if kind == verify.PRM {
		key += " sep=" + orDefault(v.Sep, verify.DefaultSep)
	}
	if kind != verify.LLM && v.System != "" {
		key += " system=" + v.System
	}
	if kind == verify.LLM {
		key += fmt.Sprintf(" samples=%d", max(1, v.Samples))
	}
	return key
}

// separateVerifier reports whether the verifier is another model or
// endpoint than the run's.
// verifierAPIKey is the key sent to the verifier: the run's on the run's
// endpoint, --verifier-api-key on another one (the run's key, an OpenAI
// key say, must not reach a reward model server elsewhere).
func (p *plan) verifierAPIKey() string {
	if v := p.cfg.Verify; v.BaseURL == "" && strings.Contains(v.Model, "@") {
		if am, err := p.cfg.resolveModel(v.Model); err == nil {
			return am.key // the named endpoint's own key
		}
	}
	if _, u, _ := p.cfg.Verifier(); u == p.cfg.BaseURL {
		return p.cfg.APIKey
	}
	return p.cfg.VerifierAPIKey
}

func (p *plan) separateVerifier() bool {
	m, u, _ := p.cfg.Verifier()
	return m != p.cfg.Model || u != p.cfg.BaseURL
}

// itemVerifier is an item's verifier: its calls go through the item's
// gate, identity, record and the run's cache (under the verifier's
// identity) to the verifier's backend.
func (p *plan) itemVerifier(base llm.Sampler, mws ...llm.Middleware) (verify.Verifier, error) {
	v := p.cfg.Verify
	_, _, kind := p.cfg.Verifier()
	return verify.New(llm.Chain(base, mws...), verify.Options{Kind: kind, Sep: v.Sep, System: v.System,
		Samples: v.Samples, Prompts: p.prompts})
}

func orDefault(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// notMapping says what an experiment file's verifier: block wants. Its
// keys are the yaml tags; the block applies to the strategies that ask a
// verifier (the others run without one).
func (*VerifierConfig) notMapping(*yaml.Node) error {
	return errors.New("want a mapping like {kind: prm, model: Qwen/Qwen2.5-Math-PRM-7B, base_url: http://127.0.0.1:8001}")
}

// asksVerifier reports whether a strategy configured with values asks a
// verifier.
func asksVerifier(spec strategies.Spec, values param.Values) bool {
	s, err := spec.New(values)
	return err == nil && verifies(s) != ""
}

// verifierField is a run's verifier flags for bench merge ("" for none).
func verifierField(v VerifierConfig) string {
	if v == (VerifierConfig{}) {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// WithRewardModel serves reward beside chat: vLLM's /pooling and SGLang's
// /classify go to reward as a process reward model with step tag sep
// (verify.PoolingServer), everything else to chat. bench serve-sim and the
// tests' served simulator serve the simulated verifier so, which is where a
// run over HTTP with --model sim finds its verifier by default.
func WithRewardModel(chat http.Handler, reward llm.Sampler, sep string) http.Handler {
	ps := verify.NewPoolingServer(reward, sep, SimModel)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ps.Handles(r.URL.Path) {
			ps.ServeHTTP(w, r)
			return
		}
		chat.ServeHTTP(w, r)
	})
}
