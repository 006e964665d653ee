// Package status is the engine of `lazarus status` and of the Caddy
// module's scheduled audit: it asks the archives what they hold of a
// site (listings, and the serve history's digests instead of fetching
// where it can), finds which generation each capture carries, tallies
// per generation, segment and stripe the distinct blocks the archives
// hold, finds the newest coherent restore point as recover would choose
// it, and fits the capture model to the archives' history (package odds)
// for a forecast of the newest generation. Run returns a
// Report; RunHeld also says which blocks the captures hold.
package status
