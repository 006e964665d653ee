package archive

import (
	"context"
	"fmt"
	"net/http"
)

// DefaultMaxTimeMapPages bounds the TimeMap pages one listing follows.
const DefaultMaxTimeMapPages = 100

// TimeMapOptions tunes ListTimeMap. The zero value is ready to use.
type TimeMapOptions struct {
	// Source names the captures' source; defaults to "memento".
	Source string
	// MaxPages bounds the pages fetched; defaults to DefaultMaxTimeMapPages.
	MaxPages int
	// MaxBytes bounds one answer; defaults to DefaultMaxBytes.
	MaxBytes int64
}

// ListTimeMap fetches the TimeMap at timemapURL and every further page it
// links with rel="timemap" (breadth first, each URL at most once, at most
// MaxPages pages), and calls fn for each memento. A 404 answer counts as a
// page without mementos (aggregators answer 404 for unknown URLs); other
// non-200 answers are *HTTPError. It stops at fn's first error and returns
// it; when more pages remain after MaxPages it returns ErrPageLimit.
func ListTimeMap(ctx context.Context, doer Doer, timemapURL string, opts TimeMapOptions, fn func(Capture) error) error {
	if opts.MaxPages < 0 || opts.MaxBytes < 0 {
		return fmt.Errorf("archive: negative timemap page or byte bound")
	}
	if opts.Source == "" {
		opts.Source = "memento"
	}
	if opts.MaxPages == 0 {
		opts.MaxPages = DefaultMaxTimeMapPages
	}
	queue := []string{timemapURL}
	seen := map[string]bool{timemapURL: true}
	for fetched := 0; len(queue) > 0; fetched++ {
		if fetched >= opts.MaxPages {
			return fmt.Errorf("%w: %d timemap pages from %s", ErrPageLimit, opts.MaxPages, timemapURL)
		}
		u := queue[0]
		queue = queue[1:]
		tm, err := fetchTimeMap(ctx, doer, u, opts.MaxBytes)
		if err != nil {
			return err
		}
		for _, c := range tm.Mementos {
			c.Source = opts.Source
			if err := fn(c); err != nil {
				return err
			}
		}
		for _, p := range tm.Pages {
			if p != "" && !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return nil
}

// fetchTimeMap fetches and parses one TimeMap page; 404 is empty.
func fetchTimeMap(ctx context.Context, doer Doer, u string, maxBytes int64) (*TimeMap, error) {
	body, status, err := get(ctx, doer, u, maxBytes, http.StatusNotFound)
	if err != nil {
		return nil, err
	}
	if status == http.StatusNotFound {
		return &TimeMap{}, nil
	}
	tm, err := ParseTimeMap(body, u)
	if err != nil {
		return nil, fmt.Errorf("archive: timemap %s: %w", u, err)
	}
	return tm, nil
}
