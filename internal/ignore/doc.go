// Package ignore matches slash-separated relative paths against
// gitignore-style exclude patterns, as given to "lazarus inject --exclude".
//
// # Pattern syntax
//
// The semantics are those of gitignore(5), applied to a list of patterns as
// if they were the lines of one .gitignore file at the include root:
//
//   - An empty pattern, one made of spaces only, and one starting with "#"
//     is ignored. Trailing spaces are removed unless escaped with a
//     backslash ("a\ " keeps one space); "\#" starts a pattern with a
//     literal "#", "\!" one with a literal "!".
//   - A leading "!" negates the pattern: a path it matches is included
//     again. The last pattern that matches a path decides; a path no
//     pattern matches is not excluded.
//   - A trailing "/" makes the pattern match directories only (the slash
//     itself is not part of the pattern).
//   - A pattern with a "/" at its start or in its middle is anchored: it is
//     matched against the whole path relative to the root (a leading "/" is
//     dropped first). Otherwise it is matched against the last component of
//     the path, so it applies at any depth.
//   - "*" matches any run of bytes except "/", "?" any one byte except "/",
//     "[...]" one byte of a set, which never includes "/". A set may be
//     negated with "!" or "^" after the "[", holds ranges ("a-z") and the
//     POSIX classes [:alnum:], [:alpha:], [:blank:], [:cntrl:], [:digit:],
//     [:graph:], [:lower:], [:print:], [:punct:], [:space:], [:upper:] and
//     [:xdigit:] in their ASCII definitions as git has them (so [:space:] is
//     space, tab, LF and CR). A "]" right after "[" or "[!" is a member;
//     "-" first or last is a member. A backslash makes the next byte
//     literal, inside and outside sets.
//   - "**" between slashes (or at the start or end of the pattern) matches
//     across directories: "**/x" matches x at any depth, "x/**" everything
//     inside x (but not x itself), "a/**/b" matches a/b, a/x/b, a/x/y/b.
//     Other runs of asterisks are plain "*".
//
// Matching works on bytes, as git does: "?" matches one byte of a
// multi-byte UTF-8 character, and sets hold bytes. It is case-sensitive.
//
// # Excluded directories
//
// As in git, a path cannot be included again if one of its parent
// directories is excluded: with the patterns "build/" and "!build/keep",
// build/keep stays excluded. Match does not check parents itself; it
// reports whether the path is excluded on its own (Match("build", true) is
// true), and callers walking a tree must skip the whole subtree of an
// excluded directory, never asking about the paths inside it.
//
// # Departures from git
//
// Patterns git would accept but that can never match are errors here, so
// a typo is reported rather than silently excluding nothing: unterminated
// "[" sets, unknown [:class:] names, a trailing backslash, a pattern left
// empty once "!" and "/" are removed, and, in patterns without "[" or
// "\", empty, "." or ".." path components ("a//b", "./a"). Git splits
// an anchored pattern at its first wildcard and treats a "**" right after
// that split as directory-crossing even without a "/" before it ("foo**/x"
// matching foo/a/x); this package follows the documented rule instead and
// treats that "**" as "*".
//
// Matching time is linear in the length of the path times the length of
// the pattern (the glob is run as a set of states, never by backtracking),
// so patterns such as "a*a*a*a*a*b" cannot stall a walk.
package ignore
