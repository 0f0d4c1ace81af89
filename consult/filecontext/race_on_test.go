//go:build race

package filecontext

// fcRace is true under the race detector, which makes the long scripted conversations about ten
// times slower: they then run fewer seeds and configurations.
const fcRace = true
