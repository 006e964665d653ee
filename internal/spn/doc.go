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
// 503 answers (up to Options.MaxWait for submissions, PollMax for status
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
package spn
