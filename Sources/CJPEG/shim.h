/*
 * libjpeg reports errors by longjmp, which Swift cannot catch. These static
 * inline helpers own the setjmp so that no longjmp ever crosses a Swift frame;
 * Swift sees plain functions that return 0 on success and fill `message`.
 * (TurboJPEG would avoid this, but turbojpeg.h ships in libturbojpeg0-dev,
 * which is not a dependency of runner.)
 */
#ifndef RUNNER_CJPEG_SHIM_H
#define RUNNER_CJPEG_SHIM_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

#define RUNNER_JPEG_MESSAGE_LENGTH 200

typedef struct runner_jpeg_error {
  struct jpeg_error_mgr pub;
  jmp_buf jump;
  char *message;
} runner_jpeg_error;

static void runner_jpeg_error_exit(j_common_ptr cinfo) {
  runner_jpeg_error *err = (runner_jpeg_error *)cinfo->err;
  (*cinfo->err->format_message)(cinfo, err->message);
  longjmp(err->jump, 1);
}

/* Corrupt data is only a warning to libjpeg (it pads with gray: a file whose header says
 * 9000x9000 but holds 800x600 of data "decodes" into a mostly gray image); we make each such
 * warning fatal. Extraneous bytes before a marker and odd SOS parameters (common in phone
 * photos that decode correctly) stay warnings. */
static void runner_jpeg_emit_message(j_common_ptr cinfo, int level) {
  if (level >= 0) return;
  switch (cinfo->err->msg_code) {
  case JWRN_JPEG_EOF:      /* Premature end of JPEG file */
  case JWRN_HIT_MARKER:    /* Corrupt JPEG data: premature end of data segment */
  case JWRN_HUFF_BAD_CODE: /* Corrupt JPEG data: bad Huffman code */
  case JWRN_MUST_RESYNC:   /* Corrupt JPEG data: found a marker instead of a restart */
    runner_jpeg_error_exit(cinfo);
  default:
    break;
  }
}

static inline void runner_jpeg_install_errors(runner_jpeg_error *err, char *message) {
  jpeg_std_error(&err->pub);
  err->pub.error_exit = runner_jpeg_error_exit;
  err->pub.emit_message = runner_jpeg_emit_message;
  err->message = message;
  message[0] = 0;
}

/* Header fields; colorSpace is a J_COLOR_SPACE value, adobe is 1 when an Adobe marker was seen. */
typedef struct runner_jpeg_header {
  int width;
  int height;
  int colorSpace;
  int adobe;
} runner_jpeg_header;

static inline int runner_jpeg_read_header(const unsigned char *data, unsigned long size,
                                          runner_jpeg_header *header, char *message) {
  struct jpeg_decompress_struct cinfo;
  runner_jpeg_error err;
  cinfo.err = NULL;
  runner_jpeg_install_errors(&err, message);
  cinfo.err = &err.pub;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return 1;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, size);
  jpeg_read_header(&cinfo, TRUE);
  header->width = (int)cinfo.image_width;
  header->height = (int)cinfo.image_height;
  header->colorSpace = (int)cinfo.jpeg_color_space;
  header->adobe = cinfo.saw_Adobe_marker ? 1 : 0;
  jpeg_destroy_decompress(&cinfo);
  return 0;
}

/*
 * Decodes into `pixels` (width * height * 4 bytes): RGBA for colour and gray
 * input, raw CMYK for CMYK/YCCK input (cmyk = 1).
 */
static inline int runner_jpeg_decode(const unsigned char *data, unsigned long size, int cmyk,
                                     unsigned char *pixels, char *message) {
  struct jpeg_decompress_struct cinfo;
  runner_jpeg_error err;
  runner_jpeg_install_errors(&err, message);
  cinfo.err = &err.pub;
  if (setjmp(err.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return 1;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, size);
  jpeg_read_header(&cinfo, TRUE);
  cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
  cinfo.dct_method = JDCT_ISLOW;
  jpeg_start_decompress(&cinfo);
  size_t stride = (size_t)cinfo.output_width * 4;
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = pixels + (size_t)cinfo.output_scanline * stride;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return 0;
}

/*
 * An incremental decoder, for decoding in row bands while other threads work on the rows
 * already decoded. Each call owns its own setjmp. Create with runner_jpeg_decoder_create
 * (header read, decompression started), read rows with runner_jpeg_decoder_read, and
 * always release it with runner_jpeg_decoder_destroy.
 */
typedef struct runner_jpeg_decoder {
  struct jpeg_decompress_struct cinfo;
  runner_jpeg_error err;
  char message[RUNNER_JPEG_MESSAGE_LENGTH];
  int created;
  int finished;
} runner_jpeg_decoder;

/* Returns NULL only when out of memory; otherwise check decoder->message[0] for an error. */
static inline runner_jpeg_decoder *runner_jpeg_decoder_create(const unsigned char *data, unsigned long size,
                                                              int cmyk) {
  runner_jpeg_decoder *decoder = (runner_jpeg_decoder *)calloc(1, sizeof(runner_jpeg_decoder));
  if (decoder == NULL) {
    return NULL;
  }
  runner_jpeg_install_errors(&decoder->err, decoder->message);
  decoder->cinfo.err = &decoder->err.pub;
  if (setjmp(decoder->err.jump)) {
    return decoder;
  }
  jpeg_create_decompress(&decoder->cinfo);
  decoder->created = 1;
  jpeg_mem_src(&decoder->cinfo, data, size);
  jpeg_read_header(&decoder->cinfo, TRUE);
  decoder->cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
  decoder->cinfo.dct_method = JDCT_ISLOW;
  jpeg_start_decompress(&decoder->cinfo);
  return decoder;
}

/*
 * Decodes the next rows, up to `limit` (exclusive), into `pixels` (the whole image,
 * output_width * 4 bytes a row). Returns 0 on success, 1 on error (see decoder->message).
 */
static inline int runner_jpeg_decoder_read(runner_jpeg_decoder *decoder, unsigned char *pixels, int limit) {
  struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
  if (setjmp(decoder->err.jump)) {
    return 1;
  }
  size_t stride = (size_t)cinfo->output_width * 4;
  JDIMENSION end = (JDIMENSION)limit < cinfo->output_height ? (JDIMENSION)limit : cinfo->output_height;
  JSAMPROW rows[16];
  while (cinfo->output_scanline < end) {
    JDIMENSION count = end - cinfo->output_scanline;
    if (count > 16) {
      count = 16;
    }
    for (JDIMENSION i = 0; i < count; i++) {
      rows[i] = pixels + (size_t)(cinfo->output_scanline + i) * stride;
    }
    jpeg_read_scanlines(cinfo, rows, count);
  }
  if (cinfo->output_scanline == cinfo->output_height && !decoder->finished) {
    decoder->finished = 1;
    jpeg_finish_decompress(cinfo);
  }
  return 0;
}

static inline int runner_jpeg_decoder_scanline(const runner_jpeg_decoder *decoder) {
  return (int)decoder->cinfo.output_scanline;
}

static inline void runner_jpeg_decoder_destroy(runner_jpeg_decoder *decoder) {
  if (decoder->created) {
    jpeg_destroy_decompress(&decoder->cinfo);
  }
  free(decoder);
}

/*
 * A growing memory destination that always knows its buffer. (jpeg_mem_dest frees its
 * initial buffer when it grows but only reports the new one when compression finishes, so
 * an encoder abandoned halfway cannot free what it holds without a double free.)
 */
typedef struct runner_jpeg_destination {
  struct jpeg_destination_mgr pub;
  unsigned char *buffer;
  size_t size;
  size_t used;
} runner_jpeg_destination;

static void runner_jpeg_destination_init(j_compress_ptr cinfo) {
  runner_jpeg_destination *dest = (runner_jpeg_destination *)cinfo->dest;
  dest->pub.next_output_byte = dest->buffer;
  dest->pub.free_in_buffer = dest->size;
}

static boolean runner_jpeg_destination_grow(j_compress_ptr cinfo) {
  runner_jpeg_destination *dest = (runner_jpeg_destination *)cinfo->dest;
  size_t size = dest->size * 2;
  unsigned char *buffer = (unsigned char *)realloc(dest->buffer, size);
  if (buffer == NULL) {
    ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 11);
  }
  dest->pub.next_output_byte = buffer + dest->size;
  dest->pub.free_in_buffer = size - dest->size;
  dest->buffer = buffer;
  dest->size = size;
  return TRUE;
}

static void runner_jpeg_destination_term(j_compress_ptr cinfo) {
  runner_jpeg_destination *dest = (runner_jpeg_destination *)cinfo->dest;
  dest->used = dest->size - dest->pub.free_in_buffer;
}

/* Installs `dest` (which must outlive compression) and its first buffer; free dest->buffer after. */
static inline void runner_jpeg_destination_install(j_compress_ptr cinfo, runner_jpeg_destination *dest) {
  dest->size = 1 << 16;
  dest->used = 0;
  dest->buffer = (unsigned char *)malloc(dest->size);
  if (dest->buffer == NULL) {
    ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 11);
  }
  dest->pub.init_destination = runner_jpeg_destination_init;
  dest->pub.empty_output_buffer = runner_jpeg_destination_grow;
  dest->pub.term_destination = runner_jpeg_destination_term;
  cinfo->dest = &dest->pub;
}

/*
 * Encodes `pixels` (width * height * components bytes). mode 0: RGBA input (alpha
 * ignored), 1: gray input, 2: CMYK input. On success *out is malloc'ed: free it.
 */
static inline int runner_jpeg_encode(const unsigned char *pixels, int width, int height, int mode,
                                     int quality, int progressive, unsigned char **out,
                                     unsigned long *outSize, char *message) {
  struct jpeg_compress_struct cinfo;
  runner_jpeg_error err;
  *out = NULL;
  *outSize = 0;
  /* On the heap: it changes between setjmp and a longjmp, which must still see it. */
  runner_jpeg_destination *dest = (runner_jpeg_destination *)calloc(1, sizeof(runner_jpeg_destination));
  if (dest == NULL) {
    snprintf(message, RUNNER_JPEG_MESSAGE_LENGTH, "out of memory");
    return 1;
  }
  runner_jpeg_install_errors(&err, message);
  cinfo.err = &err.pub;
  if (setjmp(err.jump)) {
    jpeg_destroy_compress(&cinfo);
    free(dest->buffer);
    free(dest);
    return 1;
  }
  jpeg_create_compress(&cinfo);
  runner_jpeg_destination_install(&cinfo, dest);
  cinfo.image_width = (JDIMENSION)width;
  cinfo.image_height = (JDIMENSION)height;
  int components = mode == 1 ? 1 : 4;
  cinfo.input_components = components;
  cinfo.in_color_space = mode == 1 ? JCS_GRAYSCALE : (mode == 2 ? JCS_CMYK : JCS_EXT_RGBX);
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  if (progressive) {
    jpeg_simple_progression(&cinfo);
  }
  jpeg_start_compress(&cinfo, TRUE);
  size_t stride = (size_t)width * (size_t)components;
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * stride);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  *out = dest->buffer;
  *outSize = dest->used;
  free(dest);
  return 0;
}

/*
 * An incremental encoder, for encoding rows as a kernel finishes them. Same rules as the
 * decoder: create, write rows, finish, and always destroy.
 */
typedef struct runner_jpeg_encoder {
  struct jpeg_compress_struct cinfo;
  runner_jpeg_error err;
  runner_jpeg_destination dest;
  char message[RUNNER_JPEG_MESSAGE_LENGTH];
  int created;
  int finished;
} runner_jpeg_encoder;

/* RGBA input (alpha ignored). Returns NULL only when out of memory; check encoder->message[0]. */
static inline runner_jpeg_encoder *runner_jpeg_encoder_create(int width, int height, int quality) {
  runner_jpeg_encoder *encoder = (runner_jpeg_encoder *)calloc(1, sizeof(runner_jpeg_encoder));
  if (encoder == NULL) {
    return NULL;
  }
  runner_jpeg_install_errors(&encoder->err, encoder->message);
  encoder->cinfo.err = &encoder->err.pub;
  if (setjmp(encoder->err.jump)) {
    return encoder;
  }
  jpeg_create_compress(&encoder->cinfo);
  encoder->created = 1;
  runner_jpeg_destination_install(&encoder->cinfo, &encoder->dest);
  encoder->cinfo.image_width = (JDIMENSION)width;
  encoder->cinfo.image_height = (JDIMENSION)height;
  encoder->cinfo.input_components = 4;
  encoder->cinfo.in_color_space = JCS_EXT_RGBX;
  jpeg_set_defaults(&encoder->cinfo);
  jpeg_set_quality(&encoder->cinfo, quality, TRUE);
  jpeg_start_compress(&encoder->cinfo, TRUE);
  return encoder;
}

/* Encodes rows up to `limit` (exclusive) from `pixels` (the whole image); finishes after the last. */
static inline int runner_jpeg_encoder_write(runner_jpeg_encoder *encoder, const unsigned char *pixels, int limit) {
  struct jpeg_compress_struct *cinfo = &encoder->cinfo;
  if (setjmp(encoder->err.jump)) {
    return 1;
  }
  size_t stride = (size_t)cinfo->image_width * 4;
  JDIMENSION end = (JDIMENSION)limit < cinfo->image_height ? (JDIMENSION)limit : cinfo->image_height;
  JSAMPROW rows[16];
  while (cinfo->next_scanline < end) {
    JDIMENSION count = end - cinfo->next_scanline;
    if (count > 16) {
      count = 16;
    }
    for (JDIMENSION i = 0; i < count; i++) {
      rows[i] = (JSAMPROW)(pixels + (size_t)(cinfo->next_scanline + i) * stride);
    }
    jpeg_write_scanlines(cinfo, rows, count);
  }
  if (cinfo->next_scanline == cinfo->image_height && !encoder->finished) {
    encoder->finished = 1;
    jpeg_finish_compress(cinfo);
  }
  return 0;
}

static inline int runner_jpeg_encoder_scanline(const runner_jpeg_encoder *encoder) {
  return (int)encoder->cinfo.next_scanline;
}

static inline void runner_jpeg_encoder_destroy(runner_jpeg_encoder *encoder) {
  if (encoder->created) {
    jpeg_destroy_compress(&encoder->cinfo);
  }
  free(encoder->dest.buffer);
  free(encoder);
}

#endif
