// Package status is the engine of `lazarus status` and of the Caddy
// module's scheduled audit: it asks the archives what they hold of a
// site (listings, and the serve history's digests instead of fetching
// where it can), finds which generation each capture carries, tallies
// per generation, segment and stripe the distinct blocks the archives
// hold, finds the newest coherent restore point as recover would choose
// it, and runs the recoverability model (package assure). Run returns a
// Report; RunHeld also says which blocks the captures hold.
package status
