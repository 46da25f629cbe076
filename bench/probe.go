package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/llm/sim"
)

// Served is what an endpoint's GET /models says of it: the model names it
// lists and, when it is bench serve-sim, its simulator's parameters.
type Served struct {
	Names []string
	// Sim is non-nil for bench serve-sim (its model cards carry
	// llm.SimCardField), which answers any name unless AnyName is false.
	Sim     *sim.Params
	AnyName bool
}

// Serves reports whether the endpoint answers model: any name a
// simulator without --served-model-name, else the names it lists.
func (s Served) Serves(model string) bool {
	return (s.Sim != nil && s.AnyName) || slices.Contains(s.Names, model)
}

// probeTimeout bounds the models probe: a server that does not answer
// it quickly is probed no further.
const probeTimeout = 10 * time.Second

// ProbeModels asks baseURL's GET /models, with key as bearer (none when
// ""). A server without the route, or unreachable, is an error the
// caller may ignore: real servers need not list their models.
func ProbeModels(ctx context.Context, baseURL, key string) (Served, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(baseURL, "/")+"/models", nil)
	if err != nil {
		return Served{}, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return Served{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return Served{}, err
	}
	if resp.StatusCode != http.StatusOK {
		return Served{}, fmt.Errorf("GET /models: %s", resp.Status)
	}
	var body struct {
		Data []struct {
			ID  string   `json:"id"`
			Sim *simCard `json:"reasonbench_sim"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &body); err != nil {
		return Served{}, fmt.Errorf("GET /models: %w", err)
	}
	var s Served
	for _, d := range body.Data {
		s.Names = append(s.Names, d.ID)
		if d.Sim != nil && s.Sim == nil {
			p := d.Sim.Params
			s.Sim, s.AnyName = &p, d.Sim.AnyName
		}
	}
	return s, nil
}

// served probes the run's endpoints (each replica of --base-url, each
// named endpoint with its key, a judge's own with its key) before the run
// is stored: a bench
// serve-sim among them makes the run simulated, with that server's
// parameters (SimEndpoints per named endpoint), whatever model name is
// sent; a simulator that serves only other names refuses the run in one
// line. A probe that fails says nothing: real servers need not list.
func (e *Engine) served(ctx context.Context, p *plan) error {
	if e.Backend != nil || p.cfg.BaseURL == "" && len(p.cfg.NamedEndpoints) == 0 && p.cfg.JudgeBaseURL == "" {
		return nil
	}
	for _, u := range strings.Split(p.cfg.BaseURL, ",") {
		if u = strings.TrimSpace(u); u == "" {
			continue
		}
		s, err := ProbeModels(ctx, u, p.cfg.APIKey)
		if err != nil {
			continue
		}
		if p.served == nil {
			p.served = &s
		}
		if s.Sim != nil && !s.Serves(p.cfg.Model) {
			return notServedError(p.cfg.Model, u, s.Names)
		}
		if s.Sim != nil && p.simAt == nil {
			p.simAt = map[string]sim.Params{}
		}
		if s.Sim != nil {
			if _, ok := p.simAt[""]; !ok {
				p.simAt[""] = *s.Sim
			}
		}
	}
	// A judge on its own endpoint scores the run: a simulator there makes
	// the scores simulated.
	if m, u := p.cfg.Judge(); usesJudge(p) && p.cfg.JudgeBaseURL != "" && u != p.cfg.BaseURL && m != "" {
		if s, err := ProbeModels(ctx, u, p.cfg.judgeKey()); err == nil && s.Sim != nil {
			if p.simAt == nil {
				p.simAt = map[string]sim.Params{}
			}
			p.simAt["judge"] = *s.Sim
		}
	}
	for _, ep := range p.cfg.NamedEndpoints {
		key := p.cfg.NamedKeys[ep.Name]
		s, err := ProbeModels(ctx, ep.URL, key)
		if err != nil || s.Sim == nil {
			continue
		}
		if p.simAt == nil {
			p.simAt = map[string]sim.Params{}
		}
		p.simAt[ep.Name] = *s.Sim
	}
	return nil
}

// notServedError is the one line a run against a server that does not
// serve its model stops with.
func notServedError(model, baseURL string, names []string) error {
	return fmt.Errorf("model %s is not served at %s: it serves %s; pass --model %s", model, PublicEndpoint(baseURL), strings.Join(names, ", "), names[0])
}

// explainNotServed turns a server's 404 for the run's model into the one
// line naming what the server serves (from the probe).
func explainNotServed(p *plan, err error) error {
	if s, ok := llm.HTTPStatus(err); !ok || s != http.StatusNotFound || p.served == nil || len(p.served.Names) == 0 ||
		slices.Contains(p.served.Names, p.cfg.Model) {
		return err
	}
	return fmt.Errorf("%w (%v)", notServedError(p.cfg.Model, strings.Split(p.cfg.BaseURL, ",")[0], p.served.Names), err)
}

// simulated is how the run is stored: simulated when its model is the
// in-process simulator or any endpoint it uses is bench serve-sim, with
// the simulator's parameters (the server's own: the run's endpoint's,
// else the first named one's).
func (p *plan) simulated() (bool, json.RawMessage) {
	var params *sim.Params
	switch {
	case p.simAt != nil && hasKey(p.simAt, ""):
		s := p.simAt[""]
		params = &s
	case len(p.simAt) > 0:
		names := slices.Sorted(maps.Keys(p.simAt))
		s := p.simAt[names[0]]
		params = &s
	case p.cfg.Simulated():
		params = &p.cfg.Sim
	}
	if params == nil {
		return false, json.RawMessage("{}")
	}
	b, _ := json.Marshal(*params)
	return true, b
}

// simEndpoints is SimEndpoints of the run's spec.
func (p *plan) simEndpoints() map[string]sim.Params {
	if len(p.simAt) == 0 {
		return nil
	}
	out := map[string]sim.Params{}
	for k, v := range p.simAt {
		if k == "" {
			k = "run"
		}
		out[k] = v
	}
	return out
}

func hasKey[V any](m map[string]V, k string) bool { _, ok := m[k]; return ok }
