package redisstorage

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
)

// TLS configures TLS to Redis (redis-server's tls-port). Without it the
// password and every value (Caddy's certificates and ACME account keys,
// and the Lazarus handler's state) cross the network in clear.
type TLS struct {
	// ServerName is the name the server's certificate must carry;
	// defaults to the host of the address.
	ServerName string `json:"server_name,omitempty"`
	// CAFile is a PEM file of the certificates the server's certificate
	// must chain to (a private CA's); defaults to the system's roots.
	CAFile string `json:"ca_file,omitempty"`
	// CertFile and KeyFile are the PEM client certificate and its key,
	// for a server that requires one (tls-auth-clients yes); give both or
	// neither. Default none.
	CertFile string `json:"cert_file,omitempty"`
	KeyFile  string `json:"key_file,omitempty"`
}

// validate checks the settings without reading the files.
func (t *TLS) validate() error {
	if (t.CertFile == "") != (t.KeyFile == "") {
		return errors.New("redis tls: give both cert_file and key_file, or neither")
	}
	return nil
}

// config reads the files and returns the client configuration for a
// server at address (host:port): at least TLS 1.2, the server's
// certificate checked against CAFile (or the system's roots) and
// ServerName (or the address's host).
func (t *TLS) config(address string) (*tls.Config, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if c.ServerName == "" {
		c.ServerName, _, _ = net.SplitHostPort(address)
	}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("redis tls ca_file: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("redis tls ca_file %s: no PEM certificate in it", t.CAFile)
		}
	}
	if t.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("redis tls cert_file %s and key_file %s: %w", t.CertFile, t.KeyFile, err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}

// loopback reports whether address (host:port) names this machine: a
// loopback IP or "localhost". Any other name may resolve elsewhere.
func loopback(address string) bool {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
