//go:build race

package erasure

// raceEnabled is true when the race detector is on; heavy cases then shrink.
const raceEnabled = true
