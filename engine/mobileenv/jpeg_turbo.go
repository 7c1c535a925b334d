//go:build cgo && linux && !nojpegturbo

package mobileenv

/*
#cgo pkg-config: libjpeg
#cgo CFLAGS: -O3
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>

struct me_jerr {
	struct jpeg_error_mgr pub;
	jmp_buf jb;
	char msg[JMSG_LENGTH_MAX];
};

static void me_jerror_exit(j_common_ptr c) {
	struct me_jerr *e = (struct me_jerr *)c->err;
	(*c->err->format_message)(c, e->msg);
	longjmp(e->jb, 1);
}

// me_jpeg_rgbx compresses w×h RGBX pixels as Pillow's JPEG save does by default: libjpeg's
// defaults (baseline, JFIF, 2×2 luma sampling = 4:2:0), the given quality. *out is allocated
// by libjpeg; the caller frees it.
static int me_jpeg_rgbx(const unsigned char *pix, int w, int h, int stride, int quality,
		unsigned char **out, unsigned long *outsize, char *errbuf, int errlen) {
	struct jpeg_compress_struct c;
	struct me_jerr e;
	volatile int started = 0;
	*out = NULL;
	*outsize = 0;
	c.err = jpeg_std_error(&e.pub);
	e.pub.error_exit = me_jerror_exit;
	if (setjmp(e.jb)) {
		if (started) jpeg_destroy_compress(&c);
		if (*out) { free(*out); *out = NULL; }
		strncpy(errbuf, e.msg, errlen - 1);
		errbuf[errlen - 1] = 0;
		return -1;
	}
	jpeg_create_compress(&c);
	started = 1;
	jpeg_mem_dest(&c, out, outsize);
	c.image_width = w;
	c.image_height = h;
	c.input_components = 4;
	c.in_color_space = JCS_EXT_RGBX;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, quality, TRUE);
	jpeg_start_compress(&c, TRUE);
	while (c.next_scanline < c.image_height) {
		JSAMPROW row = (JSAMPROW)(pix + (size_t)c.next_scanline * stride);
		jpeg_write_scanlines(&c, &row, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	return 0;
}

// me_jpeg_bands compresses a frame kept in three parts, as me_jpeg_rgbx would the whole frame:
// the screen's packed RGB rows (obs, w*3 bytes each) except rows band_y0..band_y1-1, which come
// from band (RGBX, band_stride), then desc_rows rows of RGBX from desc (desc_stride). Only the
// rows drawn on were ever copied.
static int me_jpeg_bands(const unsigned char *obs, int w, int h,
		const unsigned char *band, int band_y0, int band_y1, int band_stride,
		const unsigned char *desc, int desc_rows, int desc_stride, int quality,
		unsigned char **out, unsigned long *outsize, char *errbuf, int errlen) {
	struct jpeg_compress_struct c;
	struct me_jerr e;
	volatile int started = 0;
	unsigned char *volatile row = NULL;
	*out = NULL;
	*outsize = 0;
	c.err = jpeg_std_error(&e.pub);
	e.pub.error_exit = me_jerror_exit;
	if (setjmp(e.jb)) {
		if (started) jpeg_destroy_compress(&c);
		if (*out) { free(*out); *out = NULL; }
		free(row);
		strncpy(errbuf, e.msg, errlen - 1);
		errbuf[errlen - 1] = 0;
		return -1;
	}
	row = malloc((size_t)w * 3);
	if (!row) {
		strncpy(errbuf, "out of memory", errlen - 1);
		return -1;
	}
	jpeg_create_compress(&c);
	started = 1;
	jpeg_mem_dest(&c, out, outsize);
	c.image_width = w;
	c.image_height = h + desc_rows;
	c.input_components = 3;
	c.in_color_space = JCS_RGB;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, quality, TRUE);
	jpeg_start_compress(&c, TRUE);
	JSAMPROW rows[16];
	while (c.next_scanline < c.image_height) {
		int y = c.next_scanline;
		if (y < h && (y < band_y0 || y >= band_y1)) {
			// a run of the observation's own rows, handed over without copying
			int end = y < band_y0 ? band_y0 : h, n = 0;
			while (y + n < end && n < 16) {
				rows[n] = (JSAMPROW)(obs + (size_t)(y + n) * w * 3);
				n++;
			}
			jpeg_write_scanlines(&c, rows, n);
			continue;
		}
		const unsigned char *src = y < h ? band + (size_t)(y - band_y0) * band_stride : desc + (size_t)(y - h) * desc_stride;
		unsigned char *d = row;
		for (int x = 0; x < w; x++, src += 4, d += 3) { // RGBA -> RGB
			d[0] = src[0];
			d[1] = src[1];
			d[2] = src[2];
		}
		JSAMPROW r = row;
		jpeg_write_scanlines(&c, &r, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	free(row);
	return 0;
}
*/
import "C"

import (
	"errors"
	"image"
	"io"
	"unsafe"
)

// jpegEncoder names the JPEG encoder frames are saved with: libjpeg-turbo, the library Pillow
// saves with, in every cgo Linux build (-tags nojpegturbo opts out, as nofreetype does for the
// text path). It needs libjpeg62-turbo at run time (libjpeg-dev to build).
const jpegEncoder = "libjpeg-turbo"

// encodeJPEG writes img as the original's frames are written (Pillow's JPEG defaults through
// libjpeg-turbo: quality 75, 4:2:0, baseline); other images than RGBA take the pure-Go path.
func encodeJPEG(w io.Writer, img image.Image, quality int) error {
	m, ok := img.(*image.RGBA)
	if !ok || m.Rect.Empty() {
		return encodeJPEGGo(w, img, quality)
	}
	var out *C.uchar
	var size C.ulong
	var errbuf [200]C.char
	pix := unsafe.Pointer(&m.Pix[m.PixOffset(m.Rect.Min.X, m.Rect.Min.Y)])
	if C.me_jpeg_rgbx((*C.uchar)(pix), C.int(m.Rect.Dx()), C.int(m.Rect.Dy()), C.int(m.Stride), C.int(quality),
		&out, &size, &errbuf[0], C.int(len(errbuf))) != 0 {
		return errors.New("jpeg: " + C.GoString(&errbuf[0]))
	}
	defer C.free(unsafe.Pointer(out))
	_, err := w.Write(unsafe.Slice((*byte)(unsafe.Pointer(out)), int(size)))
	return err
}

// bandsEncoder: frames can be encoded from their parts (see encodeFrameBands).
const bandsEncoder = true

// encodeFrameBands writes the frame f as encodeJPEG would write it whole.
func encodeFrameBands(w io.Writer, f *frameBands, quality int) error {
	if len(f.obs) < f.w*f.h*3 || f.w <= 0 {
		return errors.New("jpeg: short observation")
	}
	var bandPtr *C.uchar
	y0, y1, bandStride := 0, 0, 0
	if f.band != nil && !f.band.Rect.Empty() {
		bandPtr = (*C.uchar)(unsafe.Pointer(&f.band.Pix[0]))
		y0, y1, bandStride = f.band.Rect.Min.Y, f.band.Rect.Max.Y, f.band.Stride
	}
	var descPtr *C.uchar
	descRows, descStride := 0, 0
	if f.desc != nil && !f.desc.Rect.Empty() {
		descPtr = (*C.uchar)(unsafe.Pointer(&f.desc.Pix[0]))
		descRows, descStride = f.desc.Rect.Dy(), f.desc.Stride
	}
	var out *C.uchar
	var size C.ulong
	var errbuf [200]C.char
	if C.me_jpeg_bands((*C.uchar)(unsafe.Pointer(&f.obs[0])), C.int(f.w), C.int(f.h), bandPtr, C.int(y0), C.int(y1), C.int(bandStride),
		descPtr, C.int(descRows), C.int(descStride), C.int(quality), &out, &size, &errbuf[0], C.int(len(errbuf))) != 0 {
		return errors.New("jpeg: " + C.GoString(&errbuf[0]))
	}
	defer C.free(unsafe.Pointer(out))
	_, err := w.Write(unsafe.Slice((*byte)(unsafe.Pointer(out)), int(size)))
	return err
}
