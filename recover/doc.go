// Package recover rebuilds a site's server side from archived copies of
// its pages: the library behind `lazarus recover`, the pair of package
// injector. Run takes Options (DefaultOptions, then the owner key or the
// passphrase, an output directory and Sources: ParseSource spells the
// archives, WARC files, mirrors and the live site a command line names)
// and returns a Report of what was rebuilt from which generation; its
// errors (ErrNothingFound, ErrPartial and the causes it wraps) say what
// the caller should do next.
//
// The package name shadows the builtin recover; importers usually alias
// it, e.g. `import lzrecover "github.com/lazarus-preserve/lazarus/recover"`.
package recover
