package injector

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// sealListed encrypts, for the state, the listing entries of a segment's
// volatile dumps (files whose path volatileDumps names), AES-256-GCM
// under a key derived from the state key. A later run that keeps the
// segment by its substance lists what it holds, not what that run
// dumped: equal substance means every other entry is the run's own (see
// segmentSubstance), so only these are kept, and the state shows no
// plain hash of any file.
func (k stateKey) sealListed(files []manifest.File, volatileDumps map[string][]byte) ([]byte, error) {
	var dumps []manifest.File
	for _, f := range files {
		if _, ok := volatileDumps[f.Path]; ok {
			dumps = append(dumps, f)
		}
	}
	aead, err := k.listedAEAD()
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(dumps)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(raw)+aead.Overhead())
	rand.Read(nonce)
	return aead.Seal(nonce, nonce, raw, nil), nil
}

// openListed returns files, the listing entries a run packed for a
// segment of the same substance as the one sealed, with the entries
// sealListed kept in place of the run's own.
func (k stateKey) openListed(sealed []byte, files []manifest.File) ([]manifest.File, error) {
	aead, err := k.listedAEAD()
	if err != nil {
		return nil, err
	}
	if len(sealed) < aead.NonceSize() {
		return nil, errors.New("sealed listing entries too short")
	}
	raw, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], nil)
	if err != nil {
		return nil, err
	}
	var kept []manifest.File
	if err := json.Unmarshal(raw, &kept); err != nil {
		return nil, err
	}
	out := slices.Clone(files)
	for _, f := range kept {
		i := slices.IndexFunc(out, func(g manifest.File) bool { return g.Path == f.Path })
		if i < 0 {
			return nil, fmt.Errorf("sealed listing entry %q is not in the segment", f.Path)
		}
		out[i] = f
	}
	return out, nil
}

func (k stateKey) listedAEAD() (cipher.AEAD, error) {
	block, err := aes.NewCipher(k.sum(labelListed, nil))
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
