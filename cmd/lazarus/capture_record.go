package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/capture"
	"github.com/lazarus-preserve/lazarus/internal/genstate"
	"github.com/lazarus-preserve/lazarus/internal/ondemand"
	"github.com/lazarus-preserve/lazarus/internal/spn"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// keysBuy says how to get Internet Archive keys and what they buy: the
// end of the one line capture prints when it has none.
const keysBuy = "keys from https://archive.org/account/s3.php buy 12 captures a minute and each capture's job status (--access-key-file, or access_key_file under [capture] in lazarus.toml)"

// injectState is inject's state directory: --state (state in the
// config), else inject's default one for the config's outputs and
// --site, if it exists; "" without either.
func (c *captureCmd) injectState() string {
	if c.stateDir != "" {
		return c.stateDir
	}
	o := injector.Options{SiteDir: c.siteDir, SiteURL: c.site}
	if c.cfg != nil {
		o.BundleDir, o.SnippetsDir = c.cfg.Bundle, c.cfg.Snippets
	}
	if o.SiteDir == "" && o.BundleDir == "" && o.SnippetsDir == "" {
		return ""
	}
	if d, err := defaultStateDir(o); err == nil && isDir(d) {
		return d
	}
	return ""
}

// record reads the archive state in inject's state directory; nil
// without one. A --state that is not a directory is an error.
func (c *captureCmd) record() (*genstate.Record, error) {
	d := c.injectState()
	if d == "" {
		return nil, nil
	}
	if !isDir(d) {
		return nil, fmt.Errorf("--state %s: not a directory (inject's state directory, as in its --state or the config's state)", d)
	}
	return genstate.Read(d)
}

// expected is the generation inject made last, which the live site
// should serve before anything is asked ("" without a record of it).
func expected(rec *genstate.Record) string {
	if rec == nil || len(rec.Generations) == 0 {
		return ""
	}
	return rec.Generations[0].ID
}

// requesters are the archives asked, as --requests says, and the one
// line said when there are no keys: how to get them and what they buy.
// Requests without keys are not sent for genstate.KeysQuiet after the
// archive refused them.
func (c *captureCmd) requesters(rec *genstate.Record, stderr io.Writer) ([]ondemand.Requester, error) {
	var creds spn.Credentials
	switch {
	case c.requests == requestsOff:
		return nil, nil
	case c.accessKeys != "":
		var err error
		if creds, err = readAccessKeys(c.accessKeys, stderr); err != nil {
			return nil, err
		}
	case c.requests == requestsKeyed:
		fmt.Fprintf(stderr, "lazarus: note: --requests keyed without Internet Archive keys: nothing is asked; %s\n", keysBuy)
		return nil, nil
	default:
		if rec != nil {
			if t, ok := rec.KeylessRefusedSince("wayback", time.Now()); ok {
				fmt.Fprintf(stderr, "lazarus: note: the Internet Archive refused requests without keys on %s, so none are sent before %s; %s\n",
					t.Format(time.DateOnly), t.Add(genstate.KeysQuiet).Format(time.DateOnly), keysBuy)
				return nil, nil
			}
		}
		fmt.Fprintf(stderr, "lazarus: note: no Internet Archive keys: asking without them, 4 a minute, confirmed by the archive's listing (it has refused programs without keys since 2025); %s\n", keysBuy)
	}
	o := spn.Options{Base: c.spnBase, Credentials: creds, MaxPending: c.pending, Contact: c.contact, PollStart: capturePollStart, PollMax: capturePollMax}
	if c.rate != "" {
		o.Rate, _ = spn.ParseLimit(c.rate) // checked by options
	}
	client, err := spn.New(o)
	if err != nil {
		return nil, fmt.Errorf("--spn: %w", err)
	}
	if limit, above := client.AboveCap(); above {
		how := "with keys"
		if !client.Keyed() {
			how = "without keys"
		}
		fmt.Fprintf(stderr, "lazarus: warning: --rate %s is above the %s Save Page Now allows %s: the archive answers the excess 429 (each waited out) and may block this address\n",
			client.Rate(), limit, how)
	}
	return []ondemand.Requester{client}, nil
}

// remember records in inject's state directory what the run learnt: the
// live site serving the generation, the requests, the last audit's
// confirmations, and a refusal of requests without keys or of the keys.
// It returns the generation's state as recorded (nil without a state
// directory, on a dry run, or when the record cannot be written, with a
// warning).
func (c *captureCmd) remember(rep *capture.Report, runErr error, stderr io.Writer) *genstate.Generation {
	dir := c.injectState()
	if dir == "" || rep == nil || c.dryRun || !isDir(dir) {
		return nil
	}
	var out *genstate.Generation
	err := genstate.Update(dir, func(r *genstate.Record) error {
		now := time.Now()
		if !rep.Live.IsZero() {
			r.ObserveLive(rep.Generation, rep.Time, rep.Live)
		}
		for _, q := range rep.Requests {
			r.ObserveRequests(rep.Generation, rep.Time, genstate.Request{Archive: q.Archive, Keyed: q.Keyed, First: q.First, Last: q.Last,
				Sent: q.Sent, Taken: q.Taken})
		}
		if s := rep.Status; s != nil && (s.Cause == nil || s.Cause.Kind != status.CauseSourcesFailed) {
			r.ObserveAudit(s, now)
		}
		switch {
		case errors.Is(runErr, spn.ErrKeysRequired):
			r.RefusedKeyless("wayback", now)
		case errors.Is(runErr, spn.ErrRefused):
			r.RefusedKey("wayback", now)
		}
		if g := r.Find(rep.Generation); g != nil {
			cp := *g
			out = &cp
		}
		return nil
	})
	if err != nil {
		fmt.Fprintf(stderr, "lazarus: warning: the archive state in %s was not recorded: %s\n", dir, printable(err.Error()))
		return nil
	}
	return out
}
