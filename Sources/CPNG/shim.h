#include <png.h>

/* Function-like and composite macros do not import into Swift. */
static const unsigned int runner_png_format_rgb = PNG_FORMAT_RGB;
static const unsigned int runner_png_format_rgba = PNG_FORMAT_RGBA;
