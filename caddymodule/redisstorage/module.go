package redisstorage

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
)

func init() {
	caddy.RegisterModule(Module{})
}

// redisLog sends go-redis's own messages (a pool that cannot dial) to
// Caddy's log (see zapPrintf) instead of standard error; go-redis has one
// logger per process.
var redisLog sync.Once

// zapPrintf adapts a zap logger to go-redis's logger, at debug level:
// while Redis is down go-redis reports a failed dial for every operation,
// and the Lazarus handler already says once that storage is unavailable.
type zapPrintf struct{ l *zap.Logger }

func (z zapPrintf) Printf(_ context.Context, format string, v ...any) {
	z.l.Debug(fmt.Sprintf(format, v...))
}

// Module is the Caddy storage module caddy.storage.lazarus_redis: Caddy's
// storage (certificates, and the Lazarus handler's generations, placement
// and locks) in one Redis database that several Caddy instances share.
type Module struct {
	// Address is the Redis server's host:port; defaults to
	// 127.0.0.1:6379.
	Address string `json:"address,omitempty"`
	// Username is the Redis ACL user; defaults to none (the default user).
	Username string `json:"username,omitempty"`
	// PasswordFile is a file holding the Redis password (one line; the
	// final newline is ignored); defaults to none.
	PasswordFile string `json:"password_file,omitempty"`
	// DB is the Redis database number; defaults to 0.
	DB int `json:"db,omitempty"`
	// KeyPrefix starts every Redis key; defaults to "caddy". Instances
	// that share state need the same address, db and key_prefix.
	KeyPrefix string `json:"key_prefix,omitempty"`
	// LockTTL is how long a lock outlives its holder's last refresh (a
	// holder that died frees it after this long); defaults to 10s.
	LockTTL caddy.Duration `json:"lock_ttl,omitempty"`
	// DialTimeout bounds connecting to Redis; defaults to 5s.
	DialTimeout caddy.Duration `json:"dial_timeout,omitempty"`
	// TLS, when set (even empty: {}), connects with TLS; defaults to
	// plain text, with a warning in Caddy's log when Address is not a
	// loopback one.
	TLS *TLS `json:"tls,omitempty"`

	client *redis.Client
	st     *Storage
}

// CaddyModule returns the Caddy module information.
func (Module) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.storage.lazarus_redis",
		New: func() caddy.Module { return new(Module) },
	}
}

// Provision applies the defaults, reads the password file and makes the
// client (which connects when first used: no network here).
func (m *Module) Provision(ctx caddy.Context) error {
	if m.Address == "" {
		m.Address = "127.0.0.1:6379"
	}
	if m.KeyPrefix == "" {
		m.KeyPrefix = DefaultKeyPrefix
	}
	if m.LockTTL == 0 {
		m.LockTTL = caddy.Duration(DefaultLockTTL)
	}
	if m.DialTimeout == 0 {
		m.DialTimeout = caddy.Duration(DefaultDialTimeout)
	}
	if err := m.Validate(); err != nil {
		return err
	}
	password, err := readPassword(m.PasswordFile)
	if err != nil {
		return err
	}
	var tlsConfig *tls.Config
	if m.TLS != nil {
		if tlsConfig, err = m.TLS.config(m.Address); err != nil {
			return err
		}
	} else if !loopback(m.Address) {
		ctx.Logger().Warn("redis storage at a non-loopback address without tls: the password and every value "+
			"(certificates, ACME account and private keys, the lazarus state) cross the network in clear; set tls",
			zap.String("address", m.Address))
	}
	redisLog.Do(func() { redis.SetLogger(zapPrintf{caddy.Log().Named("storage.lazarus_redis")}) })
	m.client = redis.NewClient(&redis.Options{
		Addr:        m.Address,
		Username:    m.Username,
		Password:    password,
		DB:          m.DB,
		DialTimeout: time.Duration(m.DialTimeout),
		TLSConfig:   tlsConfig,
		// fail fast while Redis is down: pages are served from memory
		DialerRetries: 2,
	})
	m.st = New(m.client, Options{Prefix: m.KeyPrefix, LockTTL: time.Duration(m.LockTTL), Logger: ctx.Logger()})
	return nil
}

// readPassword reads a password file ("" is no password).
func readPassword(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("redis password_file: %w", err)
	}
	p := strings.TrimRight(string(b), "\r\n")
	if p == "" {
		return "", fmt.Errorf("redis password_file %s is empty", path)
	}
	return p, nil
}

// Validate checks the settings (after Provision's defaults).
func (m *Module) Validate() error {
	if _, _, err := net.SplitHostPort(m.Address); err != nil {
		return fmt.Errorf("redis address %q: want host:port: %w", m.Address, err)
	}
	switch {
	case m.DB < 0:
		return fmt.Errorf("redis db %d: must not be negative", m.DB)
	case m.LockTTL < 0 || (m.LockTTL > 0 && time.Duration(m.LockTTL) < MinLockTTL):
		return fmt.Errorf("redis lock_ttl %v: must be at least %v", time.Duration(m.LockTTL), MinLockTTL)
	case m.DialTimeout < 0:
		return fmt.Errorf("redis dial_timeout %v: must not be negative", time.Duration(m.DialTimeout))
	case strings.ContainsAny(m.KeyPrefix, " \t\r\n:"):
		// ":" separates the prefix from the storage's own key names, so
		// one prefix ("a") must not be able to name another's keys ("a:v").
		return fmt.Errorf("redis key_prefix %q: no white space or ':'", m.KeyPrefix)
	case m.TLS != nil:
		return m.TLS.validate()
	}
	return nil
}

// CertMagicStorage returns the storage; Provision must have run.
func (m *Module) CertMagicStorage() (certmagic.Storage, error) {
	if m.st == nil {
		return nil, errors.New("redis storage used before it was provisioned")
	}
	return m.st, nil
}

// Cleanup closes the client when the configuration is unloaded.
func (m *Module) Cleanup() error {
	if m.client != nil {
		return m.client.Close()
	}
	return nil
}

// String names the storage in Caddy's logs.
func (s *Storage) String() string { return "redis storage " + s.prefix }

// Interface guards
var (
	_ caddy.Provisioner      = (*Module)(nil)
	_ caddy.Validator        = (*Module)(nil)
	_ caddy.CleanerUpper     = (*Module)(nil)
	_ caddy.StorageConverter = (*Module)(nil)
	_ certmagic.Storage      = (*Storage)(nil)
	_ certmagic.TryLocker    = (*Storage)(nil)
)
