package capture

import (
	"context"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// archived is what the archives hold, as Status found it: its report,
// and which blocks and manifests the captures hold.
type archived struct {
	report *status.Report
	*status.Held
}

// auditArchives runs Status and keeps what the captures hold.
func auditArchives(ctx context.Context, o status.Options) (*archived, error) {
	rep, held, err := status.RunHeld(ctx, o)
	if err != nil {
		return nil, err
	}
	return &archived{report: rep, Held: held}, nil
}

// safe reports whether the report says generation id is the newest and
// recoverable from the archives.
func (a *archived) safe(id manifest.ID) bool {
	rp := a.report.RestorePoint
	return rp != nil && rp.Newest && rp.Generation == id.String()
}
