//go:build !race

package e2etest

// RaceEnabled is true when the race detector is on.
const RaceEnabled = false
