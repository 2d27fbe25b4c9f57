// One generation of Larger than Life on the von Neumann diamond |dx| + |dy| <= r, at a
// cost per cell that does not grow with the range. A cell's count D moves down a row
// by adding the cells of the lower diamond's bottom edge (a Λ) and taking away those
// of the upper one's top edge (a V); each edge is two diagonal runs, and a run's sum
// is the difference of two diagonal prefix sums (A down-right, C down-left), kept for
// the 2r+4 rows around the current one. The rows are counted from above the board,
// where every count is 0; a torus is its board with r wrapped cells around it, nothing
// beyond. Counts are modulo 2^16 or 2^32 (ltl_diamond_counts.h): a run's sum is exact
// as a difference.
#include "CTesseraKernel.h"
#include "ltl_rows.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__ELF__)
#define CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CLONES
#endif

typedef struct {
    const uint64_t *src;
    size_t stride;
    int width, height, wraps, r;
    int columns;  // padded columns: x = -r-1 .. width+r, at x + r + 1
    const int *wrapped;  // the columns a torus's margins stand for (`ltl_wrapped_columns`)
} board;

// Row `y`'s cells over the padded columns (`out` has 8 bytes more): the board's,
// wrapped round a torus within r of its edges, 0 elsewhere.
static void cells_of(const board *b, int y, uint8_t *out) {
    memset(out, 0, (size_t)b->columns + 8);
    if (b->wraps ? (y < -b->r || y >= b->height + b->r) : (y < 0 || y >= b->height)) return;
    int row = ((y % b->height) + b->height) % b->height, r = b->r, width = b->width;
    uint8_t *cells = out + r + 1;
    ltl_unpack(b->src + (size_t)row * b->stride, width, cells);
    memset(cells + width, 0, 8);  // the last byte's bits past the width
    if (b->wraps) ltl_wrap_margins(cells, width, r, b->wrapped);
}

// Counts in 16 bits up to range 180 (the diamond holds 2r²+2r+1 cells: 65161), half the
// memory the rings take in 32 bits and twice the counts a vector.
#define COUNT uint16_t
#define SUFFIX _in_16_bits
#include "ltl_diamond_counts.h"
#undef COUNT
#undef SUFFIX
#define COUNT uint32_t
#define SUFFIX _in_32_bits
#include "ltl_diamond_counts.h"
#undef COUNT
#undef SUFFIX

int tessera_ltl_diamond_step(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                             int height, int wraps) {
    int r = rule->range;
    int *wrapped = ltl_wrapped_columns(r, width);
    if (!wrapped) return 0;
    board b = {src, stride, width, height, wraps, r, width + 2 * r + 2, wrapped};
    int stepped = 2 * r * r + 2 * r + 1 < 65536 ? step_in_16_bits(rule, &b, dst) : step_in_32_bits(rule, &b, dst);
    free(wrapped);
    return stepped;
}
