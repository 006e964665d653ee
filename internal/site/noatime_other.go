//go:build !linux

package site

import "os"

// openNoATime opens name in root for reading (O_NOATIME is Linux's).
func openNoATime(root *os.Root, name string) (*os.File, error) { return root.Open(name) }
