// Package siteurl says which URLs name a site and which name one of its
// pages: whether a manifest's site URL is the site being recovered or
// audited (host spellings, default ports, http and https alike), where a
// carrier a manifest names is on the site asked for, and the canonical
// key of a page under its URL spellings ("/index.html" is "/").
// Recovery, status and verify all judge URLs through it.
package siteurl
