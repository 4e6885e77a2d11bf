// zlib (zlib1g-dev), for gzip-compressing the web app's files once, when they are first served.
#include <zlib.h>

// deflateInit2 is a macro; Swift sees functions only.
static inline int reverie_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
