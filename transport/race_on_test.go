//go:build race

package transport

// raceEnabled: the race detector makes sync.Pool drop items at random, so allocation counts
// are meaningless under it.
const raceEnabled = true
