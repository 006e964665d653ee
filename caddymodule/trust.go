package caddymodule

import (
	"errors"
	"fmt"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/siteurl"
)

// errForeign means a generation, or a block, read from storage is not
// the handler's own: signed by another key, of another site, or a block
// that is not the one its name says.
var errForeign = errors.New("not this handler's")

// trust is what a self-building handler checks what it reads from
// storage against before serving it: its own key and site. Anyone who can
// write the storage (a co-tenant of a shared Redis, another site given
// the same name) could otherwise make every instance serve their blocks.
// A bundle directory (inject --bundle) is the operator's own: no check.
type trust struct {
	v    *keys.Verifier
	site string
}

// newTrust returns the trust of a builder's key (server.key, or the
// passphrase) and site URL.
func newTrust(serverKey, passphrase []byte, site string) (*trust, error) {
	if len(serverKey) > 0 {
		s, err := keys.ParseServer(serverKey)
		if err != nil {
			return nil, err
		}
		return &trust{v: s.Verifier(), site: site}, nil
	}
	v, err := keys.PassphraseVerifier(passphrase)
	if err != nil {
		return nil, err
	}
	return &trust{v: v, site: site}, nil
}

// manifest checks a generation's manifest: signed by the key, naming the
// site.
func (t *trust) manifest(m *manifest.Signed) error {
	if err := t.v.Verify(m.KeyID, m.Salt, "manifest", m.Digest[:], m.Signature[:]); err != nil {
		return fmt.Errorf("%w: manifest: %w", errForeign, err)
	}
	if !siteurl.SameSiteURLs(m.Manifest.Site, t.site) {
		return fmt.Errorf("%w: manifest of the site %s, not %s", errForeign, m.Manifest.Site, t.site)
	}
	return nil
}

// block checks a block read from storage: the one ref names, of the
// segment version seg of the generation's manifest, signed by the key.
func (t *trust) block(raw []byte, ref manifest.BlockRef, seg manifest.Segment) error {
	b, err := block.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: block %s: %w", errForeign, ref, err)
	}
	if b.Name != ref.Segment || b.Stripe != ref.Stripe || b.Shard != ref.Shard || manifest.Digest(b.SegmentID) != seg.ID {
		return fmt.Errorf("%w: block %s holds %s/%d/%d of segment version %x", errForeign, ref, b.Name, b.Stripe, b.Shard, b.SegmentID[:8])
	}
	if err := t.v.Verify(b.KeyID, b.Salt, "block", b.Digest[:], b.Signature[:]); err != nil {
		return fmt.Errorf("%w: block %s: %w", errForeign, ref, err)
	}
	return nil
}
