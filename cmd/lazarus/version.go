package main

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lazarus version", flag.ContinueOnError)
	if code, ok := parseFlags(fs, args, stderr); !ok {
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
