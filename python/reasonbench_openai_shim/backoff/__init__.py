"""A standard-library stand-in for the `backoff` package, so reference code
that decorates its model calls with @backoff.on_exception imports without
pip. It does not retry: under bench every call already goes through the
run's retries, and a second layer would hide a refused call (a spent
budget) behind an endless loop. The decorated function runs once and its
exception propagates."""

import functools


def expo(*_args, **_kwargs):
    """Placeholder for backoff.expo (never iterated: nothing is retried)."""
    while True:
        yield 0


constant = fibo = expo


def on_exception(wait_gen, exception, *args, **kwargs):
    def decorate(f):
        @functools.wraps(f)
        def call(*a, **kw):
            return f(*a, **kw)
        return call
    return decorate


on_predicate = on_exception
