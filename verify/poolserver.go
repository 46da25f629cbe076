package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/reasonbench/reasonbench/llm"
)

// PoolingServer serves a reward sampler (the simulated verifier) the way
// vLLM and SGLang serve a process reward model: vLLM's POST /pooling (chat
// messages or text as "input"; per step tag the pair [P(incorrect),
// P(correct)], as the step pooler's softmax gives for Qwen2.5-Math-PRM)
// and SGLang's POST /classify (text; per step tag the logit of correct).
// The steps are the assistant turn split at the server's step tag, as a
// server started with a step pooler splits them; the sampler is asked with
// a prm reward request and its scores rendered in the server's shape.
type PoolingServer struct {
	s        llm.Sampler
	sep      string
	model    string
	requests atomic.Int64
}

// NewPoolingServer serves s with step tag sep as model name model.
func NewPoolingServer(s llm.Sampler, sep, model string) *PoolingServer {
	if sep == "" {
		sep = DefaultSep
	}
	return &PoolingServer{s: s, sep: sep, model: model}
}

// Requests counts the scoring requests that arrived.
func (ps *PoolingServer) Requests() int64 { return ps.requests.Load() }

// Handles reports whether a path is one of the server's.
func (ps *PoolingServer) Handles(path string) bool {
	path = strings.TrimSuffix(path, "/")
	return path == "/pooling" || path == "/classify"
}

func (ps *PoolingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	if !ps.Handles(path) {
		poolError(w, http.StatusNotFound, "unknown path "+r.URL.Path)
		return
	}
	if r.Method != http.MethodPost {
		poolError(w, http.StatusMethodNotAllowed, "use POST for "+r.URL.Path)
		return
	}
	ps.requests.Add(1)
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 32<<20))
	if err != nil {
		poolError(w, http.StatusBadRequest, "reading body: "+err.Error())
		return
	}
	var body struct {
		Model    string          `json:"model"`
		Messages []chatMessage   `json:"messages"`
		Input    json.RawMessage `json:"input"`
		Text     json.RawMessage `json:"text"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		poolError(w, http.StatusBadRequest, "malformed JSON body: "+err.Error())
		return
	}
	var msgs []llm.Message
	switch {
	case path == "/pooling" && len(body.Messages) > 0:
		for _, m := range body.Messages {
			msgs = append(msgs, llm.Message{Role: m.Role, Content: m.Content})
		}
	case path == "/pooling" && len(body.Input) > 0:
		msgs, err = textMessages(body.Input, "input")
	case path == "/classify" && len(body.Text) > 0:
		msgs, err = textMessages(body.Text, "text")
	default:
		err = fmt.Errorf("no input: want %s", map[bool]string{true: `"messages" or "input"`, false: `"text"`}[path == "/pooling"])
	}
	if err != nil {
		poolError(w, http.StatusBadRequest, err.Error())
		return
	}
	resp, err := ps.s.Sample(r.Context(), llm.Request{Messages: msgs, Purpose: Purpose, Reward: &llm.Reward{Kind: PRM, Sep: ps.sep}})
	if err != nil {
		if r.Context().Err() == nil {
			poolError(w, http.StatusInternalServerError, "reward model: "+err.Error())
		}
		return
	}
	var scores Scores
	if len(resp.Choices) > 0 {
		scores, err = ParseScores(resp.Choices[0].Content)
	}
	if err != nil || len(scores) == 0 {
		// What a step pooler returns for a text without step tags.
		scores = Scores{}
	}
	model := body.Model
	if model == "" {
		model = ps.model
	}
	w.Header().Set("Content-Type", "application/json")
	if path == "/classify" {
		logits := make([]float64, len(scores))
		for i, s := range scores {
			s = min(max(s, 1e-6), 1-1e-6)
			logits[i] = math.Log(s / (1 - s))
		}
		json.NewEncoder(w).Encode(map[string]any{"embedding": logits,
			"meta_info": map[string]any{"id": fmt.Sprintf("sim-%d", ps.requests.Load()), "prompt_tokens": resp.Usage.PromptTokens}})
		return
	}
	pairs := make([][2]float64, len(scores))
	for i, s := range scores {
		pairs[i] = [2]float64{1 - s, s}
	}
	json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("pool-sim-%d", ps.requests.Load()), "object": "list", "created": time.Now().Unix(), "model": model,
		"data":  []any{map[string]any{"index": 0, "object": "pooling", "data": pairs}},
		"usage": map[string]any{"prompt_tokens": resp.Usage.PromptTokens, "total_tokens": resp.Usage.PromptTokens, "completion_tokens": 0},
	})
}

// textMessages reads a text input: a ChatML conversation back into its
// turns, any other text as one user turn.
func textMessages(raw json.RawMessage, field string) ([]llm.Message, error) {
	var text string
	if err := json.Unmarshal(raw, &text); err != nil {
		var list []string
		if json.Unmarshal(raw, &list) != nil || len(list) != 1 {
			return nil, fmt.Errorf("%s: want one string", field)
		}
		text = list[0]
	}
	if !strings.HasPrefix(text, "<|im_start|>") {
		return []llm.Message{{Role: "user", Content: text}}, nil
	}
	var msgs []llm.Message
	for _, turn := range strings.Split(text, "<|im_start|>")[1:] {
		role, content, _ := strings.Cut(turn, "\n")
		content, _, _ = strings.Cut(content, "<|im_end|>")
		msgs = append(msgs, llm.Message{Role: role, Content: content})
	}
	return msgs, nil
}

func poolError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"object": "error", "message": msg, "type": "BadRequestError", "code": code})
}
