package pyval

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
)

// AppendHashable appends str(to_hashable(v)), where to_hashable is
// tau-bench's: a dict becomes the tuple of its (key, value) pairs sorted by
// key, a list the tuple of its items, recursively; scalars stay. So {} and
// [] print as "()", a one-item dict or list as "(x,)", and a dict as
// "(('a', 1), ('b', (2, 3)))". Keys sort by code point, as Python compares
// str (WTF-8's byte order is code point order). The only error is an int
// past MaxIntDigits. (A str at the top is itself, as str() prints it; inside
// the tuples everything is repr.)
func AppendHashable(dst []byte, v Value) ([]byte, error) {
	if s, ok := v.(string); ok {
		return append(dst, s...), nil
	}
	return appendHashable(dst, v)
}

func appendHashable(dst []byte, v Value) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case *List:
		dst = append(dst, '(')
		for i, it := range x.Items {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			if dst, err = appendHashable(dst, it); err != nil {
				return dst, err
			}
		}
		if len(x.Items) == 1 {
			dst = append(dst, ',')
		}
		return append(dst, ')'), nil
	case *Dict:
		order := make([]int, len(x.keys))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int {
			ka, kb := x.keys[a], x.keys[b]
			switch {
			case ka < kb:
				return -1
			case ka > kb:
				return 1
			}
			return 0
		})
		dst = append(dst, '(')
		for n, i := range order {
			if n > 0 {
				dst = append(dst, ", "...)
			}
			if dst, err = AppendHashablePair(dst, x.keys[i], x.vals[i]); err != nil {
				return dst, err
			}
		}
		if len(order) == 1 {
			dst = append(dst, ',')
		}
		return append(dst, ')'), nil
	}
	return AppendRepr(dst, v)
}

// AppendHashablePair appends one dict item as to_hashable renders it:
// "('key', <value>)".
func AppendHashablePair(dst []byte, k string, v Value) ([]byte, error) {
	dst = append(dst, '(')
	dst = AppendStrRepr(dst, k)
	dst = append(dst, ", "...)
	dst, err := appendHashable(dst, v)
	return append(dst, ')'), err
}

// ConsistentHash is tau-bench's consistent_hash(to_hashable(v)): the
// SHA-256 hex digest of AppendHashable's text in UTF-8.
func ConsistentHash(v Value) (string, error) {
	b, err := AppendHashable(nil, v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
