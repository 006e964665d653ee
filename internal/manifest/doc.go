// Package manifest encodes, signs and parses a generation's manifest: the
// small signed document, carried in its own HTML comment type on the root
// page and the pages one link away, that names a generation's segments with
// their coding parameters and hashes, and holds (or points to) the
// generation's listing: every preserved file and which carrier URLs hold
// which blocks. The byte layout is normative and specified in
// docs/FORMAT.md §5.
package manifest
