package caddymodule

import (
	"bytes"
	"context"
	"errors"
	"io/fs"

	"github.com/caddyserver/certmagic"
)

// swapper is a storage that replaces a value only while it holds another,
// in one step no other writer can come between (redisstorage.Storage).
type swapper interface {
	CompareAndSwap(ctx context.Context, key string, old, value []byte) (bool, error)
}

// compareAndSwap puts value at key if key holds old (nil: holds nothing)
// and reports whether it did. On a storage that is a swapper this is one
// step; on others (file storage) it reads, compares and writes, so a
// writer may still come between the read and the write.
func compareAndSwap(ctx context.Context, st certmagic.Storage, key string, old, value []byte) (bool, error) {
	if s, ok := st.(swapper); ok {
		return s.CompareAndSwap(ctx, key, old, value)
	}
	v, err := loadLimited(ctx, st, key, int64(len(old)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if old != nil {
			return false, nil
		}
	case errors.Is(err, errTooLarge):
		return false, nil
	case err != nil:
		return false, err
	case old == nil || !bytes.Equal(v, old):
		return false, nil
	}
	return true, st.Store(ctx, key, value)
}
