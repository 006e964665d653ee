package main

import (
	"fmt"
	"net/url"
)

// checkSiteURL checks a --url value: the site's absolute http(s) URL.
// cmd names the command for the message when the flag is missing.
func checkSiteURL(cmd, v string) error {
	if v == "" {
		return fmt.Errorf("%s needs --url: the site's absolute URL, like https://example.org/", cmd)
	}
	if u, err := url.Parse(v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--url %q: give the site's absolute URL, like https://example.org/", v)
	}
	return nil
}
