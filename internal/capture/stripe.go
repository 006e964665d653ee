package capture

import "github.com/lazarus-preserve/lazarus/internal/manifest"

// capStripe names one stripe of a segment version.
type capStripe struct {
	seg    manifest.SegmentKey
	stripe uint32
}
