package recover

// SetMaxStreamedBytes lowers the bound on what Status holds from local
// sources, for a test; the returned func restores it.
func SetMaxStreamedBytes(n int64) (restore func()) {
	old := maxStreamedBytes
	maxStreamedBytes = n
	return func() { maxStreamedBytes = old }
}

// SetMaxHeldRevisitBytes lowers the bound on the originals' pages a WARC
// source holds for revisits, for a test; the returned func restores it.
func SetMaxHeldRevisitBytes(n int64) (restore func()) {
	old := maxHeldBytes
	maxHeldBytes = n
	return func() { maxHeldBytes = old }
}
