package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/agentfiles/agentfiles/adapters"
)

// authSetup is how the server checks bearer tokens.
type authSetup struct {
	authn       adapters.Authenticator
	description string // one line for the start-up banner; never contains a token
	// consoleToken is put into the console URL printed at start-up: the well-known dev token
	// only, never a secret the operator chose.
	consoleToken string
}

// newAuth builds the Authenticator: every bearer token is hashed into its tenant
// (adapters.BearerAuth); which tokens are accepted depends on the flags.
func newAuth(c config) (authSetup, error) {
	if c.acceptAnyToken {
		return authSetup{authn: adapters.BearerAuth(nil), description: "any bearer token (each token is its own tenant)"}, nil
	}
	labels := map[string]string{}
	if c.tokenFile != "" {
		if err := readTokenFile(c.tokenFile, labels); err != nil {
			return authSetup{}, err
		}
	}
	// The dev token is accepted when it is the only configuration, or was given explicitly.
	if c.tokenFile == "" || c.devTokenSet {
		labels[c.devToken] = "dev-token"
	}
	s := authSetup{
		authn:       adapters.BearerAuth(adapters.StaticTokens(labels)),
		description: fmt.Sprintf("%d accepted bearer token(s)", len(labels)),
	}
	if !c.devTokenSet && c.tokenFile == "" {
		s.consoleToken = DevToken
		s.description = fmt.Sprintf("the well-known dev token %q (loopback only; use -dev-token or -token-file for anything else)", DevToken)
	}
	return s, nil
}

// readTokenFile adds the tokens of a file of `TOKEN [LABEL]` lines to labels.
func readTokenFile(path string, labels map[string]string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", flagRef("token-file"), err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		token, label, _ := strings.Cut(text, " ")
		label = strings.TrimSpace(label)
		if label == "" {
			label = fmt.Sprintf("%s:%d", path, line)
		}
		labels[token] = label
		n++
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s %s: %w", flagRef("token-file"), path, err)
	}
	if n == 0 {
		return fmt.Errorf("%s %s holds no tokens; write one `TOKEN [LABEL]` per line", flagRef("token-file"), path)
	}
	return nil
}

// hasCredentials reports whether a request carries an Authorization header at all.
func hasCredentials(r *http.Request) bool {
	return strings.TrimSpace(r.Header.Get("Authorization")) != ""
}
