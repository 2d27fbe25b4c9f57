// One generation of Larger than Life on a bounded board where the other steps do not
// take it (the box without AVX2 or past range 127, the disc; ltl_box_avx2.c,
// ltl_box_avx512.c and ltl_diamond.c step the rest). On the box a cell costs the same
// at any range: each column's count over the 2r+1 rows around the current row is kept
// as the row moves down (one row added, one taken away), and a row's counts are
// differences of prefix sums of those column counts. The disc sums each of its 2r+1
// rows' spans from the rows' prefix sums, O(r) a cell. Rows of bits are unpacked to bytes once per use, so
// the loops over a row are plain arithmetic the compiler vectorises.
#include "CTesseraKernel.h"
#include "ltl_rows.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define INLINE LTL_INLINE

// Prefix sums of `values` read over columns -r .. width+r-1 (wrapped, from `wrapped`
// (`ltl_wrapped_columns`), or dead beyond the edges): prefix[k] is the sum of the first
// k of them. `extended` is scratch of width + 2r values.
INLINE void prefix_sums(const int32_t *values, int width, int r, const int *wrapped, int32_t *extended, int32_t *prefix) {
    memcpy(extended + r, values, (size_t)width * sizeof *values);
    for (int k = 0; k < r; k++) {
        extended[r - 1 - k] = wrapped ? values[wrapped[k]] : 0;
        extended[r + width + k] = wrapped ? values[wrapped[r + k]] : 0;
    }
    int32_t sum = 0;
    prefix[0] = 0;
    for (int k = 0; k < width + 2 * r; k++) prefix[k + 1] = sum += extended[k];
}

#if defined(__x86_64__) && defined(__ELF__)
__attribute__((target_clones("avx2", "default")))
#endif
static int step_by_prefix_sums(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                               int height, int wraps, int firstRow, int endRow) {
    int r = rule->range;
    size_t span = (size_t)width + 2 * (size_t)r + 1;
    uint8_t *cells = malloc((size_t)width + 64), *next = malloc((size_t)width + 64);
    int32_t *counts = malloc((size_t)width * sizeof *counts);
    int32_t *extended = malloc(span * sizeof *extended);
    int *wrapped = wraps ? ltl_wrapped_columns(r, width) : NULL;
    if ((wraps && !wrapped) || !cells || !next || !counts || !extended) {
        free(cells), free(next), free(counts), free(extended), free(wrapped);
        return 0;
    }
    if (rule->reach) {
        // Each row's prefix sums, for the 2r+1 rows around the current one, in a ring.
        int window = 2 * r + 1;
        int32_t *prefix = malloc((size_t)window * span * sizeof *prefix);
        int32_t *values = malloc((size_t)width * sizeof *values);
        int *rowOf = malloc((size_t)window * sizeof *rowOf);
        if (!prefix || !values || !rowOf) {
            free(cells), free(next), free(counts), free(extended), free(wrapped), free(prefix), free(values), free(rowOf);
            return 0;
        }
        for (int i = 0; i < window; i++) rowOf[i] = INT_MIN;  // none made yet (rows above the board are negative)
        for (int y = firstRow; y < endRow; y++) {
            memset(counts, 0, (size_t)width * sizeof *counts);
            for (int dy = -r; dy <= r; dy++) {
                int source = ltl_row_at(y + dy, height, wraps);
                if (source < 0) continue;
                int slot = ((y + dy) % window + window) % window;
                int32_t *p = prefix + (size_t)slot * span;
                if (rowOf[slot] != y + dy) {
                    ltl_unpack(src + (size_t)source * stride, width, cells);
                    for (int x = 0; x < width; x++) values[x] = cells[x];
                    prefix_sums(values, width, r, wrapped, extended, p);
                    rowOf[slot] = y + dy;
                }
                int reach = rule->reach[dy + r];
                // Columns x-reach .. x+reach are prefix entries x-reach+r .. x+reach+r.
                for (int x = 0; x < width; x++) counts[x] += p[x + reach + r + 1] - p[x - reach + r];
            }
            ltl_unpack(src + (size_t)y * stride, width, cells);
            ltl_decide(rule, cells, (const uint32_t *)counts, width, next, dst + (size_t)y * stride);
        }
        free(prefix), free(values), free(rowOf);
    } else {
        int32_t *columns = calloc((size_t)width, sizeof *columns);
        int32_t *prefix = malloc(span * sizeof *prefix);
        if (!columns || !prefix) {
            free(cells), free(next), free(counts), free(extended), free(wrapped), free(columns), free(prefix);
            return 0;
        }
        // Column counts over the rows within r of the first, then moved down a row at a time.
        for (int dy = -r; dy <= r; dy++) {
            int source = ltl_row_at(firstRow + dy, height, wraps);
            if (source < 0) continue;
            ltl_unpack(src + (size_t)source * stride, width, cells);
            for (int x = 0; x < width; x++) columns[x] += cells[x];
        }
        for (int y = firstRow; y < endRow; y++) {
            prefix_sums(columns, width, r, wrapped, extended, prefix);
            for (int x = 0; x < width; x++) counts[x] = prefix[x + 2 * r + 1] - prefix[x];
            ltl_unpack(src + (size_t)y * stride, width, cells);
            ltl_decide(rule, cells, (const uint32_t *)counts, width, next, dst + (size_t)y * stride);
            int leaving = ltl_row_at(y - r, height, wraps), arriving = ltl_row_at(y + r + 1, height, wraps);
            if (leaving >= 0) {
                ltl_unpack(src + (size_t)leaving * stride, width, cells);
                for (int x = 0; x < width; x++) columns[x] -= cells[x];
            }
            if (arriving >= 0) {
                ltl_unpack(src + (size_t)arriving * stride, width, cells);
                for (int x = 0; x < width; x++) columns[x] += cells[x];
            }
        }
        free(columns), free(prefix);
    }
    free(cells), free(next), free(counts), free(extended), free(wrapped);
    return 1;
}

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

int tessera_ltl_steps_rows(const tessera_ltl_rule *rule, int width) { return !diamond_fits(rule, width); }

int tessera_ltl_step_rows(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                          int height, int wraps, int avx2, int firstRow, int endRow) {
    if (avx2 && !rule->reach && rule->range <= 127)
        return tessera_cpu_has_avx512bw()
                   ? tessera_ltl_box_step_avx512(rule, src, dst, stride, width, height, wraps, firstRow, endRow)
                   : tessera_ltl_box_step_avx2(rule, src, dst, stride, width, height, wraps, firstRow, endRow);
    return step_by_prefix_sums(rule, src, dst, stride, width, height, wraps, firstRow, endRow);
}

int tessera_ltl_step(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                     int height, int wraps, int avx2) {
    if (diamond_fits(rule, width)) return tessera_ltl_diamond_step(rule, src, dst, stride, width, height, wraps);
    return tessera_ltl_step_rows(rule, src, dst, stride, width, height, wraps, avx2, 0, height);
}
