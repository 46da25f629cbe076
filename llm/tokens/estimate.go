package tokens

import (
	"context"

	"github.com/reasonbench/reasonbench/llm"
)

// EstimateMissing counts a response's tokens with c when the server
// reported none (no usage object, as some OpenAI-compatible servers send),
// and marks the usage Estimated: so cost, --max-cost ceilings, estimates
// and tables hold against such servers instead of counting every call
// free. A response with usage passes unchanged.
func EstimateMissing(c *Counter) llm.Middleware {
	return func(next llm.Sampler) llm.Sampler {
		return llm.SamplerFunc(func(ctx context.Context, req llm.Request) (llm.Response, error) {
			resp, err := next.Sample(ctx, req)
			if err != nil || len(resp.Choices) == 0 || resp.Usage.PromptTokens != 0 || resp.Usage.CompletionTokens != 0 {
				return resp, err
			}
			// Every choice was prompted once per request made; a server
			// answering n choices in one request read the prompt once.
			requests := max(1, resp.Usage.Requests)
			resp.Usage.PromptTokens = requests * c.Prompt(req.Messages, req.Tools)
			if req.Reward == nil { // a reward model's scores are read, not generated
				resp.Usage.CompletionTokens = c.Completion(resp)
			}
			resp.Usage.Estimated = true
			return resp, nil
		})
	}
}
