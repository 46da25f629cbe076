package endpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// An episode's environment served beside the OpenAI endpoint, shaped like
// τ-bench's Env so that an agent written against the reference ports
// directly: POST {base}/env/reset starts the episode (the user's first
// message), POST {base}/env/step carries out one action
// ({"name": TOOL or "respond", "kwargs": {...}}) and answers with the
// observation, the reward, whether the episode is over and its info. The
// base is the item's endpoint without /v1 (the same listener and token).

// Env is one episode as an EnvServer serves it; the server decodes and
// checks every request before calling it, one request at a time.
type Env interface {
	// Reset starts the episode; taskIndex is the index the client asked
	// for (nil when it named none).
	Reset(ctx context.Context, taskIndex *int) (EnvReset, error)
	// Step carries out one action: name is a tool's or "respond", kwargs
	// a JSON object (for respond, with a string "content").
	Step(ctx context.Context, name string, kwargs json.RawMessage) (EnvStep, error)
}

// EnvReset is the answer to a reset: τ-bench's EnvResetResponse.
type EnvReset struct {
	Observation string         `json:"observation"`
	Info        map[string]any `json:"info"`
}

// EnvStep is the answer to a step: τ-bench's EnvResponse.
type EnvStep struct {
	Observation string         `json:"observation"`
	Reward      float64        `json:"reward"`
	Done        bool           `json:"done"`
	Info        map[string]any `json:"info"`
}

// EnvRefusal is an Env's refusal of a request the episode cannot take (a
// step before the reset or after the end, a step past the limit): the
// client's error, answered with Status and Message, not the run's.
type EnvRefusal struct {
	Status  int
	Message string
}

func (e EnvRefusal) Error() string { return e.Message }

// maxEnvBody bounds a reset's or a step's body: a tool's arguments are a
// few hundred bytes, a message to the user a few KB.
const maxEnvBody = 1 << 20

// EnvServer serves env at /env/reset and /env/step. Malformed requests (a
// body that is not a JSON object, over maxEnvBody, a step without a
// string name or with kwargs that are not an object, a respond without a
// string content) are refused with 400 and a one-line reason before env
// sees them, so the episode is unchanged; an EnvRefusal is answered with
// its status; any other error of env is the run's (kept in log, as a
// failure of the sampler stack is) and answered 500.
func EnvServer(env Env, log *Log) http.Handler {
	var mu chanMutex = make(chan struct{}, 1) // one request at a time: an episode is a sequence
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := strings.TrimSuffix(r.URL.Path, "/")
		if path != "/env/reset" && path != "/env/step" {
			writeError(w, http.StatusNotFound, "unknown path: the environment serves POST /env/reset and POST /env/step")
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			writeError(w, http.StatusMethodNotAllowed, path+": use POST")
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxEnvBody))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				writeError(w, http.StatusBadRequest, fmt.Sprintf("%s: body over %d bytes", path, maxEnvBody))
				return
			}
			writeError(w, http.StatusBadRequest, path+": reading the body: "+oneLine(err.Error(), 200))
			return
		}
		if !mu.lock(r.Context()) {
			writeError(w, http.StatusServiceUnavailable, path+": the client left")
			return
		}
		defer mu.unlock()
		var out any
		if path == "/env/reset" {
			var req struct {
				TaskIndex *int `json:"task_index"`
			}
			if err := decodeObject(body, true, &req); err != nil {
				writeError(w, http.StatusBadRequest, "/env/reset: "+err.Error())
				return
			}
			out, err = env.Reset(r.Context(), req.TaskIndex)
		} else {
			name, kwargs, derr := decodeStep(body)
			if derr != nil {
				writeError(w, http.StatusBadRequest, "/env/step: "+derr.Error())
				return
			}
			out, err = env.Step(r.Context(), name, kwargs)
		}
		if err != nil {
			var refusal EnvRefusal
			switch {
			case errors.As(err, &refusal):
				writeError(w, refusal.Status, path+": "+oneLine(refusal.Message, 300))
			case r.Context().Err() != nil:
				writeError(w, http.StatusServiceUnavailable, path+": the client left")
			default:
				log.fail(fmt.Errorf("environment %s: %w", path, err))
				writeError(w, http.StatusInternalServerError, path+": "+oneLine(err.Error(), 300))
			}
			return
		}
		b, err := json.Marshal(out)
		if err != nil {
			log.fail(fmt.Errorf("environment %s: encode the answer: %w", path, err))
			writeError(w, http.StatusInternalServerError, path+": encode the answer")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(append(b, '\n'))
	})
}

// decodeObject reads body as one JSON object into v; empty may be allowed.
func decodeObject(body []byte, emptyOK bool, v any) error {
	if len(strings.TrimSpace(string(body))) == 0 {
		if emptyOK {
			return nil
		}
		return errors.New("empty body: want a JSON object")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		return errors.New("malformed JSON body: want one JSON object")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("a field of the wrong type: %s", oneLine(err.Error(), 200))
	}
	return nil
}

// decodeStep reads a step's action: {"name": string, "kwargs": object}.
func decodeStep(body []byte) (string, json.RawMessage, error) {
	var req struct {
		Name   *string         `json:"name"`
		Kwargs json.RawMessage `json:"kwargs"`
	}
	if err := decodeObject(body, false, &req); err != nil {
		return "", nil, err
	}
	if req.Name == nil || *req.Name == "" {
		return "", nil, errors.New(`want "name": a tool's name or "respond"`)
	}
	var kw map[string]json.RawMessage
	if json.Unmarshal(req.Kwargs, &kw) != nil || kw == nil {
		return "", nil, fmt.Errorf(`"kwargs" of %s: want a JSON object`, oneLine(*req.Name, 80))
	}
	if *req.Name == "respond" {
		var content string
		if json.Unmarshal(kw["content"], &content) != nil {
			return "", nil, errors.New(`respond: want "kwargs": {"content": TEXT}`)
		}
	}
	return *req.Name, req.Kwargs, nil
}

// WithEnv serves env's paths (/env/...) with env and every other path with
// openai: an item endpoint that is both.
func WithEnv(openai, env http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/env" || strings.HasPrefix(r.URL.Path, "/env/") {
			env.ServeHTTP(w, r)
			return
		}
		openai.ServeHTTP(w, r)
	})
}

// chanMutex is a mutex a waiting request can leave when its client does.
type chanMutex chan struct{}

func (m chanMutex) lock(ctx context.Context) bool {
	select {
	case m <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (m chanMutex) unlock() { <-m }
