package redistest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TLSFiles are the PEM files of a TLS server StartTLS started: a
// throwaway CA, the server's certificate (for localhost and 127.0.0.1)
// and a client certificate, all signed by the CA.
type TLSFiles struct {
	CA         string
	ServerCert string
	ServerKey  string
	ClientCert string
	ClientKey  string
	// ClientAuth reports that the server requires a client certificate.
	ClientAuth bool
}

// StartTLS runs redis-server accepting TLS connections only (no plain
// port), with certificates made for the test; clientAuth makes it
// require a client certificate. It skips the test if redis-server is not
// installed.
func StartTLS(t testing.TB, clientAuth bool) *Server {
	t.Helper()
	files := NewTLSFiles(t, "localhost")
	files.ClientAuth = clientAuth
	return start(t, files)
}

// serverArgs are redis-server's arguments to serve TLS on port, and no
// plain text.
func (f *TLSFiles) serverArgs(port string) []string {
	auth := "no"
	if f.ClientAuth {
		auth = "yes"
	}
	return []string{"--port", "0", "--tls-port", port, "--tls-cert-file", f.ServerCert, "--tls-key-file", f.ServerKey,
		"--tls-ca-cert-file", f.CA, "--tls-auth-clients", auth}
}

// tlsConfig is the configuration of the test's own clients: trusting the
// CA, presenting the client certificate; nil for a plain server.
func (s *Server) tlsConfig() *tls.Config {
	if s.TLS == nil {
		return nil
	}
	ca, err := os.ReadFile(s.TLS.CA)
	if err != nil {
		panic(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	cert, err := tls.LoadX509KeyPair(s.TLS.ClientCert, s.TLS.ClientKey)
	if err != nil {
		panic(err)
	}
	return &tls.Config{RootCAs: pool, ServerName: "localhost", Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
}

// NewTLSFiles makes a throwaway CA and, signed by it, a server
// certificate for name and 127.0.0.1 and a client certificate, as PEM
// files in a temporary directory.
func NewTLSFiles(t testing.TB, name string) *TLSFiles {
	t.Helper()
	dir := t.TempDir()
	caKey, caCert := newCert(t, nil, nil, &x509.Certificate{Subject: pkix.Name{CommonName: "lazarus test CA"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign})
	f := &TLSFiles{CA: filepath.Join(dir, "ca.pem"), ServerCert: filepath.Join(dir, "server.pem"), ServerKey: filepath.Join(dir, "server-key.pem"),
		ClientCert: filepath.Join(dir, "client.pem"), ClientKey: filepath.Join(dir, "client-key.pem")}
	writePEM(t, f.CA, "CERTIFICATE", caCert.Raw)
	sk, sc := newCert(t, caKey, caCert, &x509.Certificate{Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature})
	writePEM(t, f.ServerCert, "CERTIFICATE", sc.Raw)
	writeKey(t, f.ServerKey, sk)
	ck, cc := newCert(t, caKey, caCert, &x509.Certificate{Subject: pkix.Name{CommonName: "caddy"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature})
	writePEM(t, f.ClientCert, "CERTIFICATE", cc.Raw)
	writeKey(t, f.ClientKey, ck)
	return f
}

// newCert makes a key and a certificate from tmpl, signed by parent
// (self-signed when parent is nil), valid for a day.
func newCert(t testing.TB, parentKey *ecdsa.PrivateKey, parent, tmpl *x509.Certificate) (*ecdsa.PrivateKey, *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl.SerialNumber = serial
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return key, cert
}

func writeKey(t testing.TB, path string, key *ecdsa.PrivateKey) {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, path, "PRIVATE KEY", der)
}

func writePEM(t testing.TB, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
