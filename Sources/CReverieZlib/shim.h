// zlib (zlib1g-dev): gzip-compressing the web app's files once, when they are first served, and
// inflating the entries of zips people give us (SafeArchive).
#include <zlib.h>

// deflateInit2 and inflateInit2 are macros; Swift sees functions only.
static inline int reverie_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

// A raw deflate stream, as a zip entry holds it (no zlib or gzip header).
static inline int reverie_inflate_init_raw(z_streamp stream) {
    return inflateInit2(stream, -15);
}
