package bench

import (
	"fmt"
	"strings"

	"github.com/reasonbench/reasonbench/llm"
	"github.com/reasonbench/reasonbench/strategies"
	"github.com/reasonbench/reasonbench/strategies/param"
)

// RejectedParamError is a run a server stopped by refusing a request
// parameter, with the setting that changes what is sent.
type RejectedParamError struct {
	Param   string // as the server named it
	Fix     string // e.g. "pass --set temperature=default"
	Message string // the server's, on one line
	Err     error
}

func (e RejectedParamError) Error() string {
	msg := fmt.Sprintf("the server rejects %s: %s", e.Param, e.Fix)
	if e.Message != "" {
		msg += fmt.Sprintf(" (it said: %s)", e.Message)
	}
	return msg
}

func (e RejectedParamError) Unwrap() error { return e.Err }

// rejection names the setting behind a parameter a server refused.
func rejection(p *plan, pe *llm.ParamError) RejectedParamError {
	r := RejectedParamError{Param: pe.Param, Message: pe.Message, Err: pe}
	name, _, _ := strings.Cut(pe.Param, ".") // "chat_template_kwargs.enable_thinking" → its --param
	switch {
	case p.cfg.ModelParams[name] != nil:
		r.Fix = fmt.Sprintf("drop --param %s=%s", name, paramValueText(p.cfg.ModelParams[name]))
	case pe.Param == "temperature":
		var sets []string
		for _, prm := range p.strategySpec().Params {
			if prm.ModelDefault && p.params[prm.Name] != param.ModelDefaultValue {
				sets = append(sets, "--set "+prm.Name+"="+param.ModelDefaultValue)
			}
		}
		if len(sets) == 0 {
			r.Fix = "bench sends no temperature for this run; check the server's model"
		} else {
			r.Fix = "pass " + strings.Join(sets, " ") + " (the model then samples at its own default temperature)"
		}
	case pe.Param == llm.FieldMaxTokens:
		r.Fix = "pass --max-tokens-field " + llm.FieldMaxCompletionTokens
	case pe.Param == llm.FieldMaxCompletionTokens:
		r.Fix = "pass --max-tokens-field " + llm.FieldMaxTokens
	case pe.Param == "n":
		r.Fix = "pass --max-n 1 (each request then asks for one choice; the others are asked for in more requests with seeds seed+i, so the answers are the same)"
	case pe.Param == "stop" || pe.Param == "seed" || pe.Param == "tools":
		r.Fix = "bench sends " + pe.Param + " because the strategy needs it, and no flag removes it; use another model or server"
	case pe.Param == "messages" || pe.Param == "prompt":
		r.Fix = "try the other API (--api chat or --api completions)"
	default:
		r.Fix = "bench does not send it by itself: check --param and the server's documentation"
	}
	return r
}

// strategySpec is the plan's strategy declaration.
func (p *plan) strategySpec() strategies.Spec {
	spec, _ := strategies.Lookup(p.cfg.Strategy)
	return spec
}
