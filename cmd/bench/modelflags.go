package main

import (
	"flag"
	"strings"

	"github.com/reasonbench/reasonbench/bench"
	"github.com/reasonbench/reasonbench/llm"
)

// modelFlags registers how requests reach the model and how its answers are
// read (--param, --api, --think, --think-tags, --max-tokens-field) on
// `bench run` and `bench estimate`; the returned function reads --param
// after parsing.
func modelFlags(fs *flag.FlagSet, cfg *bench.Config) func() error {
	var params stringList
	fs.Var(&params, "param", `request body field NAME=VALUE sent verbatim with every call (repeatable), e.g. reasoning_effort=high, top_p=0.9, chat_template_kwargs={"enable_thinking":false}; a JSON VALUE is sent as JSON, anything else as a string`)
	fs.StringVar(&cfg.API, "api", llm.APIChat, "the endpoint's API: chat (/v1/chat/completions) or completions (/v1/completions, for base models; one-user-turn strategies only)")
	fs.StringVar(&cfg.Think, "think", llm.ThinkSplit, "a thinking block leading the content: split (into the call's reasoning; parsers read only the answer) or keep")
	fs.StringVar(&cfg.ThinkTags, "think-tags", "think", "the thinking block's tag NAME (<NAME>…</NAME>) or OPEN,CLOSE markers")
	fs.IntVar(&cfg.MaxN, "max-n", 0, "most choices asked for in one request (0: up to 128, OpenAI's limit); 1 for servers that refuse n > 1, such as llama.cpp; the rest come from more requests with seeds seed+i")
	fs.StringVar(&cfg.MaxTokensField, "max-tokens-field", llm.MaxTokensAuto, "how max_tokens is sent on the chat API: auto (max_completion_tokens for OpenAI's o1/o3/o4/gpt-5 models, else max_tokens), max_tokens or max_completion_tokens")
	return func() error {
		m, err := bench.ParseModelParams(params)
		if err != nil {
			return err
		}
		cfg.ModelParams = m
		// Record the defaults as "" so that configurations (and their keys)
		// of runs made before these flags existed stay the same.
		if cfg.API == llm.APIChat {
			cfg.API = ""
		}
		if cfg.Think == llm.ThinkSplit {
			cfg.Think = ""
		}
		if t, err := llm.ParseThinkTags(cfg.ThinkTags); err == nil && t == llm.DefaultThinkTags {
			cfg.ThinkTags = ""
		}
		if strings.TrimSpace(cfg.MaxTokensField) == llm.MaxTokensAuto {
			cfg.MaxTokensField = ""
		}
		return nil
	}
}
