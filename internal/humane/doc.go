// Package humane words durations and counts for people: "5 hours 10
// minutes", "3 days", "1 block", "2 stores". The status command's text
// output and its HTML page (package statushtml) share it, so that both
// say the same thing about the same report.
package humane
