//go:build !linux

package bundle

import "os"

// openNoATime opens p for reading (O_NOATIME is Linux's).
func openNoATime(p string) (*os.File, error) { return os.Open(p) }
