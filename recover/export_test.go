package recover

// SetScanWorkers sets how many goroutines scan captures read ahead (1:
// none read ahead, each scanned as it is taken) until the returned
// function is called.
func SetScanWorkers(n int) (restore func()) {
	old := scanWorkers
	scanWorkers = n
	return func() { scanWorkers = old }
}
