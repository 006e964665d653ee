//go:build !race

package htmlblock

// raceEnabled is true when tests run under the race detector, which makes
// the heaviest cases too slow to be worth running.
const raceEnabled = false
