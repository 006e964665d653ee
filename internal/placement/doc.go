// Package placement chooses the erasure parameters of a generation's new
// segments and assigns every block (one shard in one HTML comment) to
// carrier pages, within each page's room.
//
// Place works in stages, in this order; earlier stages have priority for
// room. Pages are ordered by depth (link hops from the root), then URL.
//
//  1. Manifest. The manifest comment goes on the root page (depth 0),
//     which must have room for it (else a *BudgetError), and on every
//     depth-1 page with room for it.
//
//  2. Fixed segments keep their pages. Each block of an unchanged segment
//     (Segment.Fixed) stays on the first page of its Segment.Previous list
//     that is still a carrier, has room, and carries no other block of the
//     same stripe.
//
//  3. Fixed blocks that kept no page are placed like new ones (stage 5);
//     if they cannot be, Place fails with a *BudgetError whose Fixed is set.
//
//  4. Parameters of new segments. With D = max(1, ⌈L/z⌉) data blocks for
//     a segment of L bytes and block budget z (McCown's r = ⌈s/z⌉), and a
//     stripe width W (its k+m blocks go to distinct pages): kmax is the
//     largest k with k + ⌈k·ρ⌉ ≤ W; T = ⌈D/kmax⌉ stripes; k = ⌈D/T⌉;
//     S = max(1, ⌈L/(T·k)⌉); m = ⌈k·ρ⌉. This is erasure.Plan with W in
//     place of 256 (a product k·ρ within a relative 1e-9 of an integer
//     counts as that integer). W starts at min(256, carrier pages); while
//     fewer than k+m pages have room (after stages 1–3) for one block of
//     the planned shard size S, W becomes that number of pages and the
//     segment is planned again. A site with fewer than 1+⌈ρ⌉ carrier pages
//     fails with ErrTooFewPages: Place never lowers the redundancy by
//     itself. A plan over MaxBlocks blocks fails with a *BudgetError.
//
//  5. New segments are placed, largest block first (ties in input order),
//     stripe by stripe: a stripe's k+m blocks go to k+m distinct pages with
//     room, chosen shallowest first, then with the most free bytes, then by
//     URL; shard 0 takes the first of them. A stripe that finds too few
//     pages fails with a *BudgetError.
//
//  6. Fixed segments keep their further previous pages (replicas), with
//     the conditions of stage 2.
//
//  7. Spare pages raise parity (McCown sets n to the number of pages). In
//     rounds, each new segment in placement order gets parity shard k+m
//     added to every stripe, each on the best page (order of stage 5) with
//     room that carries no block of that stripe; if one stripe finds no
//     such page, that segment's additions of the round are undone and it
//     stops. A segment also stops at k+m = 256 or when the plan would
//     exceed MaxBlocks blocks. Parity of (k, m) is a prefix of parity of
//     (k, m+1), so each round only adds blocks.
//
//  8. Replicas. Each page that still carries no block of this generation,
//     shallowest first, gets one replica: among the blocks whose comment
//     fits its room, the one with the fewest copies, data shards before
//     parity, then by segment (input order), stripe and shard. A page
//     without room for any block stays without.
//
//  9. Old blocks (Options.Old) stay on their pages where room remains:
//     first one page per block (its first listed page with room, blocks in
//     input order, so callers list the most valuable first), then every
//     further listed page with room. With
//     Options.OldBeforeSpare this stage runs between stages 6 and 7, so
//     that the previous generation stays whole (make-before-break) and
//     only the room left raises parity and takes replicas.
//
// Invariants of every plan: no page carries two blocks of one stripe (nor
// two copies of one block); every block of every stripe is on at least one
// page; the root carries the manifest; no page gets more bytes than its
// capacity, counting Options.ManifestBytes for the manifest,
// BlockCommentBytes for each block and OldBlock.Size for each old block.
//
// Place is deterministic: the same inputs give the same plan, whatever the
// order of the carriers or of map iteration (segments and old blocks are
// taken in input order). It costs O((B + P) log P) for B blocks on P
// pages, plus, for each block, up to k+m ≤ 256 steps over the pages that
// already carry its stripe.
//
// When the site cannot hold the backup, the *BudgetError says which segment
// did not fit, the blocks and bytes needed and available, and what to
// change. For a new segment Place also tries other block budgets, whole KiB
// values 1, 2, 3, 4, 6, 8, 12, … up to 16 MiB, nearest to z by ratio
// first, and suggests the first with which the same inputs fit.
package placement
