package humane

import (
	"fmt"
	"strings"
	"time"
)

// day is 24 hours.
const day = 24 * time.Hour

// Duration says how long d is in words, to two units and rounded down:
// "3 days 4 hours", "5 hours 2 minutes", "1 minute", "under a minute".
// A negative d is the same words after a minus sign.
func Duration(d time.Duration) string {
	if d < 0 {
		return "-" + Duration(max(-d, -(d+1))) // -(d+1): −MinInt64 overflows
	}
	days, hours, mins := int64(d/day), int64(d%day/time.Hour), int64(d%time.Hour/time.Minute)
	var parts []string
	switch {
	case days > 0:
		parts = append(parts, plural(days, "day"), plural(hours, "hour"))
	case hours > 0:
		parts = append(parts, plural(hours, "hour"), plural(mins, "minute"))
	case mins > 0:
		parts = append(parts, plural(mins, "minute"))
	default:
		return "under a minute"
	}
	if strings.HasPrefix(parts[len(parts)-1], "0 ") {
		parts = parts[:len(parts)-1]
	}
	return strings.Join(parts, " ")
}

// plural is "1 day", "2 days".
func plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
