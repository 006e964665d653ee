package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// siteKeyFlags holds the flags that name the site and its key, as
// verify, status, capture and recover take them: --url, --key and
// --passphrase-file.
type siteKeyFlags struct {
	site, key, passFile string
}

// bind declares --url and --key (with the command's help texts) and
// --passphrase-file on fs, each defaulting to the value so far (a config
// file's, for capture).
func (f *siteKeyFlags) bind(fs *flag.FlagSet, urlHelp, keyHelp string) {
	fs.StringVar(&f.site, "url", f.site, urlHelp)
	fs.StringVar(&f.key, "key", f.key, keyHelp)
	fs.StringVar(&f.passFile, "passphrase-file", f.passFile, "`FILE` holding the passphrase (passphrase-mode sites)")
}

// check checks --url and that exactly one of --key and --passphrase-file
// is given; cmd names the command in the messages.
func (f *siteKeyFlags) check(cmd string) error {
	if err := checkSiteURL(cmd, f.site); err != nil {
		return err
	}
	if (f.key == "") == (f.passFile == "") {
		return fmt.Errorf("%s needs --key server.key (or owner.key), or --passphrase-file FILE", cmd)
	}
	return nil
}

// load reads --passphrase-file, or else --key, which may be server.key or
// owner.key (see loadAnyKey). Warnings go to stderr.
func (f *siteKeyFlags) load(stderr io.Writer) (server, owner, pass []byte, err error) {
	if f.passFile != "" {
		pass, err = readPassphrase(f.passFile, stderr)
		return nil, nil, pass, err
	}
	server, owner, err = loadAnyKey(f.key, stderr)
	return server, owner, nil, err
}

// loadOwner reads --key, which must be owner.key, and --passphrase-file,
// each if given (recover: either may be missing). Warnings go to stderr.
func (f *siteKeyFlags) loadOwner(stderr io.Writer) (owner, pass []byte, err error) {
	if f.key != "" {
		o, warn, err := keys.LoadOwner(f.key)
		if err != nil {
			return nil, nil, fmt.Errorf("--key: %w", err)
		}
		warnf(stderr, warn)
		owner = o.Marshal()
	}
	if f.passFile != "" {
		if pass, err = readPassphrase(f.passFile, stderr); err != nil {
			return nil, nil, err
		}
	}
	return owner, pass, nil
}
