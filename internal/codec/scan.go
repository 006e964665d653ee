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

// Scanned is what Scan found on one page, ready for AddScanned. It holds
// the decoded comments, not the page.
type Scanned struct {
	// From is where the page was found.
	From  Origin
	items []scannedItem
	by    *Assembler // whose keys checked the signatures, nil if none were checked
}

// scannedItem is one Lazarus comment of a page, decoded and parsed.
type scannedItem struct {
	offset  int
	kind    htmlblock.Kind
	err     error  // the comment is damaged (the scanner's error)
	payload []byte // decoded body

	block    *block.Block     // a parsed block, or
	manifest *manifest.Signed // a parsed manifest; nil if parseErr
	parseErr error
	// checked says verifyErr holds the signature check's result.
	checked   bool
	verifyErr error
}

// Scan finds, decodes, parses and (unless signatures can only be checked
// in page order, as in passphrase mode) signature-checks every Lazarus
// comment of page, found at from. It changes nothing in the assembler
// and is safe to call from any number of goroutines at once, also while
// AddScanned and AddPage run. The result refers to none of page's bytes.
func (a *Assembler) Scan(page []byte, from Origin) *Scanned {
	s := &Scanned{From: from}
	if a.salts == nil {
		s.by = a
	}
	for f := range htmlblock.All(page) {
		it := scannedItem{offset: f.Offset, kind: f.Kind, err: f.Err, payload: f.Payload}
		if f.Err == nil {
			a.parse(&it, s.by != nil)
		}
		s.items = append(s.items, it)
	}
	return s
}

// parse parses an intact comment's payload and, if check, verifies its
// signature.
func (a *Assembler) parse(it *scannedItem, check bool) {
	switch it.kind {
	case htmlblock.KindBlock:
		it.block, it.parseErr = block.Parse(it.payload)
		if it.parseErr == nil && check {
			it.checked, it.verifyErr = true, a.verifyBlock(it.block)
		}
	case htmlblock.KindManifest:
		it.manifest, it.parseErr = manifest.Parse(it.payload)
		if it.parseErr == nil && check {
			it.checked, it.verifyErr = true, a.verifyManifest(it.manifest)
		}
	}
}

// AddScanned adds what Scan found on a page, as AddPage would have added
// the page itself, and reports what the page contributed. Results must
// be added in the order their pages were read for reports and passphrase
// salt triage to be those of AddPage on each page in that order.
func (a *Assembler) AddScanned(s *Scanned) PageReport {
	rep := PageReport{From: s.From}
	for i := range s.items {
		it := &s.items[i]
		err := it.err
		if err == nil {
			err = a.addItemScanned(it, s.by == a, &rep)
		}
		if err != nil {
			rep.problem(fmt.Errorf("comment at byte %d: %w", it.offset, err))
		}
	}
	rep.Released = a.salts.afterPage(a)
	return rep
}

// addItemScanned adds one intact comment; checked says a signature check
// made by Scan with this assembler's keys may be used.
func (a *Assembler) addItemScanned(it *scannedItem, checked bool, rep *PageReport) error {
	switch it.kind {
	case htmlblock.KindManifest:
		if m := it.manifest; m != nil && a.salts.park(m.KeyID, m.Salt, itemManifest, it.payload, rep.From) {
			rep.Parked++
			return nil
		}
		if it.parseErr != nil {
			rep.Rejected++
			return it.parseErr
		}
		err := it.verifyErr
		if !checked || !it.checked {
			err = a.verifyManifest(it.manifest)
		}
		if err != nil {
			rep.Rejected++
			return err
		}
		rep.Manifests = append(rep.Manifests, it.manifest)
		return nil
	case htmlblock.KindBlock:
		o, err := a.addBlockScanned(it, checked, rep.From)
		rep.count(o)
		return err
	}
	return fmt.Errorf("unexpected comment kind %q", it.kind)
}

// addBlockScanned is Add for a block Scan parsed (and maybe checked).
func (a *Assembler) addBlockScanned(it *scannedItem, checked bool, from Origin) (Outcome, error) {
	if it.parseErr != nil {
		return Rejected, it.parseErr
	}
	b := it.block
	if a.salts.park(b.KeyID, b.Salt, itemBlock, it.payload, from) {
		return Parked, nil
	}
	err := it.verifyErr
	if !checked || !it.checked {
		err = a.verifyBlock(b)
	}
	if err != nil {
		return Rejected, err
	}
	return a.store(b, from)
}
