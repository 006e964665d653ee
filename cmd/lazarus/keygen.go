package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/keys"
)

const keygenUsage = `Usage: lazarus keygen -o DIR [--classic]

Writes a new key pair, mode 0600, never overwriting: owner.key (keep it OFFLINE: it
decrypts and verifies the backups) and server.key (for the server: encrypts and signs).
Exit codes: 0 written, 1 error (e.g. a key already exists), 2 usage error.

Examples:
  # post-quantum hybrid keys (the default)
  lazarus keygen -o ~/lazarus-keys
  # then copy only server.key to the server
  scp ~/lazarus-keys/server.key example.org:/etc/lazarus/server.key

  # classic X25519 age keys
  lazarus keygen -o ~/lazarus-keys --classic

Flags:
`

func runKeygen(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lazarus keygen", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), keygenUsage)
		fs.PrintDefaults()
	}
	dir := fs.String("o", "", "`DIR` to write owner.key and server.key into (required)")
	classic := fs.Bool("classic", false, "use a classic X25519 age key instead of the post-quantum hybrid default")
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if *dir == "" {
		errorf(stderr, "keygen needs -o DIR")
		return exitUsage
	}
	owner, server, err := keys.WriteNewPair(*dir, *classic, time.Now())
	if err != nil {
		errorf(stderr, "%v", err)
		if errors.Is(err, os.ErrExist) {
			hintf(stderr, "keygen never overwrites keys; choose another directory or move the old keys away first")
		}
		return exitError
	}
	fmt.Fprintf(stdout, `Wrote two keys (mode 0600):

  %s
      Keep this OFFLINE: a password manager, an encrypted USB stick, and a paper
      copy in a safe place. It is the only thing that can decrypt and verify your
      backups; without it, recovery is impossible. Never put it on the server.

  %s
      Copy this to the server (for 'lazarus inject --key' or the Caddy module's
      'key' option). It encrypts and signs new backups but cannot decrypt them.
`, owner, server)
	return exitOK
}
