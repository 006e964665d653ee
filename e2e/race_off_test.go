//go:build !race

package e2e

// raceEnabled is true when the race detector is on.
const raceEnabled = false
