module github.com/lazarus-preserve/lazarus

go 1.26.8

require (
	filippo.io/age v1.3.2
	github.com/BurntSushi/toml v1.6.0
	github.com/klauspost/compress v1.18.0
	github.com/klauspost/reedsolomon v1.14.2
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/crypto v0.58.0
	golang.org/x/net v0.62.0
	golang.org/x/sys v0.49.0
)

require (
	filippo.io/hpke v0.4.0 // indirect
	github.com/klauspost/cpuid/v2 v2.3.0 // indirect
	golang.org/x/tools v0.49.0 // indirect
)
