package humane

import "strconv"

// Count is n and the noun for n in English: Count(1, "store") is
// "1 store", Count(2, "store") "2 stores", Count(0, "entry", "entries")
// "0 entries" (the plural given, else the noun and "s").
func Count(n int, one string, many ...string) string {
	if n == 1 {
		return "1 " + one
	}
	if len(many) > 0 {
		return strconv.Itoa(n) + " " + many[0]
	}
	return strconv.Itoa(n) + " " + one + "s"
}
