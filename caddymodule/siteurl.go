package caddymodule

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// blockSiteURL is the default site_url of a lazarus directive: the URL of
// the address of the site block it is in (see siteURL), or why there is
// none.
func blockSiteURL(h httpcaddyfile.Helper) (string, error) {
	if h.IsNamedRoute() {
		return "", errors.New("a named route has no site address")
	}
	keys, ok := siteKeys(h)
	if !ok {
		return "", errors.New("this Caddy does not show the directive its site address")
	}
	httpPort := caddyhttp.DefaultHTTPPort
	if p, ok := h.Option("http_port").(int); ok {
		httpPort = p
	}
	return siteURL(keys, httpPort)
}

// siteKeys returns the addresses of the site block h parses. Caddy's Helper
// keeps its server block unexported and has no accessor for them (v2.11.9),
// so they are read with reflect; ok is false when a Caddy upgrade changed
// the field, and the Caddyfile must then give site_url
// (TestCaddyfileSiteURL notices).
func siteKeys(h httpcaddyfile.Helper) (keys []string, ok bool) {
	block := reflect.ValueOf(h).FieldByName("parentBlock")
	if !block.IsValid() || block.Type() != reflect.TypeFor[caddyfile.ServerBlock]() {
		return nil, false
	}
	tokens := block.FieldByName("Keys")
	for i := range tokens.Len() {
		keys = append(keys, tokens.Index(i).FieldByName("Text").String())
	}
	return keys, true
}

// siteURL is the URL of a site block whose keys name exactly one host,
// without wildcard, placeholder or path: the address's scheme, else http
// for port 80 (or httpPort, Caddy's http_port) and https for any other
// port, as Caddy serves it; the port unless it is the scheme's default.
func siteURL(keys []string, httpPort int) (string, error) {
	switch len(keys) {
	case 0:
		return "", errors.New("the site block has no address")
	case 1:
	default:
		return "", fmt.Errorf("the site block names %d addresses (%s), not one host", len(keys), strings.Join(keys, ", "))
	}
	addr, err := httpcaddyfile.ParseAddress(keys[0])
	if err != nil {
		return "", fmt.Errorf("site address %q: %v", keys[0], err)
	}
	host := strings.ToLower(addr.Host)
	switch {
	case host == "":
		return "", fmt.Errorf("the site address %q names no host", keys[0])
	case strings.Contains(host, "*"):
		return "", fmt.Errorf("the site address %q is a wildcard", keys[0])
	case strings.ContainsAny(host, "{}"):
		return "", fmt.Errorf("the site address %q holds a placeholder", keys[0])
	case addr.Path != "":
		return "", fmt.Errorf("the site address %q has a path", keys[0])
	}
	scheme := addr.Scheme
	switch scheme {
	case "http", "https":
	case "":
		scheme = "https"
		if addr.Port == "80" || addr.Port == strconv.Itoa(httpPort) {
			scheme = "http"
		}
	default:
		return "", fmt.Errorf("the site address %q has the scheme %q, not http or https", keys[0], scheme)
	}
	hostport := host
	if addr.Port != "" && !(scheme == "http" && addr.Port == "80") && !(scheme == "https" && addr.Port == "443") {
		hostport = net.JoinHostPort(host, addr.Port)
	} else if strings.Contains(host, ":") {
		hostport = "[" + host + "]" // IPv6
	}
	return (&url.URL{Scheme: scheme, Host: hostport, Path: "/"}).String(), nil
}
