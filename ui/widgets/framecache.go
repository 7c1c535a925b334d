package widgets

import (
	"container/list"
	"image"
	"sync"
)

// The frame viewer's caches of decoded and display-scaled frames, bounded by bytes.

// frameCache keeps recently decoded frames (large phone screenshots take milliseconds to
// decode) and decodes the next ones ahead of playback. It is bounded by the bytes its images
// hold, not by their number: one decoded 1080x2400 screenshot is 10 MB, so a count that suits
// small frames would hold half a gigabyte of phone frames. The most recent frame is kept
// whatever its size.
type frameCache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	order    *list.List // of int, most recent first
	items    map[int]*list.Element
	imgs     map[int]image.Image
	busy     map[int]bool
}

// Byte budgets of the viewer's caches: decoded frames (the current one, the ones just seen and
// the four decoded ahead) and display-sized copies of them.
const (
	frameCacheBytes   = 64 << 20
	displayCacheBytes = 32 << 20
)

func newFrameCache(maxBytes int) *frameCache {
	return &frameCache{maxBytes: maxBytes, order: list.New(), items: map[int]*list.Element{},
		imgs: map[int]image.Image{}, busy: map[int]bool{}}
}

// imageBytes is the memory an image's pixels take.
func imageBytes(img image.Image) int {
	switch m := img.(type) {
	case nil:
		return 0
	case *image.RGBA:
		return len(m.Pix)
	case *image.NRGBA:
		return len(m.Pix)
	case *image.YCbCr:
		return len(m.Y) + len(m.Cb) + len(m.Cr)
	case *image.Gray:
		return len(m.Pix)
	case *image.Paletted:
		return len(m.Pix) + 4*len(m.Palette)
	}
	b := img.Bounds()
	return 4 * b.Dx() * b.Dy()
}

func (c *frameCache) get(i int) (image.Image, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[i]; ok {
		c.order.MoveToFront(e)
		return c.imgs[i], true
	}
	return nil, false
}

func (c *frameCache) put(i int, img image.Image) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.busy, i)
	if e, ok := c.items[i]; ok {
		c.order.MoveToFront(e)
		c.bytes -= imageBytes(c.imgs[i])
	} else {
		c.items[i] = c.order.PushFront(i)
	}
	c.imgs[i] = img
	c.bytes += imageBytes(img)
	for c.bytes > c.maxBytes && c.order.Len() > 1 {
		last := c.order.Back()
		j := last.Value.(int)
		c.order.Remove(last)
		c.bytes -= imageBytes(c.imgs[j])
		delete(c.items, j)
		delete(c.imgs, j)
	}
}

// claim marks i as being decoded; false when it is cached or already in progress.
func (c *frameCache) claim(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[i]; ok || c.busy[i] {
		return false
	}
	c.busy[i] = true
	return true
}
