package spn

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseCredentials(t *testing.T) {
	for _, tc := range []struct{ in, access, secret string }{
		{"AKEY:s3cret\n", "AKEY", "s3cret"},
		{"AKEY:s3cret\r\n", "AKEY", "s3cret"},
		{"AKEY\ns3cret\n", "AKEY", "s3cret"},
		{"  AKEY : s3cret  \n\n", "AKEY", "s3cret"},
		{"AKEY:", "", ""},
		{":s3cret", "", ""},
		{"AKEY s3cret", "", ""},
		{"AKEY\ns3cret\nmore", "", ""},
		{"AKEY:s3:cret", "", ""},
		{"AKEY:s3cr\x1bet", "", ""},
		{"", "", ""},
	} {
		c, err := ParseCredentials([]byte(tc.in))
		if tc.access == "" {
			if !errors.Is(err, ErrBadKeys) {
				t.Errorf("%q: %+v, %v; want ErrBadKeys", tc.in, c, err)
			}
			if err != nil && strings.Contains(err.Error(), "s3") {
				t.Errorf("%q: the error quotes the file: %v", tc.in, err)
			}
			continue
		}
		if err != nil || c.Access != tc.access || c.Secret != tc.secret {
			t.Errorf("%q: %+v, %v", tc.in, c, err)
		}
	}
}

// TestCredentialsHidden: printing credentials, whatever the verb, never
// shows the secret.
func TestCredentialsHidden(t *testing.T) {
	c := Credentials{Access: "AKEY", Secret: "s3cret"}
	for _, s := range []string{fmt.Sprint(c), fmt.Sprintf("%v %+v %#v %s", c, c, c, c), fmt.Sprintf("%v", Options{Credentials: c})} {
		if strings.Contains(s, "s3cret") || !strings.Contains(s, "AKEY") {
			t.Errorf("printed %q", s)
		}
	}
}

func TestParseLimit(t *testing.T) {
	for in, want := range map[string]Limit{"12/min": {12, time.Minute}, "12": {12, time.Minute}, "1/s": {1, time.Second}, " 30 / h ": {30, time.Hour}} {
		if got, err := ParseLimit(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, in := range []string{"", "0/min", "-1", "12/day", "x/min", "1.5/s"} {
		if got, err := ParseLimit(in); err == nil {
			t.Errorf("%q: %v, want an error", in, got)
		}
	}
}

// FuzzParseCredentials: a key file never makes the parser panic; what it
// accepts are two keys the header can carry, found in the file, and its
// errors never quote the file.
func FuzzParseCredentials(f *testing.F) {
	for _, s := range []string{"AKEY:s3cret\n", "AKEY\ns3cret\n", "A:B:C", "\n\n", "k:\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCredentials(data)
		if err != nil {
			if !errors.Is(err, ErrBadKeys) {
				t.Fatalf("error %v does not wrap ErrBadKeys", err)
			}
			if len(data) >= 4 && strings.Contains(err.Error(), string(data)) {
				t.Fatalf("error %q quotes the file", err)
			}
			return
		}
		if !keyToken(c.Access) || !keyToken(c.Secret) || !strings.Contains(string(data), c.Access) || !strings.Contains(string(data), c.Secret) {
			t.Fatalf("accepted %q from %q", c.header(), data)
		}
		if c.String() != c.Access+":<secret>" {
			t.Fatalf("String %q", c)
		}
	})
}
