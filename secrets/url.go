package secrets

import (
	"encoding/base64"
	"net/url"
	"strings"
)

// credentialParams are query parameter names that carry a credential
// (?api-key=, ?token=, ?sig=): their values are keys. Other parameters
// (?api-version=) are kept.
var credentialParams = []string{"key", "token", "secret", "password", "passwd", "pwd", "auth", "credential", "sig", "signature", "code"}

// credentialParam reports whether a query parameter's name looks like a
// credential's.
func credentialParam(name string) bool {
	n := strings.ToLower(name)
	for _, w := range credentialParams {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// URLCredentials are the credentials a URL (or a comma-separated list of
// them) carries: its user info's password and Basic authorization (or its
// user name, when there is no password: https://TOKEN@host), and the values of credential-named query parameters. Register them (Add) before the URL or
// anything it returned is stored.
func URLCredentials(raw string) []string {
	var out []string
	for _, part := range strings.Split(raw, ",") {
		u, err := url.Parse(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if u.User != nil {
			if p, ok := u.User.Password(); ok && p != "" {
				// The Basic authorization an HTTP client makes of the user
				// info (a server echoing its headers shows it) is one too.
				basic := base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + p))
				out = append(out, p, url.QueryEscape(p), url.PathEscape(p), basic)
			}
			// A user name beside a password is no secret ("admin", "u"),
			// and redacting it would blank that word in every stored
			// text; alone it is the credential.
			if _, hasPass := u.User.Password(); !hasPass && u.User.Username() != "" {
				n := u.User.Username()
				out = append(out, n, url.QueryEscape(n))
			}
		}
		for k, vs := range u.Query() {
			if credentialParam(k) {
				for _, v := range vs {
					if v != "" {
						out = append(out, v, url.QueryEscape(v))
					}
				}
			}
		}
	}
	return out
}

// StripURL is a URL (or a comma-separated list) as it may be stored: without
// user info and without credential-named query parameters, whose values
// become REDACTED. The other parameters stay, so the URL still reaches the
// same server. changed says whether anything was removed.
func StripURL(raw string) (out string, changed bool) {
	if raw == "" {
		return "", false
	}
	parts := strings.Split(raw, ",")
	for i, part := range parts {
		u, err := url.Parse(strings.TrimSpace(part))
		if err != nil {
			parts[i], changed = "(unparseable)", true
			continue
		}
		if u.User != nil {
			u.User, changed = nil, true
		}
		q := u.Query()
		for k := range q {
			if credentialParam(k) {
				q.Set(k, "REDACTED")
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
		parts[i] = u.String()
	}
	if !changed {
		return raw, false
	}
	return strings.Join(parts, ","), true
}
