package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/agentfiles/agentfiles"
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

// newAuth builds the Authenticator: every bearer token is its own tenant (the hex SHA-256 of the
// token) unless its -token-file line names one (adapters.TokenAuth); which tokens are accepted
// depends on the flags.
func newAuth(c config) (authSetup, error) {
	if c.acceptAnyToken {
		return authSetup{authn: adapters.BearerAuth(nil), description: "any bearer token (each token is its own tenant)"}, nil
	}
	tokens := map[string]adapters.TokenEntry{}
	if c.tokenFile != "" {
		if err := readTokenFile(c.tokenFile, tokens); err != nil {
			return authSetup{}, err
		}
	}
	// The dev token is accepted when it is the only configuration, or was given explicitly.
	if c.tokenFile == "" || c.devTokenSet {
		tokens[c.devToken] = adapters.TokenEntry{Label: "dev-token"}
	}
	authn, err := adapters.TokenAuth(tokens)
	if err != nil {
		return authSetup{}, err
	}
	s := authSetup{
		authn:       authn,
		description: fmt.Sprintf("%d accepted bearer token(s)", len(tokens)),
	}
	if !c.devTokenSet && c.tokenFile == "" {
		s.consoleToken = DevToken
		s.description = fmt.Sprintf("the well-known dev token %q (loopback only; use -dev-token or -token-file for anything else)", DevToken)
	}
	return s, nil
}

// readTokenFile adds the tokens of a file of `TOKEN [LABEL] [tenant=ID]` lines to tokens. A
// line without tenant= makes the token its own tenant; lines with the same tenant share its
// files (see agentfiles.ValidateTenant for the form of ID).
func readTokenFile(path string, tokens map[string]adapters.TokenEntry) error {
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
		entry, token, err := parseTokenLine(text)
		if err != nil {
			return fmt.Errorf("%s %s line %d: %w", flagRef("token-file"), path, line, err)
		}
		if entry.Label == "" {
			entry.Label = fmt.Sprintf("%s:%d", path, line)
		}
		tokens[token] = entry
		n++
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s %s: %w", flagRef("token-file"), path, err)
	}
	if n == 0 {
		return fmt.Errorf("%s %s holds no tokens; write one `TOKEN [LABEL] [tenant=ID]` per line", flagRef("token-file"), path)
	}
	return nil
}

// parseTokenLine splits a `TOKEN [LABEL] [tenant=ID]` line: the first field is the token, a
// last field tenant=ID names its tenant, the fields between are the label.
func parseTokenLine(text string) (adapters.TokenEntry, string, error) {
	fields := strings.Fields(text)
	token, rest := fields[0], fields[1:]
	var e adapters.TokenEntry
	if n := len(rest); n > 0 && strings.HasPrefix(rest[n-1], "tenant=") {
		e.Tenant, rest = strings.TrimPrefix(rest[n-1], "tenant="), rest[:n-1]
		if err := agentfiles.ValidateTenant(e.Tenant); err != nil {
			return e, "", err
		}
	}
	e.Label = strings.Join(rest, " ")
	return e, token, nil
}

// hasCredentials reports whether a request carries an Authorization header at all.
func hasCredentials(r *http.Request) bool {
	return strings.TrimSpace(r.Header.Get("Authorization")) != ""
}
