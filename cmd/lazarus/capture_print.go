package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/capture"

	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/spn"
)

// captureProgress prints the plan when it is made and every job's
// outcome as it is known on stdout, and the phases on stderr; idle says
// why nothing is sent when the plan has no requester ("dry run").
func captureProgress(stdout, stderr io.Writer, idle string) func(capture.Progress) {
	return func(p capture.Progress) {
		switch p.Phase {
		case "live":
			fmt.Fprintln(stderr, "lazarus: waiting for the live site to serve the generation inject made last")
		case "retry":
			fmt.Fprintf(stderr, "lazarus: asking again for %s still short\n", humane.Count(len(p.Pages), "page"))
		case "crawl":
			fmt.Fprintln(stderr, "lazarus: crawling the live site")
		case "audit":
			fmt.Fprintf(stderr, "lazarus: auditing the archives (audit %d)\n", p.Audits+1)
		case "wait":
			fmt.Fprintf(stderr, "lazarus: the archives do not show the generation safe yet; auditing again later (%s so far)\n", humane.Count(p.Audits, "audit"))
		case "plan":
			for _, w := range p.Report.Warnings {
				fmt.Fprintf(stderr, "lazarus: warning: %s\n", printable(w))
			}
			printCapturePlan(stdout, p.Report, idle)
		case "job":
			printCaptureJob(stdout, p.Job)
		}
	}
}

// printCaptureJob prints one job's outcome.
func printCaptureJob(w io.Writer, j *capture.Job) {
	u := printable(j.URL)
	switch j.State {
	case spn.StateSuccess:
		fmt.Fprintf(w, "  captured   %s at %s\n", u, j.Time.UTC().Format(time.RFC3339))
	case spn.StateAccepted:
		fmt.Fprintf(w, "  accepted   %s (no capture named: the archive's listing confirms it)\n", u)
	case spn.StateNotSent:
		fmt.Fprintf(w, "  not sent   %s\n", u)
	case spn.StateAbandoned:
		fmt.Fprintf(w, "  abandoned  %s (job %s: %s)\n", u, printable(j.JobID), printable(j.Error))
	default:
		fmt.Fprintf(w, "  failed     %s: %s\n", u, printable(j.Error))
	}
}

// printCapturePlan prints the generation, what the archives hold and the
// plan; idle says why nothing is sent on a plan without a requester.
func printCapturePlan(w io.Writer, rep *capture.Report, idle string) {
	fmt.Fprintf(w, "Site %s, generation %s (made %s)\n", printable(rep.Site), rep.Generation, rep.Time.Format(time.RFC3339))
	atNeed, capped := 0, 0
	for _, s := range rep.Stripes {
		if s.Archived >= s.Need {
			atNeed++
		}
		if s.Need < s.K+rep.Margin {
			capped++
		}
	}
	held := "not held by any archive"
	if rep.ManifestArchived {
		held = "archived"
	}
	want := fmt.Sprintf("k + %d blocks", rep.Margin)
	if capped > 0 { // --margin beyond the parity some stripes have: they need all their blocks
		want += fmt.Sprintf(" (all of theirs for %d with fewer parity blocks)", capped)
	}
	fmt.Fprintf(w, "  manifest %s; %d of %d stripes archived with %s; %s\n", held, atNeed, len(rep.Stripes), want,
		humane.Count(rep.Carriers, "carrier page"))
	if len(rep.Plan) == 0 {
		fmt.Fprintln(w, "Nothing to ask for: the archives hold every stripe's k + margin blocks, or no carrier page adds any.")
		return
	}
	verb := "Asking for"
	if rep.DryRun {
		verb = "Would ask for (" + idle + ", nothing sent)"
	}
	fmt.Fprintf(w, "%s %s:\n", verb, humane.Count(len(rep.Plan), "capture"))
	for i, p := range rep.Plan {
		why := fmt.Sprintf("+%s in %s", humane.Count(p.NewBlocks, "block"), humane.Count(p.Raises, "stripe"))
		if p.Why == capture.ForManifest {
			why = "the manifest, " + why
		}
		fmt.Fprintf(w, "  %2d. %s (%s)\n", i+1, printable(p.URL), why)
	}
	for _, s := range rep.Short {
		fmt.Fprintf(w, "  short even then: %s\n", printable(s))
	}
}

// printCaptureEnd prints what the requests came to and the last audit's
// verdict (the plan was printed before the jobs; on a dry run nothing
// more).
func printCaptureEnd(w io.Writer, rep *capture.Report) {
	if rep.DryRun {
		return
	}
	line := fmt.Sprintf("%s: %d accepted, %d captured, %d failed", humane.Count(len(rep.Jobs), "capture request"), rep.Sent, rep.Captured, rep.Failed)
	rest := 0
	for _, j := range rep.Jobs {
		if j.State == spn.StateAbandoned || j.State == spn.StateNotSent {
			rest++
		}
	}
	if rest > 0 {
		line += fmt.Sprintf(", %d abandoned or not sent", rest)
	}
	if rep.Rounds > 1 {
		line += fmt.Sprintf(" (%d rounds)", rep.Rounds)
	}
	fmt.Fprintf(w, "%s; %s of the archives\n", line, humane.Count(rep.Audits, "audit"))
	if rep.Safe {
		fmt.Fprintf(w, "The archives hold generation %s: it is recoverable (lazarus status says so too).\n", rep.Generation)
	}
}

// captureHints says what to do when the generation is not safe yet.
func captureHints(w io.Writer, rep *capture.Report, err error) {
	switch {
	case errors.Is(err, spn.ErrDailyLimit):
		hintf(w, "the daily capture limit is reached after %s; run again tomorrow", humane.Count(rep.Sent, "request"))
	case errors.Is(err, spn.ErrHostPaused):
		hintf(w, "the Internet Archive paused crawling of this host; try again later")
	case errors.Is(err, spn.ErrWaitTooLong):
		hintf(w, "Save Page Now asked to wait longer than capture waits (%s); run capture again later", humane.Duration(spn.DefaultMaxWait))
	case rep != nil && rep.Sent > 0:
		hintf(w, "captures take minutes to hours to show in the archive's index: run lazarus status later, or capture with --wait 1h")
	case rep != nil && len(rep.Plan) == 0:
		hintf(w, "lazarus verify says which live pages carry the newest generation where archives would keep them")
	}
}

// abandoned says what an interrupted run left behind.
func abandoned(rep *capture.Report) string {
	if rep == nil {
		return "no capture request was pending"
	}
	n := 0
	for _, j := range rep.Jobs {
		if j.State == spn.StateAbandoned || j.State == spn.StateNotSent {
			n++
		}
	}
	return fmt.Sprintf("%s accepted; %s abandoned or not sent (the archive may still finish those accepted)", humane.Count(rep.Sent, "request"), humane.Count(n, "job"))
}
