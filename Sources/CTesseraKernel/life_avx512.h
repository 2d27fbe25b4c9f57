// life_avx2.h's cells and sums 512 cells a vector, and life_ternary.h's next state at
// that width: for the dense step (step_avx512.c) and the sparse plane's tiles
// (tile_step.c's AVX-512 compile), which both include life_avx2.h first.
#ifndef TESSERA_LIFE_AVX512_H
#define TESSERA_LIFE_AVX512_H

#define Z512 __attribute__((target("avx512f"), always_inline)) static inline

// A row's sums as life_avx2.h's `row_sums` holds them: west + centre + east as two bits
// (for the rows above and below a cell), west + east (for its own row), and the row.
typedef struct { __m512i three0, three1, two0, two1, centre; } sums512;

// The west, centre and east cells of the cells `c`, as `cells_of`: bit 63 of each word
// of `before` is the cell west of bit 0, bit 0 of `after` east of bit 63.
Z512 void cells512_of(__m512i before, __m512i c, __m512i after, __m512i out[ROW_CELLS]) {
    out[0] = _mm512_or_si512(_mm512_slli_epi64(c, 1), _mm512_srli_epi64(before, 63));
    out[1] = c;
    out[2] = _mm512_or_si512(_mm512_srli_epi64(c, 1), _mm512_slli_epi64(after, 63));
}

// The sums of the cells `c` (neighbours as for `cells512_of`), as `sums_of`.
Z512 sums512 sums512_of(__m512i before, __m512i c, __m512i after) {
    __m512i cells[ROW_CELLS];
    cells512_of(before, c, after, cells);
    __m512i west = cells[0], east = cells[2];
    return (sums512){.three0 = _mm512_ternarylogic_epi64(west, c, east, 0x96),  // exclusive or of three
                     .three1 = _mm512_ternarylogic_epi64(west, c, east, 0xE8),  // majority of three
                     .two0 = _mm512_xor_si512(west, east),
                     .two1 = _mm512_and_si512(west, east),
                     .centre = c};
}

#define LIFE_V __m512i
#define LIFE_NEXT next_ternary512
#define LIFE_FUNCTION Z512
#define LIFE_TERNARY _mm512_ternarylogic_epi64
#define LIFE_XOR _mm512_xor_si512
#define LIFE_ANDNOT _mm512_andnot_si512
#define LIFE_ZERO _mm512_setzero_si512
#include "life_ternary.h"

// The next state of the cells at `here` from the sums above, at and below them.
Z512 __m512i next512(const sums512 *above, const sums512 *here, const sums512 *below, int mode,
                     const tessera_rule *rule) {
    return next_ternary512(above->three0, here->two0, below->three0, above->three1, here->two1, below->three1,
                           here->centre, mode, rule);
}

#endif
