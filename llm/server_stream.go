package llm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"
)

// chunkMeta is what every chunk of one streamed response repeats.
type chunkMeta struct {
	id, model   string
	created     int64
	fingerprint string
}

// sse writes server-sent events, flushing each.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func startSSE(w http.ResponseWriter) sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return sse{w: w, f: f}
}

func (s sse) data(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{"error":{"message":"cannot encode chunk","type":"server_error","param":null,"code":null}}`)
	}
	s.raw(b)
}

func (s sse) raw(b []byte) {
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if s.f != nil {
		s.f.Flush()
	}
}

func (s sse) done() { s.raw([]byte("[DONE]")) }

// pieces cuts s into the small pieces a server streams: after each run of
// spaces or at most 16 bytes, never inside a UTF-8 sequence.
func pieces(s string) []string {
	var out []string
	for s != "" {
		end := 0
		for end < len(s) && end < 16 {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
			if s[end-1] == ' ' || s[end-1] == '\n' {
				for end < len(s) && (s[end] == ' ' || s[end] == '\n') {
					end++
				}
				break
			}
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// interleave merges the choices' event lists round-robin, as a server
// streaming n choices at once does.
func interleave[T any](lists [][]T) []T {
	var out []T
	for i := 0; ; i++ {
		more := false
		for _, l := range lists {
			if i < len(l) {
				out = append(out, l[i])
				more = true
			}
		}
		if !more {
			return out
		}
	}
}

// chatChunk is one chat.completion.chunk.
type chatChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	// Fingerprint is system_fingerprint, in every chunk as OpenAI's.
	Fingerprint string            `json:"system_fingerprint,omitempty"`
	Choices     []chatChunkChoice `json:"choices"`
	Usage       json.RawMessage   `json:"usage,omitempty"` // null in every chunk but the last with include_usage
}

type chatChunkChoice struct {
	Index        int            `json:"index"`
	Delta        map[string]any `json:"delta"`
	Logprobs     *struct{}      `json:"logprobs"`
	FinishReason *string        `json:"finish_reason"`
}

// streamChat sends a chat completion as chunks: per choice the role, the
// reasoning and content in pieces, each tool call whole, the finish reason;
// then the usage chunk when asked for, and [DONE].
func (sv *Server) streamChat(w http.ResponseWriter, meta chunkMeta, choices []outChoice, u Usage, includeUsage bool) {
	lists := make([][]chatChunkChoice, len(choices))
	for i, c := range choices {
		l := []chatChunkChoice{{Index: i, Delta: map[string]any{"role": "assistant", "content": ""}}}
		for _, p := range pieces(c.reasoning) {
			l = append(l, chatChunkChoice{Index: i, Delta: map[string]any{sv.o.ReasoningField: p}})
		}
		for _, p := range pieces(c.text()) {
			l = append(l, chatChunkChoice{Index: i, Delta: map[string]any{"content": p}})
		}
		for j, tc := range c.toolCalls {
			tc.Index = &j
			l = append(l, chatChunkChoice{Index: i, Delta: map[string]any{"tool_calls": []wireToolCall{tc}}})
		}
		finish := c.finish
		l = append(l, chatChunkChoice{Index: i, Delta: map[string]any{}, FinishReason: &finish})
		lists[i] = l
	}
	streamChunks(sv, w, lists, u, includeUsage, func(cs []chatChunkChoice, usage json.RawMessage) any {
		return chatChunk{ID: meta.id, Object: "chat.completion.chunk", Created: meta.created, Model: meta.model, Fingerprint: meta.fingerprint, Choices: cs, Usage: usage}
	})
}

// streamChunks sends the choices' chunks round-robin, each built by chunk
// with one choice; with includeUsage (and usage to report) every chunk
// carries "usage": null and a chunk with no choices and the usage ends the
// stream; then [DONE].
func streamChunks[T any](sv *Server, w http.ResponseWriter, lists [][]T, u Usage, includeUsage bool, chunk func([]T, json.RawMessage) any) {
	out := startSSE(w)
	var usage json.RawMessage
	if includeUsage && !sv.o.NoUsage {
		usage = json.RawMessage("null")
	}
	for _, c := range interleave(lists) {
		out.data(chunk([]T{c}, usage))
	}
	if usage != nil {
		b, _ := json.Marshal(sv.usage(u))
		out.data(chunk([]T{}, b))
	}
	out.done()
}

// completionChunk is one chunk of a streamed completion.
type completionChunk struct {
	ID          string                 `json:"id"`
	Object      string                 `json:"object"`
	Created     int64                  `json:"created"`
	Model       string                 `json:"model"`
	Fingerprint string                 `json:"system_fingerprint,omitempty"`
	Choices     []wireCompletionChoice `json:"choices"`
	Usage       json.RawMessage        `json:"usage,omitempty"`
}

// streamCompletion sends a completion as chunks of text per choice, the
// last with the finish reason; then the usage chunk when asked for, and
// [DONE].
func (sv *Server) streamCompletion(w http.ResponseWriter, meta chunkMeta, choices []outChoice, u Usage, includeUsage bool) {
	lists := make([][]wireCompletionChoice, len(choices))
	for i, c := range choices {
		var l []wireCompletionChoice
		for _, p := range pieces(c.reasoning) {
			l = append(l, sv.completionChoice(i, "", p, nil))
		}
		for _, p := range pieces(c.text()) {
			l = append(l, sv.completionChoice(i, p, "", nil))
		}
		finish := c.finish
		l = append(l, sv.completionChoice(i, "", "", &finish))
		lists[i] = l
	}
	streamChunks(sv, w, lists, u, includeUsage, func(cs []wireCompletionChoice, usage json.RawMessage) any {
		return completionChunk{ID: meta.id, Object: "text_completion", Created: meta.created, Model: meta.model, Fingerprint: meta.fingerprint, Choices: cs, Usage: usage}
	})
}
