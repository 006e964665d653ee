package recover

import (
	"strconv"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/bundle"
)

// TestReportOwnersBounded: segments that each name thousands of owners
// of their own add up to at most bundle.MaxOwners entries in the report,
// the rest counted under bundle.Uncounted, every entry still counted.
func TestReportOwnersBounded(t *testing.T) {
	var r Report
	total := 0
	for seg := range 4 {
		var owners []bundle.Ownership
		for i := range 2000 {
			owners = append(owners, bundle.Ownership{User: "u" + strconv.Itoa(seg) + "-" + strconv.Itoa(i), Entries: 2})
			total += 2
		}
		owners = append(owners, bundle.Ownership{User: "www-data", Group: "www-data", Restored: true, Entries: 5})
		total += 5
		r.addOwners(owners)
	}
	if len(r.Owners) > bundle.MaxOwners+1 {
		t.Fatalf("%d owners in the report, want at most %d", len(r.Owners), bundle.MaxOwners+1)
	}
	sum, shared, rest := 0, 0, 0
	for _, o := range r.Owners {
		sum += o.Entries
		switch {
		case o.User == "www-data":
			shared = o.Entries
		case o == bundle.Ownership{Reason: bundle.Uncounted.Reason, Entries: o.Entries}:
			rest = o.Entries
		}
	}
	if sum != total || shared != 20 || rest == 0 {
		t.Errorf("%d entries counted (want %d), www-data %d (want 20), uncounted %d (want > 0)", sum, total, shared, rest)
	}
}
