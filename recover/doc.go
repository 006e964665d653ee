// Package recover rebuilds a site's server side from archived copies of its
// pages (the library behind `lazarus recover`). The package name shadows
// the builtin recover; importers usually alias it, e.g.
// `import lzrecover "github.com/lazarus-preserve/lazarus/recover"`.
package recover
