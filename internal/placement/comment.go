package placement

import (
	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
)

// blockOverhead is the part of a block that is not name or shard: the
// 111-byte fixed header, the 32-byte digest and the 64-byte signature
// (FORMAT §6).
const blockOverhead = 111 + block.DigestSize + block.SignatureSize

// CommentBytes returns the exact number of bytes one Lazarus comment of the
// given kind carrying payloadLen bytes adds to a page, counting the newline
// the inserter writes after it:
//
//	len("<!-- lazarus " kind " 1\n") + B + ⌈B/76⌉ + len("-->") + 1
//
// where B = 4·⌈payloadLen/3⌉ is the length of the base64 body, written in
// lines of 76 characters each followed by a newline (FORMAT §9.1). The
// result is meaningful for payloadLen ≥ 1, as htmlblock.Armor refuses empty
// payloads.
func CommentBytes(kind htmlblock.Kind, payloadLen int) int {
	head := len("<!-- lazarus ") + len(kind) + len(" 1\n")
	body := 4 * ((payloadLen + 2) / 3)
	lines := (body + htmlblock.LineLen - 1) / htmlblock.LineLen
	return head + body + lines + len("-->") + 1
}

// BlockCommentBytes returns the exact number of bytes that one armored
// block with a segment name of nameLen bytes and a shard of shardSize bytes
// adds to a page, its trailing newline included. The block itself is
// 207+nameLen+shardSize bytes (FORMAT §6).
func BlockCommentBytes(nameLen, shardSize int) int {
	return CommentBytes(htmlblock.KindBlock, blockOverhead+nameLen+shardSize)
}
