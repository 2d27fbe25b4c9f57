// One generation of Larger than Life on the von Neumann diamond |dx| + |dy| <= r, at a
// cost per cell that does not grow with the range. A cell's count D moves down a row
// by adding the cells of the lower diamond's bottom edge (a Λ) and taking away those
// of the upper one's top edge (a V); each edge is two diagonal runs, and a run's sum
// is the difference of two diagonal prefix sums (A down-right, C down-left), kept for
// the 2r+4 rows around the current one. The rows are counted from above the board,
// where every count is 0; a torus is its board with r wrapped cells around it, nothing
// beyond. Counts are modulo 2^32: a run's sum is exact as a difference.
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
    // On a torus, the board columns that columns -k and width-1+k stand for, k = 1..r:
    // at west[k - 1] and east[k - 1] (a division each, once a generation, not a row).
    int *west, *east;
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
    if (b->wraps)
        for (int k = 1; k <= r; k++) cells[-k] = cells[b->west[k - 1]], cells[width - 1 + k] = cells[b->east[k - 1]];
}

// A ring of rows of padded columns, row y in slot y mod `count`.
typedef struct {
    uint32_t *rows;
    int count, columns;
} ring;

static inline uint32_t *row_of(const ring *g, int y) {
    return g->rows + (size_t)(((y % g->count) + g->count) % g->count) * (size_t)g->columns;
}

// Row y of A(x, y) = B(x, y) + A(x-1, y-1) and C(x, y) = B(x, y) + C(x+1, y-1), from `cells`.
CLONES static void diagonals(const uint8_t *cells, const uint32_t *restrict aboveA, const uint32_t *restrict aboveC,
                             uint32_t *restrict a, uint32_t *restrict c, int columns) {
    a[0] = cells[0], c[columns - 1] = cells[columns - 1];
    for (int x = 1; x < columns; x++) a[x] = cells[x] + aboveA[x - 1];
    for (int x = 0; x < columns - 1; x++) c[x] = cells[x] + aboveC[x + 1];
}

// D(x, y+1) from D(x, y), for padded columns `from` .. `to`-1.
CLONES static void move_down(uint32_t *restrict d, const ring *a, const ring *c, int y, int r, int from, int to) {
    const uint32_t *a1 = row_of(a, y + 1 + r), *ay = row_of(a, y), *ar = row_of(a, y - r);
    const uint32_t *cr = row_of(c, y + r), *cy = row_of(c, y), *cr1 = row_of(c, y - r - 1);
    for (int x = from; x < to; x++) {
        uint32_t lower = (a1[x] - ay[x - r - 1]) + (cr[x + 1] - cy[x + r + 1]);
        uint32_t upper = (cy[x - r] - cr1[x + 1]) + (ay[x + r] - ar[x]);
        d[x] += lower - upper;
    }
}

// Row `y` of the next generation from its cells and counts `d`, at the padded columns.
CLONES static void decide(const tessera_ltl_rule *rule, const uint8_t *cells, const uint32_t *d, int width, int r, uint8_t *next,
                          uint64_t *out) {
    ltl_decide(rule, cells + r + 1, d + r + 1, width, next, out);
}

int tessera_ltl_diamond_step(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                             int height, int wraps) {
    int r = rule->range;
    board b = {src, stride, width, height, wraps, r, width + 2 * r + 2, malloc(2 * (size_t)r * sizeof(int)), NULL};
    ring a = {NULL, 2 * r + 4, b.columns}, c = a;
    size_t ringCells = (size_t)a.count * (size_t)b.columns;
    a.rows = calloc(ringCells, sizeof(uint32_t)), c.rows = calloc(ringCells, sizeof(uint32_t));
    uint8_t *cells = malloc((size_t)b.columns + 8);
    uint32_t *d = calloc((size_t)b.columns, sizeof *d);
    uint8_t *next = malloc((size_t)width + 64);
    if (!a.rows || !c.rows || !cells || !d || !next || !b.west) {
        free(a.rows), free(c.rows), free(cells), free(d), free(next), free(b.west);
        return 0;
    }
    b.east = b.west + r;
    for (int k = 1; k <= r; k++) b.west[k - 1] = ((-k % width) + width) % width, b.east[k - 1] = (k - 1) % width;
    // Rows above -r hold nothing (the ring's zeros stand for their diagonal sums), and
    // the diamond around a cell 2r+1 rows above the board reaches none of the board's
    // cells or a torus's wrapped ones (r+1 rows above, on a plane).
    int made = -r - 1;
    for (int y = wraps ? -2 * r - 1 : -r - 1; y < height - 1; y++) {
        for (; made < y + r + 1; made++) {
            cells_of(&b, made + 1, cells);
            diagonals(cells, row_of(&a, made), row_of(&c, made), row_of(&a, made + 1), row_of(&c, made + 1), b.columns);
        }
        move_down(d, &a, &c, y, r, r + 1, r + 1 + width);
        if (y + 1 >= 0) {
            cells_of(&b, y + 1, cells);
            decide(rule, cells, d, width, r, next, dst + (size_t)(y + 1) * stride);
        }
    }
    free(a.rows), free(c.rows), free(cells), free(d), free(next), free(b.west);
    return 1;
}
