package main

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// loadAnyKey reads a --key that may be server.key or owner.key (verify,
// status: both check signatures with the public half; owner.key can do
// more). keys reads a bounded regular file (--key may name anything) and
// the first field tells the two apart, comment lines or not (a key
// retyped from paper has none). Exactly one of the results is set.
func loadAnyKey(path string, stderr io.Writer) (server, owner []byte, err error) {
	s, warn, err := keys.LoadServer(path)
	if err == nil {
		warnf(stderr, warn)
		return s.Marshal(), nil, nil
	}
	o, warn, oerr := keys.LoadOwner(path)
	if oerr == nil {
		warnf(stderr, warn)
		return nil, o.Marshal(), nil
	}
	if isOwnerKeyFile(path) {
		err = oerr // a damaged owner key: say what is wrong with it
	}
	return nil, nil, fmt.Errorf("--key: %w", err)
}

// isOwnerKeyFile reports whether a key file says it is an owner key (to
// pick which error to show for a damaged one).
func isOwnerKeyFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte("\nlazarus-owner-key:"))
}
