// The pieces the Larger than Life steps share: rows of bits as bytes, the row a wrapped
// or dead edge stands for, and a row's decisions from its counts packed back to bits.
// Included by the .c files of this target only; every helper inlines into its caller's
// clones (AVX2 and baseline), so that the loops over a row vectorise with the wider
// registers where the CPU has them.
#ifndef TESSERA_LTL_ROWS_H
#define TESSERA_LTL_ROWS_H

#include "CTesseraKernel.h"

#include <stdlib.h>
#include <string.h>

#define LTL_INLINE static inline __attribute__((always_inline))

// Each byte value's eight bits as eight bytes of 0 or 1, lowest bit first.
#define LTL_SPREAD(v)                                                                                              \
    ((uint64_t)((v) & 1) | (uint64_t)((v) >> 1 & 1) << 8 | (uint64_t)((v) >> 2 & 1) << 16 |                       \
     (uint64_t)((v) >> 3 & 1) << 24 | (uint64_t)((v) >> 4 & 1) << 32 | (uint64_t)((v) >> 5 & 1) << 40 |           \
     (uint64_t)((v) >> 6 & 1) << 48 | (uint64_t)((v) >> 7 & 1) << 56)
#define LTL_SPREAD4(v) LTL_SPREAD(v), LTL_SPREAD((v) + 1), LTL_SPREAD((v) + 2), LTL_SPREAD((v) + 3)
#define LTL_SPREAD16(v) LTL_SPREAD4(v), LTL_SPREAD4((v) + 4), LTL_SPREAD4((v) + 8), LTL_SPREAD4((v) + 12)
#define LTL_SPREAD64(v) LTL_SPREAD16(v), LTL_SPREAD16((v) + 16), LTL_SPREAD16((v) + 32), LTL_SPREAD16((v) + 48)
static const uint64_t ltl_spread[256] = {LTL_SPREAD64(0), LTL_SPREAD64(64), LTL_SPREAD64(128), LTL_SPREAD64(192)};

// A row of the board as one byte a cell; `bytes` has room for whole words of cells.
LTL_INLINE void ltl_unpack(const uint64_t *row, int width, uint8_t *bytes) {
    const uint8_t *packed = (const uint8_t *)row;  // little-endian: byte k holds cells 8k..8k+7
    for (int k = 0; k < (width + 7) / 8; k++) memcpy(bytes + 8 * k, &ltl_spread[packed[k]], 8);
}

// The board row that offset row `y` stands for, or -1 beyond a dead edge (divisions
// only off the board: they cost more than a sparse row's step).
LTL_INLINE int ltl_row_at(int y, int height, int wraps) {
    if (y >= 0 && y < height) return y;
    return wraps ? ((y % height) + height) % height : -1;
}

// Whether a row has a live cell.
LTL_INLINE int ltl_has_cells(const uint64_t *row, int width) {
    uint64_t any = 0;
    for (int w = 0; w < width / 64; w++) any |= row[w];
    if (width & 63) any |= row[width / 64] & ((1ull << (width & 63)) - 1);
    return any != 0;
}

// The rows a box step reads, from r above `firstRow` to r below `endRow - 1`, and which
// have a live cell. A step skips a row where none of the 2r+1 about it has one: its
// columns' counts are all 0, and so is the next row where nothing is born from nothing.
typedef struct {
    const uint64_t *src;
    size_t stride;
    int height, wraps, firstRow, r;
    uint8_t *occupied;  // occupied[k]: whether row firstRow - r + k has a live cell; NULL without memory
    int live;           // rows with a live cell among the 2r+1 about the current one
} ltl_window;

// The window about `firstRow` (`occupied` NULL without memory).
static inline ltl_window ltl_window_at(const uint64_t *src, size_t stride, int width, int height, int wraps, int firstRow,
                                       int endRow, int r) {
    ltl_window w = {src, stride, height, wraps, firstRow, r, malloc((size_t)(endRow - firstRow + 2 * r + 1)), 0};
    if (w.occupied)
        for (int y = firstRow - r; y <= endRow + r; y++) {
            int source = ltl_row_at(y, height, wraps);
            int live = source >= 0 && ltl_has_cells(src + (size_t)source * stride, width);
            w.occupied[y - firstRow + r] = (uint8_t)live;
            if (y <= firstRow + r) w.live += live;
        }
    return w;
}

// Row `y` of the window (a board row, or one a wrapped edge stands for) where it has a
// live cell, else NULL.
LTL_INLINE const uint64_t *ltl_window_row(const ltl_window *w, int y) {
    if (!w->occupied[y - w->firstRow + w->r]) return NULL;
    return w->src + (size_t)ltl_row_at(y, w->height, w->wraps) * w->stride;
}

// The window moved down from row `y` to the next: `arriving` and `leaving` from
// `ltl_window_row`.
LTL_INLINE void ltl_window_move(ltl_window *w, const uint64_t *arriving, const uint64_t *leaving) {
    w->live += (arriving != NULL) - (leaving != NULL);
}

// The columns a torus's margins stand for: `at[k]` for column -1-k, `at[r + k]` for
// width + k, k < r (a division each, once a generation rather than a row); NULL
// without memory.
static inline int *ltl_wrapped_columns(int r, int width) {
    int *at = malloc(2 * (size_t)r * sizeof *at + 1);
    if (at)
        for (int k = 0; k < r; k++) at[k] = (((-1 - k) % width) + width) % width, at[r + k] = k % width;
    return at;
}

// A row of `width` bytes at `row[0]` given its r wrapped margin columns either side
// (`row[-r]` .. `row[-1]`, `row[width]` .. `row[width + r - 1]`), from `at`
// (`ltl_wrapped_columns`).
LTL_INLINE void ltl_wrap_margins(uint8_t *row, int width, int r, const int *at) {
    for (int k = 0; k < r; k++) row[-1 - k] = row[at[k]], row[width + k] = row[at[r + k]];
}

// Row `out` of the next generation from the cells of the row (bytes of 0 or 1) and
// their counts: the decisions as bytes first (a loop the compiler vectorises), then
// eight bytes of 0 or 1 packed into a byte by one multiplication. `next` has room for
// whole words of cells.
LTL_INLINE void ltl_decide(const tessera_ltl_rule *rule, const uint8_t *alive, const uint32_t *counts, int width, uint8_t *next,
                           uint64_t *out) {
    // Ranges as unsigned spans from their low ends: one compare each.
    uint32_t birthSpan = (uint32_t)(rule->birthHigh - rule->birthLow), surviveSpan = (uint32_t)(rule->surviveHigh - rule->surviveLow);
    uint32_t itself = rule->countsItself ? 0 : 1, birthLow = (uint32_t)rule->birthLow, surviveLow = (uint32_t)rule->surviveLow;
    for (int x = 0; x < width; x++) {
        uint32_t n = counts[x] - itself * alive[x];
        next[x] = alive[x] ? n - surviveLow <= surviveSpan : n - birthLow <= birthSpan;
    }
    int words = (width + 63) / 64;
    memset(next + width, 0, (size_t)(64 * words - width));
    for (int j = 0; j < words; j++) {
        uint64_t word = 0;
        for (int k = 0; k < 8; k++) {
            uint64_t bytes;
            memcpy(&bytes, next + 64 * j + 8 * k, 8);
            word |= (bytes * 0x0102040810204080ull) >> 56 << (8 * k);
        }
        out[j] = word;
    }
}

#endif
