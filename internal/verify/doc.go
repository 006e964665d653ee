// Package verify is the engine of `lazarus verify`: it checks the live
// site the way an archive's crawler sees it, before the site is lost.
// Run crawls from the root page by links, as the archives' crawlers
// would (robots.txt per archive, noarchive, the listed types, the
// truncation point, the codings they ask for), scans every page for
// signed blocks and manifests, and says whether every segment of the
// newest generation can be rebuilt from the pages archives would keep;
// it also checks the pages' signals and, with the owner key, restores
// the generation into a temporary directory and compares it with its
// listing. Live gives capture requests the carriers it found.
package verify
