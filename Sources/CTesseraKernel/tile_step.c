// One generation of a 64x64 tile of the sparse plane, from the tile and its eight
// neighbours. A tile is 64 words, word r its row r, bit c of it column c; a missing
// neighbour is passed as a tile of zeros. The rows above and below come from the
// north and south tiles, each row's edge bits from the west and east ones. The AVX2
// step takes four rows at a time in a vector, with unaligned loads one row up and
// down; the portable one a word at a time, from the three columns of words copied
// out with a row more at each end.
//
// Within a tile, the AVX2 step skips the rows whose next generation is the one the
// older buffer holds: a row can differ from it only where a cell within a row of it
// (in this tile or across an edge) differs between the present generation and the
// one before last, which the step that made the present generation recorded
// (`tessera_tile_changes`). A glider crossing a tile steps about eight of its 64 rows.
#include "CTesseraKernel.h"
#include "rule_modes.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_X86 1
#endif

enum { ROWS = 64, PADDED = ROWS + 2 };

// The three columns of words, row -1 at index 0.
typedef struct { uint64_t west[PADDED], centre[PADDED], east[PADDED]; } padded_columns;

static void pad(const uint64_t *const around[9], padded_columns *p) {
    p->west[0] = around[0][ROWS - 1];
    p->centre[0] = around[1][ROWS - 1];
    p->east[0] = around[2][ROWS - 1];
    memcpy(p->west + 1, around[3], ROWS * 8);
    memcpy(p->centre + 1, around[4], ROWS * 8);
    memcpy(p->east + 1, around[5], ROWS * 8);
    p->west[ROWS + 1] = around[6][0];
    p->centre[ROWS + 1] = around[7][0];
    p->east[ROWS + 1] = around[8][0];
}

// Which neighbours (bit k: around[k], bit 4 the tile itself) the rows `first` (row 0),
// `last` (row 63) and the OR of every row touch: where any cell of `rows` is set.
static uint32_t edges(uint64_t first, uint64_t last, uint64_t any) {
    uint32_t bits = 0;
    if (any) bits |= 1u << 4;
    if (first) bits |= 1u << 1;
    if (last) bits |= 1u << 7;
    if (first & 1) bits |= 1u << 0;
    if (first >> 63) bits |= 1u << 2;
    if (last & 1) bits |= 1u << 6;
    if (last >> 63) bits |= 1u << 8;
    return bits;
}

static uint32_t side_edges(uint64_t westBits, uint64_t eastBits) {
    return (westBits ? 1u << 3 : 0) | (eastBits ? 1u << 5 : 0);
}

static uint32_t tile_step_portable(const uint64_t *const around[9], uint64_t *next, const tessera_rule *rule) {
    padded_columns p;
    pad(around, &p);
    uint64_t three0[ROWS + 2], three1[ROWS + 2], two0[ROWS + 2], two1[ROWS + 2], west[ROWS + 2], east[ROWS + 2];
    for (int r = 0; r < ROWS + 2; r++) {
        uint64_t c = p.centre[r];
        west[r] = c << 1 | p.west[r] >> 63, east[r] = c >> 1 | p.east[r] << 63;
        two0[r] = west[r] ^ east[r];
        two1[r] = west[r] & east[r];
        three0[r] = two0[r] ^ c;
        three1[r] = two1[r] | (two0[r] & c);
    }
    uint64_t diffAny = 0, liveAny = 0, diffWest = 0, diffEast = 0, liveWest = 0, liveEast = 0;
    uint64_t diffFirst = 0, diffLast = 0, liveFirst = 0, liveLast = 0;
    for (int r = 0; r < ROWS; r++) {
        uint64_t n;
        if (rule->compiled) {
            const uint64_t inputs[9] = {west[r], p.centre[r], east[r], west[r + 1], p.centre[r + 1], east[r + 1],
                                        west[r + 2], p.centre[r + 2], east[r + 2]};
            n = tessera_rule_apply(rule, inputs);
        } else {
            n = tessera_counts_next(three0[r], three1[r], two0[r + 1], two1[r + 1], three0[r + 2], three1[r + 2],
                                    p.centre[r + 1], rule);
        }
        uint64_t changed = n ^ next[r];
        next[r] = n;
        diffAny |= changed;
        liveAny |= n;
        diffWest |= changed & 1;
        diffEast |= changed >> 63;
        liveWest |= n & 1;
        liveEast |= n >> 63;
        if (r == 0) diffFirst = changed, liveFirst = n;
        if (r == ROWS - 1) diffLast = changed, liveLast = n;
    }
    return edges(diffFirst, diffLast, diffAny) | side_edges(diffWest, diffEast)
        | (edges(liveFirst, liveLast, liveAny) | side_edges(liveWest, liveEast)) << 16;
}

#ifndef TESSERA_TERNARY
uint32_t tessera_tile_alive(const uint64_t *cells) {
    uint64_t any = 0, west = 0, east = 0;
    for (int r = 0; r < ROWS; r++) {
        any |= cells[r];
        west |= cells[r] & 1;
        east |= cells[r] >> 63;
    }
    return edges(cells[0], cells[ROWS - 1], any) | side_edges(west, east);
}
#else
uint32_t tessera_tile_alive(const uint64_t *cells);
#endif

// The rows of the tile in `slot` whose next generation may differ from what its older
// buffer holds: those within a row of a cell that changed (see the top of this file),
// from the changes of the step that made the generation of `parity`, `generation`.
static inline uint64_t rows_to_step(const int32_t *neighbours, int32_t slot, const tessera_tile_changes *changes,
                                    int parity, uint64_t generation) {
    static const tessera_tile_changes none = {0, 0, 0, 0};
    const tessera_tile_changes *around[9];
    const int32_t *n = neighbours + 9 * (size_t)slot;
    for (int k = 0; k < 9; k++) {
        const tessera_tile_changes *c = n[k] < 0 ? &none : changes + 2 * (size_t)n[k] + parity;
        around[k] = c->generation == generation ? c : &none;
    }
    uint64_t changed = around[4]->rows | around[3]->east | around[5]->west;
    uint64_t rows = changed | changed << 1 | changed >> 1;
    if ((around[1]->rows | around[0]->east | around[2]->west) >> 63) rows |= 1;
    if ((around[7]->rows | around[6]->east | around[8]->west) & 1) rows |= 1ull << 63;
    return rows;
}

// The 3x3 of tiles around `slot` (its generation of `parity`), `zero` where none is.
static inline void gather(const uint64_t *around[9], const int32_t *neighbours, uint64_t *const *chunks, int32_t slot,
                          int parity, const uint64_t *zero) {
    for (int k = 0; k < 9; k++) {
        int32_t other = neighbours[9 * (size_t)slot + k];
        around[k] = other < 0 ? zero : tessera_tile_cells(chunks, other, parity);
    }
}

// The report of a step that overwrote `before` with `next` (as `tessera_tiles_step`'s).
static uint32_t report_of(const uint64_t *before, const uint64_t *next) {
    uint64_t diffAny = 0, diffWest = 0, diffEast = 0;
    for (int r = 0; r < ROWS; r++) {
        uint64_t changed = before[r] ^ next[r];
        diffAny |= changed;
        diffWest |= changed & 1;
        diffEast |= changed >> 63;
    }
    return edges(before[0] ^ next[0], before[ROWS - 1] ^ next[ROWS - 1], diffAny) | side_edges(diffWest, diffEast)
        | tessera_tile_alive(next) << 16;
}

// A tile on a bounded grid's edge, just stepped from `before` into `next`: only the
// cells `mask` keeps may live (those beyond the edge are dead for ever), and its report
// is of the cells as kept.
static uint32_t clip(const uint64_t *before, uint64_t *next, const uint64_t *mask) {
    for (int r = 0; r < ROWS; r++) next[r] &= mask[r];
    return report_of(before, next);
}

static void tiles_step_portable(const int32_t *due, size_t count, const int32_t *neighbours, uint64_t *const *chunks,
                                int parity, const uint64_t *zero, const uint64_t *const *masks,
                                tessera_tile_changes *changes, uint64_t generation, const tessera_rule *rule,
                                uint32_t *reports) {
    const uint64_t *around[9];
    for (size_t i = 0; i < count; i++) {
        int32_t slot = due[i];
        // It steps every row, and records them all as changed.
        changes[2 * (size_t)slot + (parity ^ 1)] = (tessera_tile_changes){~0ull, ~0ull, ~0ull, generation + 1};
        gather(around, neighbours, chunks, slot, parity, zero);
        uint64_t *next = tessera_tile_cells(chunks, slot, parity ^ 1);
        const uint64_t *mask = masks ? masks[slot] : NULL;
        uint64_t before[ROWS];
        if (mask) memcpy(before, next, sizeof before);
        reports[i] = tile_step_portable(around, next, rule);
        if (mask) reports[i] = clip(before, next, mask);
    }
}

#ifdef TESSERA_X86

#include "life_avx2.h"

// The horizontal sums of the four rows whose west, centre and east words start at
// `w`, `c` and `e`.
AVX2 row_sums horizontal4(const uint64_t *w4, const uint64_t *c4, const uint64_t *e4) {
    return sums_of(_mm256_loadu_si256((const __m256i *)w4), _mm256_loadu_si256((const __m256i *)c4),
                   _mm256_loadu_si256((const __m256i *)e4));
}

// The west, centre and east cells of the same four rows.
AVX2 void cells4(const uint64_t *w4, const uint64_t *c4, const uint64_t *e4, __m256i out[ROW_CELLS]) {
    cells_of(_mm256_loadu_si256((const __m256i *)w4), _mm256_loadu_si256((const __m256i *)c4),
             _mm256_loadu_si256((const __m256i *)e4), out);
}

AVX2 uint64_t any_bit(__m256i v) {
    return !_mm256_testz_si256(v, v);
}

// Rows are read in place, four at a time; only the four rows that reach across the
// tile's top or bottom edge are gathered (a copy of the whole columns, as the portable
// step makes, was a tenth of a soup's time).
AVX2 uint32_t tile_step(const uint64_t *const around[9], uint64_t *next, uint64_t rows, int mode, const tessera_rule *rule,
                        tessera_tile_changes *changes) {
    const uint64_t *w = around[3], *c = around[4], *e = around[5];
    const uint64_t topW[4] = {around[0][ROWS - 1], w[0], w[1], w[2]};
    const uint64_t topC[4] = {around[1][ROWS - 1], c[0], c[1], c[2]};
    const uint64_t topE[4] = {around[2][ROWS - 1], e[0], e[1], e[2]};
    const uint64_t bottomW[4] = {w[ROWS - 3], w[ROWS - 2], w[ROWS - 1], around[6][0]};
    const uint64_t bottomC[4] = {c[ROWS - 3], c[ROWS - 2], c[ROWS - 1], around[7][0]};
    const uint64_t bottomE[4] = {e[ROWS - 3], e[ROWS - 2], e[ROWS - 1], around[8][0]};
    __m256i diffAny = _mm256_setzero_si256(), liveAny = diffAny, diffWest = diffAny, diffEast = diffAny;
    __m256i liveWest = diffAny, liveEast = diffAny;
    __m256i low = _mm256_set1_epi64x(1), high = _mm256_set1_epi64x((long long)(1ull << 63));
#define SUMS_AT(r)                                                                                                     \
    row_sums above = r == 0 ? horizontal4(topW, topC, topE) : horizontal4(w + r - 1, c + r - 1, e + r - 1);            \
    row_sums below = r == ROWS - 4 ? horizontal4(bottomW, bottomC, bottomE) : horizontal4(w + r + 1, c + r + 1, e + r + 1); \
    row_sums here = horizontal4(w + r, c + r, e + r);
    // A compiled rule's sixteen vectors first, each of four rows, from the cells of the
    // four rows above, at and below it.
    __m256i gated[ROWS / 4];
    if (mode == MODE_GATES) {
        __m256i inputs[ROWS / 4][INPUTS];
        for (int r = 0; r < ROWS; r += 4) {
            __m256i *in = inputs[r / 4];
            if (r == 0) cells4(topW, topC, topE, in);
            else cells4(w + r - 1, c + r - 1, e + r - 1, in);
            cells4(w + r, c + r, e + r, in + ROW_CELLS);
            if (r == ROWS - 4) cells4(bottomW, bottomC, bottomE, in + 2 * ROW_CELLS);
            else cells4(w + r + 1, c + r + 1, e + r + 1, in + 2 * ROW_CELLS);
        }
        gates_next(rule, &inputs[0][0], INPUTS, ROWS / 4, gated);
    }
    uint64_t changedRows = 0, changedWest = 0, changedEast = 0;
    for (int r = 0; r < ROWS; r += 4) {
        __m256i *target = (__m256i *)(next + r);
        if (!(rows >> r & 0xF)) {
            // The older buffer holds these rows' next generation already.
            __m256i n = _mm256_loadu_si256(target);
            liveAny = _mm256_or_si256(liveAny, n);
            liveWest = _mm256_or_si256(liveWest, _mm256_and_si256(n, low));
            liveEast = _mm256_or_si256(liveEast, _mm256_and_si256(n, high));
            continue;
        }
        __m256i n;
        if (mode == MODE_GATES) {
            n = gated[r / 4];
        } else {
            SUMS_AT(r)
            n = next_state(&above, &here, &below, mode, rule);
        }
#undef SUMS_AT
        __m256i changed = _mm256_xor_si256(n, _mm256_loadu_si256(target));
        _mm256_storeu_si256(target, n);
        // Per row: any cell, column 0 (moved to the sign bit), column 63 (the sign bit).
        __m256i same = _mm256_cmpeq_epi64(changed, _mm256_setzero_si256());
        changedRows |= (uint64_t)(~_mm256_movemask_pd(_mm256_castsi256_pd(same)) & 0xF) << r;
        changedWest |= (uint64_t)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_slli_epi64(changed, 63))) << r;
        changedEast |= (uint64_t)_mm256_movemask_pd(_mm256_castsi256_pd(changed)) << r;
        diffAny = _mm256_or_si256(diffAny, changed);
        liveAny = _mm256_or_si256(liveAny, n);
        diffWest = _mm256_or_si256(diffWest, _mm256_and_si256(changed, low));
        diffEast = _mm256_or_si256(diffEast, _mm256_and_si256(changed, high));
        liveWest = _mm256_or_si256(liveWest, _mm256_and_si256(n, low));
        liveEast = _mm256_or_si256(liveEast, _mm256_and_si256(n, high));
    }
    uint32_t changedBits = 0;
    if (any_bit(diffAny)) {
        // Rows 0 and 63 the caller compares with what they overwrote.
        changedBits = 1u << 4 | side_edges(any_bit(diffWest), any_bit(diffEast));
    }
    uint32_t liveBits = edges(next[0], next[ROWS - 1], any_bit(liveAny)) | side_edges(any_bit(liveWest), any_bit(liveEast));
    changes->rows = changedRows, changes->west = changedWest, changes->east = changedEast;
    return changedBits | liveBits << 16;
}

#ifdef TESSERA_TERNARY
// Where the CPU has AVX-512 (this file's second compile, tile_step_ternary.c): eight
// rows a vector, Life and counted rules with life_avx512.h's next state, compiled rules
// with their 512-cell machine code. The same reads, report and changes as `tile_step`,
// in eight vectors for sixteen; rows are skipped eight at a time.
#include "life_avx512.h"

// The west, centre and east cells of the eight rows whose west, centre and east words
// start at `w8`, `c8` and `e8` (as `cells4`).
AVX2 void cells8(const uint64_t *w8, const uint64_t *c8, const uint64_t *e8, __m512i out[ROW_CELLS]) {
    cells512_of(_mm512_loadu_si512((const void *)w8), _mm512_loadu_si512((const void *)c8),
                _mm512_loadu_si512((const void *)e8), out);
}

// The horizontal sums of the same eight rows (as `horizontal4`).
AVX2 sums512 horizontal8(const uint64_t *w8, const uint64_t *c8, const uint64_t *e8) {
    return sums512_of(_mm512_loadu_si512((const void *)w8), _mm512_loadu_si512((const void *)c8),
                      _mm512_loadu_si512((const void *)e8));
}

AVX2 uint32_t tile_step512(const uint64_t *const around[9], uint64_t *next, uint64_t rows, int mode,
                           const tessera_rule *rule, tessera_tile_changes *changes) {
    const uint64_t *w = around[3], *c = around[4], *e = around[5];
    uint64_t topW[8], topC[8], topE[8], bottomW[8], bottomC[8], bottomE[8];
    topW[0] = around[0][ROWS - 1], topC[0] = around[1][ROWS - 1], topE[0] = around[2][ROWS - 1];
    memcpy(topW + 1, w, 7 * 8), memcpy(topC + 1, c, 7 * 8), memcpy(topE + 1, e, 7 * 8);
    memcpy(bottomW, w + ROWS - 7, 7 * 8), memcpy(bottomC, c + ROWS - 7, 7 * 8), memcpy(bottomE, e + ROWS - 7, 7 * 8);
    bottomW[7] = around[6][0], bottomC[7] = around[7][0], bottomE[7] = around[8][0];
    __m512i low = _mm512_set1_epi64(1), high = _mm512_set1_epi64((long long)(1ull << 63));
    // A compiled rule's eight vectors first, from the cells of the rows above, at and
    // below each.
    __m512i gated[ROWS / 8];
    if (mode == MODE_GATES) {
        __m512i inputs[ROWS / 8][INPUTS];
        for (int r = 0; r < ROWS; r += 8) {
            __m512i *in = inputs[r / 8];
            if (r == 0) cells8(topW, topC, topE, in);
            else cells8(w + r - 1, c + r - 1, e + r - 1, in);
            cells8(w + r, c + r, e + r, in + ROW_CELLS);
            if (r == ROWS - 8) cells8(bottomW, bottomC, bottomE, in + 2 * ROW_CELLS);
            else cells8(w + r + 1, c + r + 1, e + r + 1, in + 2 * ROW_CELLS);
        }
        _Alignas(64) uint8_t spill[TESSERA_JIT_SPILL_BYTES];
        ((tessera_gate_code)rule->code512)(inputs, gated, ROWS / 8, INPUTS * sizeof(__m512i), spill, sizeof(__m512i));
    }
    uint64_t changedRows = 0, changedWest = 0, changedEast = 0, liveRows = 0, liveWest = 0, liveEast = 0;
    for (int r = 0; r < ROWS; r += 8) {
        uint64_t *target = next + r;
        __m512i n;
        if (!(rows >> r & 0xFF)) {
            // The older buffer holds these rows' next generation already.
            n = _mm512_loadu_si512((const void *)target);
        } else {
            if (mode == MODE_GATES) {
                n = gated[r / 8];
            } else {
                sums512 above = r == 0 ? horizontal8(topW, topC, topE) : horizontal8(w + r - 1, c + r - 1, e + r - 1);
                sums512 below = r == ROWS - 8 ? horizontal8(bottomW, bottomC, bottomE)
                                              : horizontal8(w + r + 1, c + r + 1, e + r + 1);
                sums512 here = horizontal8(w + r, c + r, e + r);
                n = next512(&above, &here, &below, mode, rule);
            }
            __m512i changed = _mm512_xor_si512(n, _mm512_loadu_si512((const void *)target));
            _mm512_storeu_si512((void *)target, n);
            // Per row: any cell, column 0, column 63.
            changedRows |= (uint64_t)_mm512_test_epi64_mask(changed, changed) << r;
            changedWest |= (uint64_t)_mm512_test_epi64_mask(changed, low) << r;
            changedEast |= (uint64_t)_mm512_test_epi64_mask(changed, high) << r;
        }
        liveRows |= (uint64_t)_mm512_test_epi64_mask(n, n) << r;
        liveWest |= (uint64_t)_mm512_test_epi64_mask(n, low) << r;
        liveEast |= (uint64_t)_mm512_test_epi64_mask(n, high) << r;
    }
    uint32_t changedBits = 0;
    if (changedRows) {
        // Rows 0 and 63 the caller compares with what they overwrote.
        changedBits = 1u << 4 | side_edges(changedWest, changedEast);
    }
    uint32_t liveBits = edges(next[0], next[ROWS - 1], liveRows) | side_edges(liveWest, liveEast);
    changes->rows = changedRows, changes->west = changedWest, changes->east = changedEast;
    return changedBits | liveBits << 16;
}
#endif

AVX2 uint32_t tile_step_reported(const uint64_t *const around[9], uint64_t *next, uint64_t rows, int mode,
                                 const tessera_rule *rule, tessera_tile_changes *changes) {
    uint64_t before0 = next[0], before63 = next[ROWS - 1];
#ifdef TESSERA_TERNARY
    uint32_t bits = mode == MODE_GATES && !rule->code512 ? tile_step(around, next, rows, mode, rule, changes)
                                                         : tile_step512(around, next, rows, mode, rule, changes);
#else
    uint32_t bits = tile_step(around, next, rows, mode, rule, changes);
#endif
    // The changed edges of row 0 and row 63 (and the corners they hold).
    if (bits & (1u << 4)) bits |= edges(before0 ^ next[0], before63 ^ next[ROWS - 1], 1);
    return bits;
}

AVX2 void tiles_step(const int32_t *due, size_t count, const int32_t *neighbours, uint64_t *const *chunks, int parity,
                     const uint64_t *zero, const uint64_t *const *masks, tessera_tile_changes *changes,
                     uint64_t generation, int mode, const tessera_rule *rule, uint32_t *reports) {
    const uint64_t *around[9];
    for (size_t i = 0; i < count; i++) {
        int32_t slot = due[i];
        gather(around, neighbours, chunks, slot, parity, zero);
        uint64_t *next = tessera_tile_cells(chunks, slot, parity ^ 1);
        const uint64_t *mask = masks ? masks[slot] : NULL;
        uint64_t before[ROWS];
        if (mask) memcpy(before, next, sizeof before);
        uint64_t rows = rows_to_step(neighbours, slot, changes, parity, generation);
        tessera_tile_changes *made = changes + 2 * (size_t)slot + (parity ^ 1);
        made->generation = generation + 1;
        reports[i] = tile_step_reported(around, next, rows, mode, rule, made);
        // Clipping only clears cells that changed: the changes stay a bound.
        if (mask) reports[i] = clip(before, next, mask);
    }
}

#define SPECIALISED(name, mode)                                                                                   \
    __attribute__((target(TESSERA_TARGET))) static void name(const int32_t *due, size_t count, const int32_t *neighbours,   \
                                                     uint64_t *const *chunks, int parity, const uint64_t *zero,      \
                                                     const uint64_t *const *masks, tessera_tile_changes *changes,    \
                                                     uint64_t generation, const tessera_rule *rule,                  \
                                                     uint32_t *reports) {                                            \
        tiles_step(due, count, neighbours, chunks, parity, zero, masks, changes, generation, mode, rule, reports);   \
    }
SPECIALISED(tiles_step_life, MODE_LIFE)
SPECIALISED(tiles_step_counts, MODE_COUNTS)
SPECIALISED(tiles_step_gates, MODE_GATES)
#undef SPECIALISED

#ifndef TESSERA_TERNARY
void tessera_tiles_step_ternary(const int32_t *due, size_t count, const int32_t *neighbours, uint64_t *const *chunks,
                                int parity, const uint64_t *zero, const uint64_t *const *masks,
                                tessera_tile_changes *changes, uint64_t generation, const tessera_rule *rule, int avx2,
                                uint32_t *reports);
#endif

void tessera_tiles_step(const int32_t *due, size_t count, const int32_t *neighbours, uint64_t *const *chunks,
                        int parity, const uint64_t *zero, const uint64_t *const *masks, tessera_tile_changes *changes,
                        uint64_t generation, const tessera_rule *rule, int avx2, uint32_t *reports) {
#ifndef TESSERA_TERNARY
    if (avx2 && (!rule->compiled || rule->code512) && tessera_cpu_has_ternary())
        return tessera_tiles_step_ternary(due, count, neighbours, chunks, parity, zero, masks, changes, generation, rule,
                                          avx2, reports);
#endif
    if (!avx2) {
        tiles_step_portable(due, count, neighbours, chunks, parity, zero, masks, changes, generation, rule, reports);
    } else if (rule->compiled) {
        tiles_step_gates(due, count, neighbours, chunks, parity, zero, masks, changes, generation, rule, reports);
    } else if (tessera_is_life(rule)) {
        tiles_step_life(due, count, neighbours, chunks, parity, zero, masks, changes, generation, rule, reports);
    } else {
        tiles_step_counts(due, count, neighbours, chunks, parity, zero, masks, changes, generation, rule, reports);
    }
}

#elif !defined(TESSERA_TERNARY)

void tessera_tiles_step(const int32_t *due, size_t count, const int32_t *neighbours, uint64_t *const *chunks,
                        int parity, const uint64_t *zero, const uint64_t *const *masks, tessera_tile_changes *changes,
                        uint64_t generation, const tessera_rule *rule, int avx2, uint32_t *reports) {
    (void)avx2;
    tiles_step_portable(due, count, neighbours, chunks, parity, zero, masks, changes, generation, rule, reports);
}

#endif
