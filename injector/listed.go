package injector

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"errors"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// sealListed encrypts a segment's listing entries for the state
// (AES-256-GCM under a key derived from the state key): a later run that
// keeps the segment by its substance lists what it holds, not what that
// run dumped, and the state shows no plain hash of any file.
func (k stateKey) sealListed(files []manifest.File) ([]byte, error) {
	aead, err := k.listedAEAD()
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(files)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(raw)+aead.Overhead())
	rand.Read(nonce)
	return aead.Seal(nonce, nonce, raw, nil), nil
}

// openListed decrypts what sealListed made.
func (k stateKey) openListed(sealed []byte) ([]manifest.File, error) {
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
	var files []manifest.File
	if err := json.Unmarshal(raw, &files); err != nil {
		return nil, err
	}
	return files, nil
}

func (k stateKey) listedAEAD() (cipher.AEAD, error) {
	block, err := aes.NewCipher(k.sum(labelListed, nil))
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
