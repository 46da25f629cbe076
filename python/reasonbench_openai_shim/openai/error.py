"""openai.error of the 0.x package: the stand-in's exceptions under their old names."""

from . import (APIConnectionError, APIError, APITimeoutError, AuthenticationError,  # noqa: F401
               InvalidRequestError, OpenAIError, PermissionDeniedError, RateLimitError,
               ServiceUnavailableError)

Timeout = APITimeoutError
PermissionError = PermissionDeniedError  # noqa: A001 -- the 0.x name
TryAgain = ServiceUnavailableError
