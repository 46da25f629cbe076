package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/reasonbench/reasonbench/llm"
)

// Servers that answer a reward request.
const (
	// VLLM is vLLM's pooling API: POST /pooling with the conversation as
	// chat messages (the server applies the model's chat template); a
	// process reward model served with its step pooler returns one entry
	// per step tag, an outcome reward model one per token (or one).
	VLLM = "vllm"
	// SGLang is SGLang's native POST /classify with the conversation
	// rendered as text (ChatML, the template of Qwen's reward models),
	// returning the model's raw output as "embedding". Not /v1/classify:
	// that one applies a softmax over the output, and a reward model has a
	// single output, whose softmax is always 1.0.
	SGLang = "sglang"
)

// Servers lists them, the default first.
var Servers = []string{VLLM, SGLang}

// PoolingConfig configures a reward model's client.
type PoolingConfig struct {
	// BaseURL is the server's root, e.g. http://127.0.0.1:8000 (a trailing
	// /v1 is dropped: both endpoints sit at the root).
	BaseURL string
	APIKey  string // sent as a bearer token; never in errors
	Model   string
	Server  string // VLLM ("" too) or SGLang
	Timeout time.Duration
	// HTTPClient defaults to a client keeping up to 64 idle connections.
	HTTPClient *http.Client
}

// Pooling is an llm.Sampler answering reward requests (llm.Request.Reward)
// from a reward model's server: the scores, each in [0,1], as a JSON array
// in the first choice's content, so the cache and the store keep them as
// any response; prompt tokens from the server's usage (none reported: left
// to tokens.EstimateMissing).
type Pooling struct {
	base, model, key, server string
	timeout                  time.Duration
	hc                       *http.Client
}

// NewPooling builds the client. It makes no network request.
func NewPooling(c PoolingConfig) (*Pooling, error) {
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("reward model: base URL %q: want http(s)://HOST[:PORT]", c.BaseURL)
	}
	switch c.Server {
	case "":
		c.Server = VLLM
	case VLLM, SGLang:
	default:
		return nil, fmt.Errorf("reward model server %q: want one of %s", c.Server, strings.Join(Servers, ", "))
	}
	base := strings.TrimSuffix(strings.TrimRight(c.BaseURL, "/"), "/v1")
	hc := c.HTTPClient
	if hc == nil {
		// As the OpenAI client's: a run's verifications go out many at once.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		hc = &http.Client{Transport: tr}
	}
	if c.Timeout <= 0 {
		c.Timeout = llm.DefaultOpenAITimeout
	}
	return &Pooling{base: base, model: c.Model, key: c.APIKey, server: c.Server, timeout: c.Timeout, hc: hc}, nil
}

// path is the endpoint's path.
func (p *Pooling) path() string {
	if p.server == SGLang {
		return "/classify"
	}
	return "/pooling"
}

// Wire shapes: vLLM's PoolingRequest (chat form) and PoolingResponse,
// SGLang's EmbeddingReqInput and its answer.
type (
	poolingRequest struct {
		Model    string        `json:"model,omitempty"`
		Messages []chatMessage `json:"messages"`
	}
	chatMessage struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	poolingResponse struct {
		Data []struct {
			Index int             `json:"index"`
			Data  json.RawMessage `json:"data"`
		} `json:"data"`
		Usage *struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	classifyRequest struct {
		Model string `json:"model,omitempty"`
		Text  string `json:"text"`
	}
	classifyResponse struct {
		Embedding json.RawMessage `json:"embedding"`
		MetaInfo  *struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"meta_info"`
	}
)

// Sample asks the reward model for req's scores.
func (p *Pooling) Sample(ctx context.Context, req llm.Request) (llm.Response, error) {
	if req.Reward == nil {
		return llm.Response{}, errors.New("reward model: asked for a completion (only reward requests are answered here)")
	}
	var body any
	if p.server == SGLang {
		body = classifyRequest{Model: p.model, Text: ChatML(req.Messages)}
	} else {
		pr := poolingRequest{Model: p.model}
		for _, m := range req.Messages {
			pr.Messages = append(pr.Messages, chatMessage{Role: m.Role, Content: m.Content})
		}
		body = pr
	}
	b, err := json.Marshal(body)
	if err != nil {
		return llm.Response{}, err
	}
	actx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(actx, http.MethodPost, p.base+p.path(), bytes.NewReader(b))
	if err != nil {
		return llm.Response{}, fmt.Errorf("reward model at %s: %w", p.base, err)
	}
	hr.Header.Set("Content-Type", "application/json")
	if p.key != "" {
		hr.Header.Set("Authorization", "Bearer "+p.key)
	}
	start := time.Now()
	res, err := p.hc.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return llm.Response{}, ctx.Err()
		}
		return llm.Response{}, fmt.Errorf("reward model at %s%s: %w", p.base, p.path(), scrub(err, p.key))
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return llm.Response{}, fmt.Errorf("reward model at %s%s: reading the answer: %w", p.base, p.path(), err)
	}
	if res.StatusCode != http.StatusOK {
		err := fmt.Errorf("reward model at %s%s: HTTP %d: %.300s", p.base, p.path(), res.StatusCode, bytes.TrimSpace(raw))
		if res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500 {
			err = llm.MarkRetryable(err)
		}
		return llm.Response{}, err
	}
	scores, prompt, err := p.read(raw, req.Reward.Kind)
	if err != nil {
		return llm.Response{}, fmt.Errorf("reward model at %s%s: %w", p.base, p.path(), err)
	}
	content, _ := json.Marshal(scores)
	return llm.Response{Model: p.model, Latency: time.Since(start),
		Choices: []llm.Choice{{Content: string(content), FinishReason: "stop"}},
		Usage:   llm.Usage{PromptTokens: prompt, Requests: 1}}, nil
}

// read decodes an answer into scores: for a prm one per step, for an orm
// the last (a reward model's single output, or its last token's).
func (p *Pooling) read(raw []byte, kind string) (Scores, int, error) {
	var data json.RawMessage
	prompt := 0
	if p.server == SGLang {
		var one classifyResponse
		if err := json.Unmarshal(raw, &one); err != nil || one.Embedding == nil {
			var many []classifyResponse // a list of texts answers a list
			if err := json.Unmarshal(raw, &many); err != nil || len(many) != 1 {
				return nil, 0, fmt.Errorf("answer %.120q: want SGLang's {\"embedding\": [...], \"meta_info\": {...}}", raw)
			}
			one = many[0]
		}
		data = one.Embedding
		if one.MetaInfo != nil {
			prompt = one.MetaInfo.PromptTokens
		}
	} else {
		var pr poolingResponse
		if err := json.Unmarshal(raw, &pr); err != nil || len(pr.Data) != 1 {
			return nil, 0, fmt.Errorf("answer %.120q: want vLLM's {\"data\": [{\"data\": ...}], \"usage\": {...}}", raw)
		}
		data = pr.Data[0].Data
		if pr.Usage != nil {
			prompt = pr.Usage.PromptTokens
		}
	}
	s, err := RewardScores(data, kind)
	return s, prompt, err
}

// RewardScores reads a reward model's output. Its shape says what it is:
// a number, or a vector of one or two numbers, is one position's output;
// a list of them, one per position (per step tag under vLLM's step pooler,
// per token under its ALL pooler). A position's score in [0,1]: of two
// numbers, the second class (Qwen2.5-Math-PRM's and Math-Shepherd's
// "correct"), taken as it is when the pair is a distribution (the pooler's
// softmax) and through a softmax when it is logits; a single number is a
// logit (a reward model's head) put through the logistic function, which
// keeps the order of rewards. A prm gets every position's score, an orm the
// last.
func RewardScores(raw json.RawMessage, kind string) (Scores, error) {
	var positions [][]float64
	var flat []float64
	var one float64
	switch {
	case len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null":
		return nil, errors.New("no output")
	case json.Unmarshal(raw, &one) == nil:
		positions = [][]float64{{one}}
	case json.Unmarshal(raw, &positions) == nil:
	case json.Unmarshal(raw, &flat) == nil:
		// A flat vector: one position of two classes, or one number per
		// position.
		positions = nil // a failed decoding above may have left some
		if kind == ORM && len(flat) == 2 {
			positions = [][]float64{flat}
		} else {
			for _, v := range flat {
				positions = append(positions, []float64{v})
			}
		}
	default:
		return nil, fmt.Errorf("output %.120q: want a number, a vector or a list of vectors", raw)
	}
	if len(positions) == 0 {
		return nil, errors.New("no scores in the output (for a prm: does the solution carry the model's step tag, and is the server's step pooler on?)")
	}
	if kind == ORM {
		positions = positions[len(positions)-1:]
	}
	out := make(Scores, len(positions))
	for i, v := range positions {
		s, err := positionScore(v)
		if err != nil {
			return nil, fmt.Errorf("position %d: %w", i, err)
		}
		out[i] = s
	}
	return out, nil
}

// positionScore is one position's score in [0,1].
func positionScore(v []float64) (float64, error) {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("output %v: not a number", v)
		}
	}
	switch len(v) {
	case 1:
		return 1 / (1 + math.Exp(-v[0])), nil
	case 2:
		if v[0] >= 0 && v[1] >= 0 && math.Abs(v[0]+v[1]-1) < 1e-3 {
			return min(1, v[1]), nil
		}
		return 1 / (1 + math.Exp(v[0]-v[1])), nil // softmax's second class
	}
	return 0, fmt.Errorf("output of %d numbers: want one (a reward) or two (incorrect, correct)", len(v))
}

// ChatML renders a conversation in ChatML, the chat template of Qwen's
// reward models, for servers that take text (SGLang's /classify).
func ChatML(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "<|im_start|>%s\n%s<|im_end|>\n", m.Role, m.Content)
	}
	return b.String()
}

// scrub removes the API key from an error's text.
func scrub(err error, key string) error {
	if key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), key, "REDACTED"))
}
