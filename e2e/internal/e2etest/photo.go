package e2etest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
)

// Photo is a 320×240 PNG that compresses as a photograph does: little.
func Photo() []byte {
	r := rand.New(rand.NewPCG(7, 7))
	img := image.NewRGBA(image.Rect(0, 0, 320, 240))
	for y := range 240 {
		for x := range 320 {
			img.Set(x, y, color.RGBA{uint8(x*255/320) ^ uint8(r.IntN(32)), uint8(y*255/240) ^ uint8(r.IntN(32)), uint8(r.IntN(256)), 255})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}
