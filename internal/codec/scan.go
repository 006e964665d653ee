package codec

import (
	"fmt"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// Scanning a page is split in two. Scan does the expensive, pure part:
// finding the Lazarus comments, decoding their base64, parsing and
// hashing blocks and manifests and checking their signatures. AddScanned
// does the rest, which depends on what came before: passphrase-salt
// triage, grouping blocks into segments, rebuilding stripes. Pages can be
// scanned on any number of goroutines; handing the results to AddScanned
// in the order the pages were read gives the same reports and the same
// assembler state as AddPage on each page in that order.
//
// A Scanned stays small whatever the page: a comment that can only be a
// problem (damaged, failing to parse, or whose signature failed) keeps
// its error alone, and only while fewer than MaxPageProblems such
// comments came before it; past that, AddScanned's report cannot list
// it anyway, so it is only counted.

// Scanned is what Scan found on one page, ready for AddScanned. It holds
// the decoded comments, not the page.
type Scanned struct {
	// From is where the page was found.
	From    Origin
	items   []scannedItem
	by      *Assembler // the assembler that scanned it
	checked bool       // signatures were checked (not in passphrase mode)
	certain int        // items that can only be problems
	extra   PageReport // the counts of such problems past MaxPageProblems
}

// scannedItem is one Lazarus comment of a page: a block or manifest to
// add, or the error it can only be reported with.
type scannedItem struct {
	offset   int
	payload  []byte           // decoded body, for parking
	block    *block.Block     // a parsed block, or
	manifest *manifest.Signed // a parsed manifest, or neither and
	err      error            // why the comment is refused
	rejected bool             // err counts as Rejected (not a damaged comment)
}

// Scan finds, decodes, parses and (unless signatures can only be checked
// in page order, as in passphrase mode) signature-checks every Lazarus
// comment of page, found at from. It changes nothing in the assembler
// and is safe to call from any number of goroutines at once, also while
// AddScanned and AddPage run. The result refers to none of page's bytes
// and is for this assembler's AddScanned only.
func (a *Assembler) Scan(page []byte, from Origin) *Scanned {
	s := &Scanned{From: from, by: a, checked: a.salts == nil}
	for f := range htmlblock.All(page) {
		it := a.scanItem(f, s.checked)
		if it.err == nil {
			s.items = append(s.items, it)
			continue
		}
		if s.certain < MaxPageProblems {
			s.certain++
			s.items = append(s.items, scannedItem{offset: it.offset, err: it.err, rejected: it.rejected})
			continue
		}
		if it.rejected {
			s.extra.Rejected++
		}
		s.extra.classify(it.err)
		s.extra.Omitted++
	}
	return s
}

// scanItem decodes, parses and, if check, verifies one comment.
func (a *Assembler) scanItem(f htmlblock.Found, check bool) scannedItem {
	it := scannedItem{offset: f.Offset, payload: f.Payload, err: f.Err}
	if f.Err != nil {
		return it
	}
	switch f.Kind {
	case htmlblock.KindBlock:
		it.block, it.err = block.Parse(f.Payload)
		if it.err == nil && check {
			it.err = a.verifyBlock(it.block)
		}
	case htmlblock.KindManifest:
		it.manifest, it.err = manifest.Parse(f.Payload)
		if it.err == nil && check {
			it.err = a.verifyManifest(it.manifest)
		}
	default:
		it.err = fmt.Errorf("unexpected comment kind %q", f.Kind)
		return it
	}
	it.rejected = it.err != nil
	return it
}

// AddScanned adds what Scan found on a page, as AddPage would have added
// the page itself, and reports what the page contributed. Results must
// be added in the order their pages were read for reports and passphrase
// salt triage to be those of AddPage on each page in that order. s must
// come from this assembler's Scan: AddScanned panics otherwise.
func (a *Assembler) AddScanned(s *Scanned) PageReport {
	if s.by != a {
		panic("codec: AddScanned given a page another assembler scanned")
	}
	rep := PageReport{From: s.From}
	for i := range s.items {
		it := &s.items[i]
		err := it.err
		if err == nil {
			err = a.addScannedItem(it, s.checked, &rep)
		} else if it.rejected {
			rep.Rejected++
		}
		if err != nil {
			rep.problem(fmt.Errorf("comment at byte %d: %w", it.offset, err))
		}
	}
	// MaxPageProblems problems came before these: rep.Problems is full.
	rep.Rejected += s.extra.Rejected
	rep.Foreign += s.extra.Foreign
	rep.Unsigned += s.extra.Unsigned
	rep.Omitted += s.extra.Omitted
	rep.Released = a.salts.afterPage(a)
	return rep
}

// addScannedItem adds a parsed block or manifest; checked says Scan
// verified its signature.
func (a *Assembler) addScannedItem(it *scannedItem, checked bool, rep *PageReport) error {
	if m := it.manifest; m != nil {
		if a.salts.park(m.KeyID, m.Salt, itemManifest, it.payload, rep.From) {
			rep.Parked++
			return nil
		}
		if !checked {
			if err := a.verifyManifest(m); err != nil {
				rep.Rejected++
				return err
			}
		}
		rep.Manifests = append(rep.Manifests, m)
		return nil
	}
	b := it.block
	if a.salts.park(b.KeyID, b.Salt, itemBlock, it.payload, rep.From) {
		rep.Parked++
		return nil
	}
	if !checked {
		if err := a.verifyBlock(b); err != nil {
			rep.Rejected++
			return err
		}
	}
	o, err := a.store(b, rep.From, true) // decoded by Scan for this page alone
	rep.count(o)
	return err
}
