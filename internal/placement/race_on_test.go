//go:build race

package placement

// raceEnabled is true when the race detector is on; heavy cases then shrink.
const raceEnabled = true
