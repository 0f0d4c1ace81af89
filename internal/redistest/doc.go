// Package redistest starts throwaway Redis servers for tests.
//
// # Model
//
// A [Server] is one redis-server process on a free loopback port with persistence switched off
// (--save "" --appendonly no), in its own process group with a parent-death signal so it does not
// outlive the test binary. Redis starts in milliseconds, so every test gets its own server:
//
//	func TestSomething(t *testing.T) {
//		addr := redistest.New(t) // "127.0.0.1:PORT", stopped when the test ends
//		rdb := redis.NewClient(&redis.Options{Addr: addr})
//		...
//	}
//
// When redis-server is not on PATH the test is skipped with a message naming the Debian package
// redis-server — unless AGENTFILES_REQUIRE_SERVICES=1, which turns the skip into a failure.
//
// All functions and methods are safe for concurrent use.
package redistest
