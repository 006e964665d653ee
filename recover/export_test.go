package recover

// SetScanWorkers sets how many goroutines scan captures read ahead (1:
// none read ahead, each scanned as it is taken) until the returned
// function is called.
func SetScanWorkers(n int) (restore func()) {
	old := scanWorkers
	scanWorkers = n
	return func() { scanWorkers = old }
}

// SetExtractEarly turns extracting early on or off until the returned
// function is called.
func SetExtractEarly(on bool) (restore func()) {
	old := extractEarly
	extractEarly = on
	return func() { extractEarly = old }
}

// EarlyCommits returns how many early extractions were committed so far.
func EarlyCommits() int64 { return earlyCommits.Load() }
