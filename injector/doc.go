// Package injector embeds a site's server side into the pages of its static
// site: it packs the chosen sources and command outputs into segments,
// encodes them with internal/codec and places the blocks on carrier pages
// (the library behind `lazarus inject`).
package injector
