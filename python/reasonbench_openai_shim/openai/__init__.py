"""A standard-library stand-in for the `openai` package, for running a paper's
reference code unchanged against bench's endpoint without pip.

It implements the call shapes research code of 2023-24 uses, and nothing
more:
  * pre-1.0: module attributes api_key / api_base, openai.ChatCompletion.create
    and openai.Completion.create (engine= or model=), exceptions under
    openai.error (OpenAIError, APIError, RateLimitError, Timeout,
    APIConnectionError, ServiceUnavailableError, InvalidRequestError,
    AuthenticationError);
  * >= 1.0: OpenAI(api_key=, base_url=) with .chat.completions.create and
    .completions.create, the module-level openai.chat.completions.create,
    the same exceptions at top level (APIStatusError, BadRequestError, ...).
Responses are dicts that also allow attribute access (res["choices"][0] and
res.choices[0].message.content both work, as the real 0.x OpenAIObject and
the 1.x models allow), with model_dump() and to_dict_recursive().

Where it differs from the real package: no streaming (stream=True is a
clear error), no retries (bench's sampler stack retries), no async client,
no other endpoints. It is used only when the real package is missing: the
wrapper appends this folder to the end of sys.path.

The base URL is OPENAI_BASE_URL or OPENAI_API_BASE (bench sets both), the
key OPENAI_API_KEY; extra_headers={"X-Bench-Call": "name"} names a call.
"""

import json
import os
import urllib.error
import urllib.request

__version__ = "0.0.0-reasonbench-shim"

api_key = os.environ.get("OPENAI_API_KEY")
api_base = os.environ.get("OPENAI_API_BASE") or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
organization = None
api_type = "open_ai"
api_version = None


class OpenAIError(Exception):
    """Every error this module raises. status_code/http_status is the HTTP
    status (None without a response), body what the server said."""

    def __init__(self, message="", status=None, body=None):
        super().__init__(message)
        self.message = message
        self.status_code = self.http_status = status
        self.body = body


class APIError(OpenAIError):
    pass


class APIStatusError(APIError):
    pass


class APIConnectionError(APIError):
    pass


class APITimeoutError(APIConnectionError):
    pass


class BadRequestError(APIStatusError):
    pass


class AuthenticationError(APIStatusError):
    pass


class PermissionDeniedError(APIStatusError):
    pass


class NotFoundError(APIStatusError):
    pass


class RateLimitError(APIStatusError):
    pass


class InternalServerError(APIStatusError):
    pass


class InvalidRequestError(BadRequestError):
    pass


class ServiceUnavailableError(InternalServerError):
    pass


_BY_STATUS = {400: BadRequestError, 401: AuthenticationError, 403: PermissionDeniedError,
              404: NotFoundError, 429: RateLimitError}


class Object(dict):
    """A JSON object readable as a dict or by attribute."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def model_dump(self, **_):
        return json.loads(json.dumps(self))

    to_dict_recursive = to_dict = model_dump

    def model_dump_json(self, **_):
        return json.dumps(self)


def _wrap(v):
    if isinstance(v, dict):
        return Object((k, _wrap(x)) for k, x in v.items())
    if isinstance(v, list):
        return [_wrap(x) for x in v]
    return v


TIMEOUT = float(os.environ.get("BENCH_HTTP_TIMEOUT", "600"))


def _post(base, key, path, body, headers=None, timeout=None):
    if body.pop("stream", False):
        raise BadRequestError("reasonbench's openai stand-in does not stream; install the openai package for stream=True")
    url = (base or "").rstrip("/") + path
    h = {"Content-Type": "application/json"}
    if key:
        h["Authorization"] = "Bearer " + key
    h.update(headers or {})
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=h, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout or TIMEOUT) as resp:
            raw = resp.read()
    except urllib.error.HTTPError as e:
        text = e.read().decode("utf-8", "replace")
        cls = _BY_STATUS.get(e.code, InternalServerError if e.code >= 500 else APIStatusError)
        raise cls("HTTP %d from %s: %s" % (e.code, url, text[:2000]), e.code, text) from None
    except TimeoutError as e:
        raise APITimeoutError("timeout from %s: %s" % (url, e)) from None
    except (urllib.error.URLError, OSError) as e:
        raise APIConnectionError("no response from %s: %s" % (url, getattr(e, "reason", e))) from None
    try:
        out = json.loads(raw)
    except ValueError:
        raise APIError("response from %s is not JSON: %r" % (url, raw[:200]), 200) from None
    if not isinstance(out, dict):
        raise APIError("response from %s is not a JSON object" % url, 200)
    return _wrap(out)


def _body(kwargs):
    """The request body: every keyword except the client-side ones, None
    values left out (as the 1.x client leaves NOT_GIVEN out)."""
    headers = dict(kwargs.pop("extra_headers", None) or kwargs.pop("headers", None) or {})
    timeout = kwargs.pop("request_timeout", None) or kwargs.pop("timeout", None)
    extra = kwargs.pop("extra_body", None) or {}
    for k in ("api_key", "api_base", "organization", "api_type", "api_version", "extra_query"):
        kwargs.pop(k, None)
    if "engine" in kwargs:  # 0.x named the model engine= for some deployments
        kwargs.setdefault("model", kwargs.pop("engine"))
    body = {k: v for k, v in kwargs.items() if v is not None}
    body.update(extra)
    return body, headers, timeout


class ChatCompletion:
    """openai.ChatCompletion (0.x)."""

    @staticmethod
    def create(**kwargs):
        key, base = kwargs.get("api_key") or api_key, kwargs.get("api_base") or api_base
        body, headers, timeout = _body(kwargs)
        return _post(base, key, "/chat/completions", body, headers, timeout)


class Completion:
    """openai.Completion (0.x)."""

    @staticmethod
    def create(**kwargs):
        key, base = kwargs.get("api_key") or api_key, kwargs.get("api_base") or api_base
        body, headers, timeout = _body(kwargs)
        return _post(base, key, "/completions", body, headers, timeout)


class _Resource:
    def __init__(self, client, path):
        self._client, self._path = client, path

    def create(self, **kwargs):
        body, headers, timeout = _body(kwargs)
        headers = {**self._client.default_headers, **headers}
        return _post(self._client.base_url, self._client.api_key, self._path, body, headers,
                     timeout or self._client.timeout)


class _Chat:
    def __init__(self, client):
        self.completions = _Resource(client, "/chat/completions")


class OpenAI:
    """openai.OpenAI (1.x): api_key and base_url default to OPENAI_API_KEY and
    OPENAI_BASE_URL, as the real client's do."""

    def __init__(self, api_key=None, base_url=None, timeout=None, default_headers=None, **_):
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY")
        if self.api_key is None:
            raise OpenAIError("The api_key client option must be set either by passing api_key to the "
                              "client or by setting the OPENAI_API_KEY environment variable")
        self.base_url = str(base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1")
        self.timeout = timeout if isinstance(timeout, (int, float)) else None
        self.default_headers = dict(default_headers or {})
        self.chat = _Chat(self)
        self.completions = _Resource(self, "/completions")

    def with_options(self, **kw):
        return OpenAI(api_key=kw.get("api_key", self.api_key), base_url=kw.get("base_url", self.base_url),
                      timeout=kw.get("timeout", self.timeout), default_headers=self.default_headers)


base_url = None  # 1.x module-level client settings (openai.base_url, openai.api_key)


def __getattr__(name):
    """openai.chat / openai.completions: the 1.x module-level client, built
    per use from openai.api_key/base_url or the environment."""
    if name in ("chat", "completions"):
        client = OpenAI(api_key=api_key, base_url=base_url or os.environ.get("OPENAI_BASE_URL") or api_base)
        return getattr(client, name)
    raise AttributeError("module 'openai' has no attribute %r (reasonbench's stand-in implements only "
                         "ChatCompletion, Completion, OpenAI and the errors)" % name)


# The 0.x submodule openai.error (import openai.error, from openai.error import X).
from . import error  # noqa: E402,F401
