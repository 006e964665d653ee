//go:build !linux

package noatime

// flag is 0: O_NOATIME is Linux's.
const flag = 0
