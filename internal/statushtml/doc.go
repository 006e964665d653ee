// Package statushtml writes the report of `lazarus status --html FILE`: one
// self-contained HTML page (inline CSS and SVG, no script, nothing fetched)
// drawn from a status.Report.
//
// Where things live:
//
//   - write.go: Write, the page's data and its limits.
//   - page.tmpl: the page itself (html/template escapes every value from
//     the report: URLs, source and segment names are attacker-influenced).
//   - verdict.go: the headline: is the newest generation recoverable now,
//     the restore point and its age, the exit code it implies.
//   - cause.go: when nothing is recoverable because of the key or the
//     sources rather than the archives' contents, the headline says so.
//   - outlook.go: P_rec now and later in both model views, and the time
//     until the target.
//   - segments.go: per generation and segment, archived blocks against k.
//   - svg.go: scales, ticks and number formatting shared by the charts.
//   - palette.go: a colour per source, the same in every chart and table.
//   - chartblocks.go: blocks archived over time per archive and segment
//     against k (like figure 57 of McCown's dissertation).
//   - chartprec.go: the projected recoverability over time, as steps
//     through the times the model computed (never slopes between them).
//   - afteraxis.go: its logarithmic axis of time after the audit.
//   - chartpages.go: the per-page capture timeline (the first
//     MaxPagesShown pages, carriers first).
//   - format.go: times, ages, durations, percentages and counts ("1
//     store", "2 stores") in words.
//
// Every figure the page shows also sits in a data- attribute in machine
// form (RFC 3339 times, nanosecond durations, shortest float formatting),
// so tests, and readers with a script of their own, can check it against
// the JSON report.
package statushtml
