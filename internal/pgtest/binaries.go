package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
)

// EnvDatabaseURL names the environment variable that points New at an existing server.
const EnvDatabaseURL = "AGENTFILES_TEST_DATABASE_URL"

// EnvRequireServices names the environment variable that turns a missing PostgreSQL into a test
// failure instead of a skip.
const EnvRequireServices = "AGENTFILES_REQUIRE_SERVICES"

// errNoBinaries is returned when initdb or postgres cannot be found.
var errNoBinaries = errors.New("PostgreSQL binaries initdb and postgres not found on PATH or in /usr/lib/postgresql/*/bin; install the Debian package postgresql (apt-get install postgresql) or set " + EnvDatabaseURL)

// binDir returns the directory holding initdb and postgres. Both must come from the same
// installation, so a directory qualifies only when it holds both.
func binDir() (string, error) {
	var candidates []string
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			candidates = append(candidates, filepath.Dir(real))
		}
		candidates = append(candidates, filepath.Dir(p))
	}
	versioned, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// Newest major version first ("9.6" < "15" numerically, not bytewise).
	sort.Slice(versioned, func(i, j int) bool {
		return majorOf(versioned[i]) > majorOf(versioned[j])
	})
	candidates = append(candidates, versioned...)
	for _, dir := range candidates {
		if isExecutable(filepath.Join(dir, "initdb")) && isExecutable(filepath.Join(dir, "postgres")) {
			return dir, nil
		}
	}
	return "", errNoBinaries
}

func majorOf(binPath string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(binPath)), 64)
	return v
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// runAs returns the credential the cluster must run under: the postgres user when we are root
// (PostgreSQL refuses to run as root), nil (ourselves) otherwise.
func runAs() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root and there is no postgres user to run the cluster as (install the Debian package postgresql): %w", err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

// requireServices reports whether a missing service must fail the test instead of skipping it.
func requireServices() bool { return os.Getenv(EnvRequireServices) == "1" }
