package injector

import (
	"errors"

	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// sealer returns how this run encrypts and signs. Passphrase mode uses the
// site's salt from the state, choosing one on the first run.
func (o *Options) sealer(st *state) (*keys.Sealer, error) {
	switch {
	case o.Public && len(o.ServerKey) > 0:
		srv, err := keys.ParseServer(o.ServerKey)
		if err != nil {
			return nil, err
		}
		return keys.PublicSealer(srv.Signer()), nil
	case o.Public:
		return keys.PublicSealer(nil), nil
	case len(o.Passphrase) > 0:
		if len(st.Salt) != keys.SaltSize {
			salt := keys.NewSalt()
			st.Salt = salt[:]
		}
		return keys.PassphraseSealer(o.Passphrase, [keys.SaltSize]byte(st.Salt), &keys.PassphraseOptions{WorkFactor: o.PassphraseWorkFactor})
	case len(o.ServerKey) > 0:
		srv, err := keys.ParseServer(o.ServerKey)
		if err != nil {
			return nil, err
		}
		return srv.Sealer(), nil
	}
	return nil, errors.New("no server key, passphrase or public mode")
}
