package caddymodule

import (
	"context"
	"errors"
	"fmt"

	"github.com/caddyserver/certmagic"
)

// maxStampBytes bounds the time stamps read from storage (built,
// published/ID, audit/safe/ID).
const maxStampBytes = 256

// errTooLarge means a value in storage is larger than what is read there.
var errTooLarge = errors.New("exceeds the limit")

// limitedLoader is a storage that tells a value's size before sending it
// (redisstorage.Storage): a value over the limit is not read at all.
type limitedLoader interface {
	LoadLimited(ctx context.Context, key string, limit int64) (value []byte, size int64, err error)
}

// loadLimited reads the value at key if it is at most limit bytes, else
// an error wrapping errTooLarge: whoever can write the storage cannot make
// the handler allocate more. A storage that is not a limitedLoader is
// asked for the value's size first (a value that grew between the two
// steps is read, then refused).
func loadLimited(ctx context.Context, st certmagic.Storage, key string, limit int64) ([]byte, error) {
	if l, ok := st.(limitedLoader); ok {
		v, size, err := l.LoadLimited(ctx, key, limit)
		if err != nil {
			return nil, err
		}
		if size > limit {
			return nil, tooLarge(key, size, limit)
		}
		return v, nil
	}
	if info, err := st.Stat(ctx, key); err == nil && info.IsTerminal && info.Size > limit {
		return nil, tooLarge(key, info.Size, limit)
	}
	v, err := st.Load(ctx, key)
	if err != nil {
		return nil, err
	}
	if int64(len(v)) > limit {
		return nil, tooLarge(key, int64(len(v)), limit)
	}
	return v, nil
}

func tooLarge(key string, size, limit int64) error {
	return fmt.Errorf("%s: %d bytes: %w of %d", key, size, errTooLarge, limit)
}
