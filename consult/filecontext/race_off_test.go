//go:build !race

package filecontext

const fcRace = false
