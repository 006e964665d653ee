package status

// SetMaxStreamedBytes lowers the bound on what Status holds from local
// sources, for a test; the returned func restores it.
func SetMaxStreamedBytes(n int64) (restore func()) {
	old := maxStreamedBytes
	maxStreamedBytes = n
	return func() { maxStreamedBytes = old }
}
