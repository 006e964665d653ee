//go:build race

package bundle

// raceEnabled is true when the race detector is on; very heavy tests skip.
const raceEnabled = true
