package main

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeFlag is a byte count given as 49152, 48KiB, 48K, 1MiB or 1M
// (K and M are binary, as page budgets are).
type sizeFlag struct{ n *int }

func (s sizeFlag) String() string {
	if s.n == nil || *s.n == 0 {
		return "" // 0 is "choose", shown as no default
	}
	return formatSize(int64(*s.n))
}

func (s sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s.n = n
	return nil
}

func parseSize(v string) (int, error) {
	t := strings.TrimSpace(v)
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"K", 1 << 10}, {"M", 1 << 20}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.Atoi(t)
	if err != nil || n < 0 || n > 1<<30/mult {
		return 0, fmt.Errorf("size %q: want bytes such as 49152, 48KiB or 1MiB, at most 1024MiB", v)
	}
	return n * mult, nil
}

// formatSize prints a byte count the way people read it.
func formatSize(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 10<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// flagSize prints a byte count exactly, as a size flag takes it: 64KiB.
func flagSize(n int) string {
	switch {
	case n > 0 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n > 0 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return strconv.Itoa(n)
}
