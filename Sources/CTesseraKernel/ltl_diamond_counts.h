// The diamond's step with its rings of diagonal sums and its counts in COUNT (uint16_t
// where every count is under 2^16, else uint32_t), each function's name ending in
// SUFFIX: included by ltl_diamond.c once for each.
#define DIAMOND_CAT_(a, b) a##b
#define DIAMOND_CAT(a, b) DIAMOND_CAT_(a, b)
#define DIAMOND(name) DIAMOND_CAT(name, SUFFIX)

// A ring of rows of padded columns, row y in slot y mod `count`.
typedef struct {
    COUNT *rows;
    int count, columns;
} DIAMOND(ring);

static inline COUNT *DIAMOND(row_of)(const DIAMOND(ring) *g, int y) {
    return g->rows + (size_t)(((y % g->count) + g->count) % g->count) * (size_t)g->columns;
}

// Row y of A(x, y) = B(x, y) + A(x-1, y-1) and C(x, y) = B(x, y) + C(x+1, y-1), from `cells`.
CLONES static void DIAMOND(diagonals)(const uint8_t *cells, const COUNT *restrict aboveA, const COUNT *restrict aboveC,
                                      COUNT *restrict a, COUNT *restrict c, int columns) {
    a[0] = cells[0], c[columns - 1] = cells[columns - 1];
    for (int x = 1; x < columns; x++) a[x] = (COUNT)(cells[x] + aboveA[x - 1]);
    for (int x = 0; x < columns - 1; x++) c[x] = (COUNT)(cells[x] + aboveC[x + 1]);
}

// D(x, y+1) from D(x, y), for padded columns `from` .. `to`-1.
CLONES static void DIAMOND(move_down)(COUNT *restrict d, const DIAMOND(ring) *a, const DIAMOND(ring) *c, int y, int r, int from,
                                      int to) {
    const COUNT *a1 = DIAMOND(row_of)(a, y + 1 + r), *ay = DIAMOND(row_of)(a, y), *ar = DIAMOND(row_of)(a, y - r);
    const COUNT *cr = DIAMOND(row_of)(c, y + r), *cy = DIAMOND(row_of)(c, y), *cr1 = DIAMOND(row_of)(c, y - r - 1);
    for (int x = from; x < to; x++) {
        COUNT lower = (COUNT)((COUNT)(a1[x] - ay[x - r - 1]) + (COUNT)(cr[x + 1] - cy[x + r + 1]));
        COUNT upper = (COUNT)((COUNT)(cy[x - r] - cr1[x + 1]) + (COUNT)(ay[x + r] - ar[x]));
        d[x] = (COUNT)(d[x] + (COUNT)(lower - upper));
    }
}

// Row `out` of the next generation from its cells and counts `d`, at the padded
// columns (`counts`: scratch for them in 32 bits).
CLONES static void DIAMOND(decide)(const tessera_ltl_rule *rule, const uint8_t *cells, const COUNT *d, int width, int r,
                                   uint32_t *counts, uint8_t *next, uint64_t *out) {
    for (int x = 0; x < width; x++) counts[x] = d[r + 1 + x];
    ltl_decide(rule, cells + r + 1, counts, width, next, out);
}

static int DIAMOND(step)(const tessera_ltl_rule *rule, const board *b, uint64_t *dst) {
    int r = b->r, width = b->width;
    DIAMOND(ring) a = {NULL, 2 * r + 4, b->columns}, c = a;
    size_t ringCells = (size_t)a.count * (size_t)b->columns;
    a.rows = calloc(ringCells, sizeof(COUNT)), c.rows = calloc(ringCells, sizeof(COUNT));
    uint8_t *cells = malloc((size_t)b->columns + 8), *next = malloc((size_t)width + 64);
    COUNT *d = calloc((size_t)b->columns, sizeof *d);
    uint32_t *counts = malloc((size_t)width * sizeof *counts);
    if (!a.rows || !c.rows || !cells || !d || !next || !counts) {
        free(a.rows), free(c.rows), free(cells), free(d), free(next), free(counts);
        return 0;
    }
    // Rows above -r hold nothing (the ring's zeros stand for their diagonal sums), and
    // the diamond around a cell 2r+1 rows above the board reaches none of the board's
    // cells or a torus's wrapped ones (r+1 rows above, on a plane).
    int made = -r - 1;
    for (int y = b->wraps ? -2 * r - 1 : -r - 1; y < b->height - 1; y++) {
        for (; made < y + r + 1; made++) {
            cells_of(b, made + 1, cells);
            DIAMOND(diagonals)(cells, DIAMOND(row_of)(&a, made), DIAMOND(row_of)(&c, made), DIAMOND(row_of)(&a, made + 1),
                               DIAMOND(row_of)(&c, made + 1), b->columns);
        }
        DIAMOND(move_down)(d, &a, &c, y, r, r + 1, r + 1 + width);
        if (y + 1 >= 0) {
            cells_of(b, y + 1, cells);
            DIAMOND(decide)(rule, cells, d, width, r, counts, next, dst + (size_t)(y + 1) * b->stride);
        }
    }
    free(a.rows), free(c.rows), free(cells), free(d), free(next), free(counts);
    return 1;
}

#undef DIAMOND
#undef DIAMOND_CAT
#undef DIAMOND_CAT_
