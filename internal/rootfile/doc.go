// Package rootfile reads and writes files inside a directory that hostile
// input must never lead out of (recovery's output, journal and cache
// directories): every name is resolved through an os.Root, writes are
// atomic (a new file created exclusively, then renamed over the name, so
// a symbolic link planted at the name is replaced, never followed) and
// reads take regular files only. Modes and times are set on open files
// (WriteAtomicMode, SetTimes), never through a name another user could
// have swapped for a link.
package rootfile
