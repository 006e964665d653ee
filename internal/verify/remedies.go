package verify

// CarrierFacts is what is known of a site whose pages cannot hold k
// blocks of every stripe: what keeps pages from carrying.
type CarrierFacts struct {
	Excluded int // pages excluded from archives (noindex, noarchive)
	Queries  int // links with a query string (archives seldom keep such pages)
}

// CarrierRemedies names what makes a backup fit the pages archives would
// keep, the changes that matter for the facts first: remove noindex when
// pages are excluded, pretty permalinks when links have query strings;
// then shrinking the backup by excluding what can be reinstalled, and
// linking more pages. The Caddy module's log and verify's hints say the
// same.
func CarrierRemedies(f CarrierFacts) []string {
	noindex := "remove noindex/noarchive from the pages (robots <meta> or X-Robots-Tag; in WordPress, Settings → Reading: untick \"Discourage search engines\")"
	pretty := "use pretty permalinks: links without query strings such as /?p=N, which archives seldom keep and the module does not place blocks on (in WordPress, Settings → Permalinks)"
	var out []string
	if f.Excluded > 0 {
		out = append(out, noindex)
	}
	if f.Queries > 0 {
		out = append(out, pretty)
	}
	out = append(out,
		"exclude what can be reinstalled from the backup (core themes and plugins, caches: exclude patterns), so it needs fewer pages",
		"link more pages from the site (an HTML sitemap page linked from the root lists every post)")
	if f.Excluded == 0 {
		out = append(out, noindex)
	}
	if f.Queries == 0 {
		out = append(out, pretty)
	}
	return out
}
