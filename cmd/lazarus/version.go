package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

const versionUsage = `Usage: lazarus version   (or: lazarus --version)

Prints the program's version (a release tag, or devel-<commit> for a build
from a checkout) and the versions of the block and manifest formats it
writes and reads; recover refuses blocks and manifests of newer formats.
Exit codes: 0 printed, 2 usage error.

Examples:
  lazarus version
  # lazarus v1.2.0 (block format 1, manifest format 1)
`

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lazarus version", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), versionUsage) }
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	fmt.Fprintf(stdout, "lazarus %s (block format %d, manifest format %d)\n", programVersion(), block.Version, manifest.Version)
	return exitOK
}

// programVersion is the module version when built from a tagged module,
// else the VCS revision, else "devel".
func programVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel-" + s.Value[:12]
		}
	}
	return "devel"
}
