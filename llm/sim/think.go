package sim

import (
	"context"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
)

// Thought is the thinking the Thinking wrapper puts before every answer.
// It is a draft the model discards, written in the formats the harness's
// parsers read (an Answer line, a ReAct Finish action, a Game of 24 step,
// a vote, a verdict), so that any parser handed the thinking instead of the
// answer is misled: only a harness that separates the two scores the
// answer. It depends on nothing in the request, and never on a gold answer.
const Thought = `The user wants an answer in a fixed format. A first draft, which I will not keep:
Answer: 1 + 2 + 3 + 4 = 10
Action: Finish[draft answer]
1 + 1 = 2 (left: 2)
The best choice is 1
impossible
That draft is wrong. I will write the real answer now.`

// Thinking wraps a sampler as a thinking model: every choice gets Thought
// as its reasoning (before any reasoning it already had), and the usage
// counts those tokens as completion tokens and as reasoning tokens, the way
// OpenAI's usage.completion_tokens_details reports them. Where the thinking
// goes on the wire (inline <think> tags or a reasoning field) is the
// server's choice (llm.ServerOptions).
func Thinking(s llm.Sampler) llm.Sampler {
	return llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
		resp, err := s.Sample(ctx, req)
		if err != nil {
			return resp, err
		}
		n := countTokens(Thought)
		for i := range resp.Choices {
			c := &resp.Choices[i]
			c.Reasoning = strings.TrimSpace(Thought + "\n" + c.Reasoning)
			resp.Usage.CompletionTokens += n
			resp.Usage.ReasoningTokens += n
		}
		return resp, nil
	})
}
