// Package spn is a client of the Internet Archive's Save Page Now 2 API
// (SPN2): it asks the Wayback Machine to capture a page now
// (POST {base}/save with url=… and "Authorization: LOW access:secret")
// and polls the capture job (GET {base}/save/status/{job_id}) until it
// succeeds or fails.
//
// The API's limits are honoured on the client side, before the server
// has to refuse: at most Options.Rate submissions in any window
// (12 a minute by default, the documented cap for logged-in users), at
// most Options.MaxPending jobs pending at once, Retry-After on 429 and
// 503 answers (up to Options.MaxWait for submissions, one answer's or
// all of one submission's together, PollMax for status
// polls, a job abandoned after JobTimeout whatever the server asks), and
// a pause when the server says the user's session limit is reached.
// Answers that end a run (the access key refused, the daily capture
// limit, crawling of the host paused, a wait beyond MaxWait asked) are
// errors callers branch on (ErrRefused, ErrDailyLimit, ErrHostPaused,
// ErrWaitTooLong). Plain http is refused but to loopback addresses: the
// secret would travel in clear.
//
// The access key and secret come from https://archive.org/account/s3.php;
// they are never printed: Credentials.String redacts the secret.
//
// Without keys (Options.Credentials zero) the client sends each URL as
// GET {base}/save/{url}, as tools did before the archive required a
// login (see anonymous.go): 4 a minute, one at a time, the capture read
// from the answer's headers, or the answer's job polled, or the request
// counted as accepted for the archive's listing to confirm. A refusal
// (401, 403, "You need to be logged in", or a 404 or repeated 429s before
// any request was taken) ends the run with ErrKeysRequired. A Client is
// an ondemand.Requester.
package spn
