//go:build !race

package keys

// raceEnabled reports whether the race detector is on; heavy cases are
// skipped under it.
const raceEnabled = false
