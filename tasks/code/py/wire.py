"""The plain-data encoding between the tests' process and the program's.

A value is one of None, bool, int, float, complex, str, bytes, list,
tuple, set, frozenset and dict, nested; nothing else crosses. Each is a
tag byte and its content:

    N  None             T / F  True / False
    i<hex>;  int        f<float.hex>;  float (inf, nan and -0.0 exact)
    c<hex>,<hex>;  complex (two float.hex)
    s<n>:<n bytes>  str (UTF-8, lone surrogates kept)
    b<n>:<n bytes>  bytes
    l<n>: list, t<n>: tuple, S<n>: set, Z<n>: frozenset: n values follow
    d<n>: dict: n keys each followed by its value

The decoder is the tests' gate: it reads bytes the program wrote, so it
builds only the types above (never a subclass, never a call into the
program's objects), iteratively (no depth a program could use to crash
it), and refuses anything else with WireError. The encoder, on the
program's side, turns a subclass of a plain type into the plain value it
holds (a Counter into its dict, a namedtuple into its tuple): whatever its
methods say, what crosses is the data.
"""

import os
import struct

MAX_MESSAGE = 64 << 20  # bytes of one encoded message
MAX_DEPTH = 400  # nesting either side follows


class WireError(Exception):
    """Bytes that are not one encoded value."""


class Unencodable(Exception):
    """A value of a type that cannot cross."""


def encode(v):
    out = []
    try:
        _enc(v, out, 0, set())
    except RecursionError:
        raise Unencodable("nested too deep") from None
    return b"".join(out)


def _enc(v, out, depth, path):
    if depth > MAX_DEPTH:
        raise Unencodable("nested deeper than %d" % MAX_DEPTH)
    if v is None:
        out.append(b"N")
    elif v is True:
        out.append(b"T")
    elif v is False:
        out.append(b"F")
    elif isinstance(v, int):
        out.append(b"i%x;" % int.__index__(v))
    elif isinstance(v, float):
        out.append(b"f" + float.hex(v).encode() + b";")
    elif isinstance(v, complex):
        re, im = complex.real.__get__(v), complex.imag.__get__(v)
        out.append(b"c" + float.hex(re).encode() + b"," + float.hex(im).encode() + b";")
    elif isinstance(v, str):
        b = str.encode(v, "utf-8", "surrogatepass")
        out.append(b"s%d:" % len(b))
        out.append(b)
    elif isinstance(v, (bytes, bytearray)):
        b = bytes.__getitem__(v, slice(None)) if isinstance(v, bytes) else bytes(bytearray.__getitem__(v, slice(None)))
        out.append(b"b%d:" % len(b))
        out.append(b)
    else:
        for typ, tag, items in _CONTAINERS:
            if isinstance(v, typ):
                break
        else:
            raise Unencodable("a %s cannot cross to the tests" % type(v).__name__)
        if id(v) in path:
            raise Unencodable("a %s that contains itself" % type(v).__name__)
        path.add(id(v))
        xs = items(v)
        out.append(tag + b"%d:" % (len(xs) // 2 if tag == b"d" else len(xs)))
        for x in xs:
            _enc(x, out, depth + 1, path)
        path.discard(id(v))


def _dict_items(v):
    out = []
    for k, x in dict.items(v):
        out.append(k)
        out.append(x)
    return out


# Subclasses first where one plain type is another's (none today): each
# container's items are read with the plain type's own methods.
_CONTAINERS = [
    (list, b"l", lambda v: list(list.__iter__(v))),
    (tuple, b"t", lambda v: list(tuple.__iter__(v))),
    (frozenset, b"Z", lambda v: list(frozenset.__iter__(v))),
    (set, b"S", lambda v: list(set.__iter__(v))),
    (dict, b"d", _dict_items),
]

_BUILD = {
    ord("l"): list,
    ord("t"): tuple,
    ord("S"): set,
    ord("Z"): frozenset,
}


def decode(b):
    """The value b encodes, of plain types only; WireError otherwise."""
    try:
        return _decode(bytes(b))
    except WireError:
        raise
    except Exception as e:  # a set of lists, a bad float, a huge count...
        raise WireError("%s: %s" % (type(e).__name__, e)) from None


def _number(b, pos, stop, limit):
    end = b.find(stop, pos, pos + limit + 1)
    if end < 0:
        raise WireError("no %r within %d bytes at %d" % (stop, limit, pos))
    return b[pos:end].decode("ascii"), end + 1


def _count(b, pos):
    s, pos = _number(b, pos, b":", 12)
    if not s.isdigit():
        raise WireError("bad count %r" % s)
    return int(s), pos


def _float(s):
    if not s or len(s) > 40:
        raise WireError("bad float %r" % s)
    return float.fromhex(s)


def _decode(b):
    n = len(b)
    pos = 0
    stack = []  # [tag, wanted, items]
    while True:
        if pos >= n:
            raise WireError("ends inside a value")
        if len(stack) > MAX_DEPTH:
            raise WireError("nested deeper than %d" % MAX_DEPTH)
        tag = b[pos]
        pos += 1
        if tag == ord("N"):
            v = None
        elif tag == ord("T"):
            v = True
        elif tag == ord("F"):
            v = False
        elif tag == ord("i"):
            s, pos = _number(b, pos, b";", n)
            digits = s[1:] if s.startswith("-") else s
            if not digits or any(c not in "0123456789abcdef" for c in digits):
                raise WireError("bad int %r" % s[:40])
            v = int(s, 16)
        elif tag == ord("f"):
            s, pos = _number(b, pos, b";", 40)
            v = _float(s)
        elif tag == ord("c"):
            s, pos = _number(b, pos, b";", 81)
            re, sep, im = s.partition(",")
            if not sep:
                raise WireError("bad complex %r" % s)
            v = complex(_float(re), _float(im))
        elif tag in (ord("s"), ord("b")):
            size, pos = _count(b, pos)
            if size > n - pos:
                raise WireError("a string of %d bytes in %d" % (size, n - pos))
            raw = b[pos : pos + size]
            pos += size
            v = raw.decode("utf-8", "surrogatepass") if tag == ord("s") else raw
        elif tag in _BUILD or tag == ord("d"):
            count, pos = _count(b, pos)
            wanted = 2 * count if tag == ord("d") else count
            if wanted > n - pos:  # each value takes a byte at least
                raise WireError("%d values in %d bytes" % (wanted, n - pos))
            if wanted:
                stack.append([tag, wanted, []])
                continue
            v = {} if tag == ord("d") else _BUILD[tag]()
        else:
            raise WireError("unknown tag %r at %d" % (chr(tag), pos - 1))
        while stack:
            top = stack[-1]
            top[2].append(v)
            if len(top[2]) < top[1]:
                break
            stack.pop()
            items = top[2]
            if top[0] == ord("d"):
                v = {}
                for i in range(0, len(items), 2):
                    v[items[i]] = items[i + 1]
            else:
                v = _BUILD[top[0]](items)
        else:
            if pos != n:
                raise WireError("%d bytes after the value" % (n - pos))
            return v


class Conn:
    """Length-prefixed messages over two descriptors."""

    def __init__(self, rfd, wfd):
        self.rfd, self.wfd = rfd, wfd

    def send(self, v):
        data = encode(v)
        if len(data) > MAX_MESSAGE:
            raise Unencodable("a value of %d bytes (limit %d)" % (len(data), MAX_MESSAGE))
        data = struct.pack(">I", len(data)) + data
        while data:
            data = data[os.write(self.wfd, data) :]

    def recv_bytes(self):
        """One message's bytes; None at the end of the stream."""
        head = self._read(4)
        if head is None:
            return None
        (size,) = struct.unpack(">I", head)
        if size > MAX_MESSAGE:
            raise WireError("a message of %d bytes (limit %d)" % (size, MAX_MESSAGE))
        body = self._read(size)
        if body is None:
            raise WireError("the stream ends inside a message")
        return body

    def _read(self, size):
        parts, got = [], 0
        while got < size:
            b = os.read(self.rfd, min(size - got, 1 << 20))
            if not b:
                if got:
                    raise WireError("the stream ends inside a message")
                return None
            parts.append(b)
            got += len(b)
        return b"".join(parts)
