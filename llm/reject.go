package llm

import (
	"errors"
	"regexp"
	"strings"

	"github.com/openai/openai-go/v3"
)

// ParamError is a server's refusal of one request parameter: a 400 whose
// error names it (OpenAI's `param`, or its "Unsupported parameter: 'x'"
// wording). Callers map Param to the setting that sends it.
type ParamError struct {
	Param   string // e.g. "temperature", "max_tokens", "reasoning_effort"
	Message string // the server's message, on one line
	Err     error
}

func (e *ParamError) Error() string { return e.Err.Error() }
func (e *ParamError) Unwrap() error { return e.Err }

// unsupportedRe finds the parameter in OpenAI's wordings ("Unsupported
// parameter: 'max_tokens' is not supported with this model.", "Unsupported
// value: 'temperature' does not support 0.7 with this model.") and the
// like ("Unrecognized request argument supplied: top_k").
var unsupportedRe = regexp.MustCompile(`(?i)(?:unsupported (?:parameter|value|param)|unrecognized request arguments? supplied|unknown parameter)[:\s]+['"]?([A-Za-z_][A-Za-z0-9_.]*)`)

// oneChoiceRe is llama.cpp's refusal of n > 1, answered with a 400 or a
// 500 depending on the version.
var oneChoiceRe = regexp.MustCompile(`(?i)only one completion choice is allowed`)

// rejectedParam returns the parameter a 400 refuses, or "".
func rejectedParam(e *openai.Error) string {
	if e.StatusCode >= 400 && oneChoiceRe.MatchString(e.Message) {
		return "n"
	}
	if e.StatusCode != 400 {
		return ""
	}
	if p := strings.TrimSpace(e.Param); p != "" {
		// OpenAI names nested fields "messages[0].content"; only top-level
		// ones map to a setting.
		return p
	}
	if m := unsupportedRe.FindStringSubmatch(e.Message); m != nil {
		return m[1]
	}
	return ""
}

// RejectedParam returns the parameter a server refused somewhere in err's
// chain, if any.
func RejectedParam(err error) (*ParamError, bool) {
	var pe *ParamError
	if errors.As(err, &pe) {
		return pe, true
	}
	return nil, false
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// HTTPStatus is the status of a server's error response in err's chain.
func HTTPStatus(err error) (int, bool) {
	var ae *openai.Error
	if errors.As(err, &ae) {
		return ae.StatusCode, true
	}
	return 0, false
}

// IsRequestError reports whether err is a server's refusal of this one
// request (400, 413, 422: a bad parameter, too long a prompt), which
// another request may not meet; not a refusal of the client (401, 403),
// the model (404: not served) or the service (429, 5xx).
func IsRequestError(err error) bool {
	s, ok := HTTPStatus(err)
	return ok && (s == 400 || s == 413 || s == 422)
}
