// One generation of Larger than Life on a bounded board (without AVX2 or past range 127
// the box, and the disc; ltl_box_avx2.c and ltl_diamond.c step the rest), at a cost per
// cell that does
// not grow with the range on the Moore box: each column's count over the 2r+1 rows
// around the current row is kept as the row moves down (one row added, one taken
// away), and a row's counts are differences of prefix sums of those column counts.
// Other shapes (a diamond, a disc) sum each of their 2r+1 rows' spans from the rows'
// prefix sums, so they cost O(r) a cell. Rows of bits are unpacked to bytes once per use, so the
// loops over a row are plain arithmetic the compiler vectorises.
#include "CTesseraKernel.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// Every helper inlined into both clones of the step below (AVX2 and baseline), so
// that the loops over a row vectorise with the wider registers where the CPU has them.
#define INLINE static inline __attribute__((always_inline))

// Each byte value's eight bits as eight bytes of 0 or 1, lowest bit first.
static uint64_t spread[256];

static void make_spread(void) {
    for (int v = 0; v < 256; v++) {
        uint64_t bytes = 0;
        for (int i = 0; i < 8; i++) bytes |= (uint64_t)(v >> i & 1) << (8 * i);
        spread[v] = bytes;
    }
}

// A row of the board as one byte a cell; `bytes` has room for whole words of cells.
INLINE void unpack(const uint64_t *row, int width, uint8_t *bytes) {
    const uint8_t *packed = (const uint8_t *)row;  // little-endian: byte k holds cells 8k..8k+7
    for (int k = 0; k < (width + 7) / 8; k++) memcpy(bytes + 8 * k, &spread[packed[k]], 8);
}

// The board row that offset row `y` stands for, or -1 beyond a dead edge.
INLINE int row_at(int y, int height, int wraps) {
    if (wraps) return ((y % height) + height) % height;
    return y >= 0 && y < height ? y : -1;
}

// Prefix sums of `values` read over columns -r .. width+r-1 (wrapped or dead beyond the
// edges): prefix[k] is the sum of the first k of them. `extended` is scratch of
// width + 2r values.
INLINE void prefix_sums(const int32_t *values, int width, int r, int wraps, int32_t *extended, int32_t *prefix) {
    memcpy(extended + r, values, (size_t)width * sizeof *values);
    for (int k = 0; k < r; k++) {
        int west = -r + k, east = width + k;  // the columns the edges stand for
        extended[k] = wraps ? values[((west % width) + width) % width] : 0;
        extended[r + width + k] = wraps ? values[east % width] : 0;
    }
    int32_t sum = 0;
    prefix[0] = 0;
    for (int k = 0; k < width + 2 * r; k++) prefix[k + 1] = sum += extended[k];
}

// Row `out` of the next generation from the cells of the row and their counts: the
// decisions as bytes first (a loop the compiler vectorises), then eight bytes of 0 or 1
// packed into a byte by one multiplication. `next` has room for whole words of cells.
INLINE void decide(const tessera_ltl_rule *rule, const uint8_t *alive, const int32_t *counts, int width, uint8_t *next,
                   uint64_t *out) {
    // Ranges as unsigned spans from their low ends: one compare each.
    uint32_t birthSpan = (uint32_t)(rule->birthHigh - rule->birthLow), surviveSpan = (uint32_t)(rule->surviveHigh - rule->surviveLow);
    int32_t itself = rule->countsItself ? 0 : 1, birthLow = rule->birthLow, surviveLow = rule->surviveLow;
    for (int x = 0; x < width; x++) {
        int32_t n = counts[x] - itself * alive[x];
        uint8_t born = (uint32_t)(n - birthLow) <= birthSpan, stays = (uint32_t)(n - surviveLow) <= surviveSpan;
        next[x] = alive[x] ? stays : born;
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

#if defined(__x86_64__) && defined(__ELF__)
__attribute__((target_clones("avx2", "default")))
#endif
static int step_by_prefix_sums(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                               int height, int wraps) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_spread);
    int r = rule->range;
    size_t span = (size_t)width + 2 * (size_t)r + 1;
    uint8_t *cells = malloc((size_t)width + 64), *next = malloc((size_t)width + 64);
    int32_t *counts = malloc((size_t)width * sizeof *counts);
    int32_t *extended = malloc(span * sizeof *extended);
    if (rule->reach) {
        // Each row's prefix sums, for the 2r+1 rows around the current one, in a ring.
        int window = 2 * r + 1;
        int32_t *prefix = malloc((size_t)window * span * sizeof *prefix);
        int32_t *values = malloc((size_t)width * sizeof *values);
        int *rowOf = malloc((size_t)window * sizeof *rowOf);
        if (!cells || !next || !counts || !extended || !prefix || !values || !rowOf) {
            free(cells), free(next), free(counts), free(extended), free(prefix), free(values), free(rowOf);
            return 0;
        }
        for (int i = 0; i < window; i++) rowOf[i] = INT_MIN;  // none made yet (rows above the board are negative)
        for (int y = 0; y < height; y++) {
            memset(counts, 0, (size_t)width * sizeof *counts);
            for (int dy = -r; dy <= r; dy++) {
                int source = row_at(y + dy, height, wraps);
                if (source < 0) continue;
                int slot = ((y + dy) % window + window) % window;
                int32_t *p = prefix + (size_t)slot * span;
                if (rowOf[slot] != y + dy) {
                    unpack(src + (size_t)source * stride, width, cells);
                    for (int x = 0; x < width; x++) values[x] = cells[x];
                    prefix_sums(values, width, r, wraps, extended, p);
                    rowOf[slot] = y + dy;
                }
                int reach = rule->reach[dy + r];
                // Columns x-reach .. x+reach are prefix entries x-reach+r .. x+reach+r.
                for (int x = 0; x < width; x++) counts[x] += p[x + reach + r + 1] - p[x - reach + r];
            }
            unpack(src + (size_t)y * stride, width, cells);
            decide(rule, cells, counts, width, next, dst + (size_t)y * stride);
        }
        free(prefix), free(values), free(rowOf);
    } else {
        int32_t *columns = calloc((size_t)width, sizeof *columns);
        int32_t *prefix = malloc(span * sizeof *prefix);
        if (!cells || !next || !counts || !extended || !columns || !prefix) {
            free(cells), free(next), free(counts), free(extended), free(columns), free(prefix);
            return 0;
        }
        // Column counts over rows -r .. r, then moved down a row at a time.
        for (int dy = -r; dy <= r; dy++) {
            int source = row_at(dy, height, wraps);
            if (source < 0) continue;
            unpack(src + (size_t)source * stride, width, cells);
            for (int x = 0; x < width; x++) columns[x] += cells[x];
        }
        for (int y = 0; y < height; y++) {
            prefix_sums(columns, width, r, wraps, extended, prefix);
            for (int x = 0; x < width; x++) counts[x] = prefix[x + 2 * r + 1] - prefix[x];
            unpack(src + (size_t)y * stride, width, cells);
            decide(rule, cells, counts, width, next, dst + (size_t)y * stride);
            int leaving = row_at(y - r, height, wraps), arriving = row_at(y + r + 1, height, wraps);
            if (leaving >= 0) {
                unpack(src + (size_t)leaving * stride, width, cells);
                for (int x = 0; x < width; x++) columns[x] -= cells[x];
            }
            if (arriving >= 0) {
                unpack(src + (size_t)arriving * stride, width, cells);
                for (int x = 0; x < width; x++) columns[x] += cells[x];
            }
        }
        free(columns), free(prefix);
    }
    free(cells), free(next), free(counts), free(extended);
    return 1;
}

// The box of range 127 or less in AVX2 (ltl_box_avx2.c): counts in bytes and 16 bits.
int tessera_ltl_box_step_avx2(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                              int height, int wraps);

// The von Neumann diamond at a cost per cell that does not grow with the range
// (ltl_diamond.c).
int tessera_ltl_diamond_step(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                             int height, int wraps);

// Whether the rows' spans make the diamond |dx| + |dy| <= r, and its two rings of
// diagonal sums (2r+4 rows of width+2r+2 counts each) take 256 MiB or less.
static int diamond_fits(const tessera_ltl_rule *rule, int width) {
    int r = rule->range;
    if (!rule->reach) return 0;
    for (int dy = -r; dy <= r; dy++)
        if (rule->reach[dy + r] != r - (dy < 0 ? -dy : dy)) return 0;
    return 2.0 * (2 * r + 4) * ((double)width + 2 * r + 2) * 4 <= 256.0 * (1 << 20);
}

int tessera_ltl_step(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                     int height, int wraps, int avx2) {
    if (avx2 && !rule->reach && rule->range <= 127) return tessera_ltl_box_step_avx2(rule, src, dst, stride, width, height, wraps);
    if (diamond_fits(rule, width)) return tessera_ltl_diamond_step(rule, src, dst, stride, width, height, wraps);
    return step_by_prefix_sums(rule, src, dst, stride, width, height, wraps);
}
