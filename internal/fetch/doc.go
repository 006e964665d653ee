// Package fetch is the polite HTTP client every archive source uses: per
// host rate limits and concurrency, Retry-After honoured, exponential
// backoff with jitter on 429, 5xx and connection errors, hosts that keep
// failing put to sleep for a while, an honest User-Agent, timeouts and a
// cap on response sizes. Archives ban clients that hammer them (the
// Internet Archive's CDX API allows about 24 requests a minute), so the
// limits are conservative by default and never exceeded, retries included.
package fetch
