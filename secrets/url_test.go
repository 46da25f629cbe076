package secrets

import (
	"slices"
	"strings"
	"testing"
)

func TestURLCredentials(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url      string
		creds    []string
		notCreds []string
		stripped string
		changed  bool
	}{
		{"http://127.0.0.1:8000/v1", nil, nil, "http://127.0.0.1:8000/v1", false},
		// The third credential is user:sk-canary-1 in Basic authorization's base64.
		{"http://user:sk-canary-1@host/v1?api-key=sk-canary-2&api-version=2024", []string{"sk-canary-1", "sk-canary-2", "dXNlcjpzay1jYW5hcnktMQ=="},
			[]string{"user"}, "http://host/v1?api-key=REDACTED&api-version=2024", true},
		{"https://h/v1?token=abc%2Fdef", []string{"abc/def"}, nil, "https://h/v1?token=REDACTED", true},
		{"http://a:p1@x/v1,http://y/v1?sig=zz", []string{"p1", "zz"}, []string{"a"}, "http://x/v1,http://y/v1?sig=REDACTED", true},
		// A user name alone is the token (https://TOKEN@host).
		{"https://ghp-tok-9@h/v1", []string{"ghp-tok-9"}, nil, "https://h/v1", true},
		{"https://h/v1?api-version=1", nil, nil, "https://h/v1?api-version=1", false},
	}
	for _, tc := range cases {
		got := URLCredentials(tc.url)
		for _, c := range tc.creds {
			if !slices.Contains(got, c) {
				t.Errorf("URLCredentials(%q) = %q, lacks %q", tc.url, got, c)
			}
		}
		for _, c := range tc.notCreds {
			if slices.Contains(got, c) {
				t.Errorf("URLCredentials(%q) = %q, holds the user name %q beside a password", tc.url, got, c)
			}
		}
		if len(tc.creds) == 0 && len(got) > 0 {
			t.Errorf("URLCredentials(%q) = %q, want none", tc.url, got)
		}
		s, ch := StripURL(tc.url)
		if s != tc.stripped || ch != tc.changed {
			t.Errorf("StripURL(%q) = %q %v, want %q %v", tc.url, s, ch, tc.stripped, tc.changed)
		}
		for _, c := range tc.creds {
			if c != "user" && c != "a" && strings.Contains(s, c) {
				t.Errorf("StripURL(%q) = %q keeps %q", tc.url, s, c)
			}
		}
	}
}
