package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Price is a model's price in US dollars per million tokens. Reasoning
// tokens are billed as completion tokens: OpenAI counts them inside
// completion_tokens, so they are never added a second time.
type Price struct {
	Prompt     float64 `json:"prompt" yaml:"prompt"`
	Completion float64 `json:"completion" yaml:"completion"`
}

// Of returns the cost of the given usage at this price.
func (p Price) Of(u Usage) float64 {
	return (float64(u.PromptTokens)*p.Prompt + float64(u.CompletionTokens)*p.Completion) / 1e6
}

// Prices maps model names to prices.
type Prices map[string]Price

// PricesChecked is when knownPrices was last compared with the source.
const PricesChecked = "2026-11-22"

// knownPrices: standard-tier list prices in USD per 1M tokens (no batch or
// cached-input discounts). Source: OpenAI's published API pricing
// (https://platform.openai.com/docs/pricing, formerly openai.com/api/pricing),
// checked on PricesChecked from this offline machine through third-party
// copies of that page, so re-check before relying on a figure. Retired
// models keep their last price (text-davinci-003: $0.02/1k both ways until
// its shutdown in January 2024; gpt-4: $0.03/1k prompt, $0.06/1k completion,
// the prices the ToT paper paid). Local and simulated models cost nothing
// unless a price file names them.
var knownPrices = Prices{
	"gpt-3.5-turbo":          {0.50, 1.50},
	"gpt-3.5-turbo-0125":     {0.50, 1.50},
	"gpt-3.5-turbo-1106":     {1.00, 2.00},
	"gpt-3.5-turbo-0613":     {1.50, 2.00},
	"gpt-3.5-turbo-instruct": {1.50, 2.00},
	"text-davinci-003":       {20.00, 20.00},
	"gpt-4":                  {30.00, 60.00},
	"gpt-4-0613":             {30.00, 60.00},
	"gpt-4-0314":             {30.00, 60.00},
	"gpt-4-32k":              {60.00, 120.00},
	"gpt-4-turbo":            {10.00, 30.00},
	"gpt-4-turbo-2024-04-09": {10.00, 30.00},
	"gpt-4-1106-preview":     {10.00, 30.00},
	"gpt-4-0125-preview":     {10.00, 30.00},
	"gpt-4o":                 {2.50, 10.00},
	"gpt-4o-2024-05-13":      {5.00, 15.00},
	"gpt-4o-mini":            {0.15, 0.60},
	"gpt-4.1":                {2.00, 8.00},
	"gpt-4.1-mini":           {0.40, 1.60},
	"gpt-4.1-nano":           {0.10, 0.40},
	"o1":                     {15.00, 60.00},
	"o1-mini":                {1.10, 4.40},
	"o1-pro":                 {150.00, 600.00},
	"o3":                     {2.00, 8.00},
	"o3-mini":                {1.10, 4.40},
	"o3-pro":                 {20.00, 80.00},
	"o4-mini":                {1.10, 4.40},
	"gpt-5":                  {1.25, 10.00},
	"gpt-5-mini":             {0.25, 2.00},
	"gpt-5-nano":             {0.05, 0.40},
	"gpt-5-pro":              {15.00, 120.00},
	"gpt-5.1":                {1.25, 10.00},
	"gpt-5.2":                {1.75, 14.00},
}

// DefaultPrices returns a copy of the built-in price table.
func DefaultPrices() Prices {
	out := make(Prices, len(knownPrices))
	for k, v := range knownPrices {
		out[k] = v
	}
	return out
}

// datedSnapshot matches the date OpenAI appends to a pinned snapshot of a
// model ("gpt-4o-2024-08-06", "o3-mini-2025-01-31").
var datedSnapshot = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}$`)

// Lookup returns a model's price: by exact name, else for a dated snapshot
// the price of its alias (snapshots priced differently are listed).
func (ps Prices) Lookup(model string) (Price, bool) {
	if p, ok := ps[model]; ok {
		return p, true
	}
	if base := datedSnapshot.ReplaceAllString(model, ""); base != model {
		p, ok := ps[base]
		return p, ok
	}
	return Price{}, false
}

// With returns ps overridden by over.
func (ps Prices) With(over Prices) Prices {
	out := make(Prices, len(ps)+len(over))
	for k, v := range ps {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// PriceOf returns the built-in price of a model, if known.
func PriceOf(model string) (Price, bool) { return knownPrices.Lookup(model) }

// LoadPrices reads a price file, JSON or YAML (by extension; YAML accepts
// JSON too): {MODEL: {prompt: USD_per_1M, completion: USD_per_1M}}.
func LoadPrices(path string) (Prices, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--prices: %w", err)
	}
	var ps Prices
	if strings.EqualFold(filepath.Ext(path), ".json") {
		err = json.Unmarshal(b, &ps)
	} else {
		err = yaml.Unmarshal(b, &ps)
	}
	if err != nil {
		return nil, fmt.Errorf("--prices %s: want {MODEL: {prompt: USD_per_1M, completion: USD_per_1M}}: %w", path, err)
	}
	for m, p := range ps {
		if p.Prompt < 0 || p.Completion < 0 {
			return nil, fmt.Errorf("--prices %s: %s: prices must not be negative", path, m)
		}
	}
	return ps, nil
}

// Cost fills in the cost of each response from the model's built-in price,
// when known.
func Cost(model string) Middleware {
	p, ok := PriceOf(model)
	if !ok {
		return func(next Sampler) Sampler { return next }
	}
	return CostAt(p)
}

// CostAt fills in the cost of each response at price p.
func CostAt(p Price) Middleware {
	return func(next Sampler) Sampler {
		return SamplerFunc(func(ctx context.Context, req Request) (Response, error) {
			resp, err := next.Sample(ctx, req)
			resp.Usage.Cost = p.Of(resp.Usage)
			return resp, err
		})
	}
}
