package keys

import (
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"filippo.io/age"
)

// Server is the key installed on the web server: the owner's age recipient
// (which can encrypt but not decrypt) and the owner's signing seed.
type Server struct {
	recipient age.Recipient // *age.HybridRecipient or *age.X25519Recipient
	cipher    Cipher
	signer    *Signer
	created   time.Time
}

// ParseServer parses the text of a server key file (see [Server.Marshal]).
// The verify key is derived from the seed, never read from the file.
func ParseServer(data []byte) (*Server, error) {
	fields, err := parseKeyFile(data, serverKind)
	if err != nil {
		return nil, err
	}
	created, err := parseCreated(serverKind, fields)
	if err != nil {
		return nil, err
	}
	r, c, err := parseRecipient(fields[fieldRecipient])
	if err != nil {
		return nil, fmt.Errorf("%s: field %q: %w", serverKind.name, fieldRecipient, err)
	}
	seed, err := parseSeed(serverKind, fields[fieldSeed])
	if err != nil {
		return nil, err
	}
	signer, err := NewSigner(seed)
	if err != nil {
		return nil, err
	}
	return &Server{recipient: r, cipher: c, signer: signer, created: created}, nil
}

// parseRecipient parses a hybrid (age1pq1…) or X25519 (age1…) recipient,
// in either letter case.
func parseRecipient(s string) (age.Recipient, Cipher, error) {
	s = strings.ToLower(s)
	switch {
	case strings.HasPrefix(s, "age1pq1"):
		r, err := age.ParseHybridRecipient(s)
		return r, CipherHybrid, err
	case strings.HasPrefix(s, "age1"):
		r, err := age.ParseX25519Recipient(s)
		return r, CipherX25519, err
	case strings.HasPrefix(s, "age-secret-key-"):
		return nil, 0, fmt.Errorf("this is an age secret key, not a recipient; it must not be on the server")
	}
	return nil, 0, fmt.Errorf("not an age recipient (want age1pq1… or age1…)")
}

// Marshal returns the server key file text. Comment lines are
// informational; the fields are, in order: lazarus-server-key, created (if
// set), age-recipient, signing-seed.
func (s *Server) Marshal() []byte {
	var w keyFileWriter
	w.comment(
		"Lazarus server key. Install it on the web server (mode 0600); keep it private.",
		"It encrypts backups to the owner's recipient but cannot decrypt them.",
		"It signs generations as the owner: if it leaks, generate new keys.",
		"Cipher:     "+s.cipher.String(),
		"Key id:     "+FormatKeyID(s.signer.KeyID()),
		"Verify key: "+base64.StdEncoding.EncodeToString(s.signer.Public()),
	)
	w.header(serverKind, s.created)
	w.field(fieldRecipient, fmt.Sprint(s.recipient))
	w.field(fieldSeed, base64.StdEncoding.EncodeToString(s.signer.Seed()))
	return []byte(w.String())
}

// Sealer returns a Sealer that encrypts to the owner's recipient and signs
// with the owner's signing key.
func (s *Server) Sealer() *Sealer {
	return &Sealer{Cipher: s.cipher, Recipients: []age.Recipient{s.recipient}, Signer: s.signer}
}

// Verifier returns a Verifier that trusts only the owner's signing key.
func (s *Server) Verifier() *Verifier { return s.signer.Verifier() }

// Recipient returns the owner's age recipient.
func (s *Server) Recipient() age.Recipient { return s.recipient }

// Cipher returns CipherHybrid or CipherX25519.
func (s *Server) Cipher() Cipher { return s.cipher }

// Signer returns the signing key.
func (s *Server) Signer() *Signer { return s.signer }

// KeyID returns the key id of the signing key.
func (s *Server) KeyID() [KeyIDSize]byte { return s.signer.KeyID() }

// Created returns the creation time recorded in the key file, or the zero
// time if none was.
func (s *Server) Created() time.Time { return s.created }
