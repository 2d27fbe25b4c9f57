// The AVX2 pieces both Life steps share (the dense kernel's and the sparse plane's
// tiles'): the row sums they carry and the rule applied to them. Included by the .c
// files of this target only, inside their x86 sections.
#ifndef TESSERA_LIFE_AVX2_H
#define TESSERA_LIFE_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#define AVX2 __attribute__((target("avx2"), always_inline)) static inline

// Horizontal sums of a row as 2-bit numbers: `three` = west + centre + east (for the rows
// above and below a cell), `two` = west + east (for the cell's own row), and the row.
typedef struct { __m256i three0, three1, two0, two1, centre; } row_sums;

// The sums of the cells `c`, whose west neighbours' words are `before` (bit 63 of each
// is the cell west of bit 0) and east neighbours' `after` (bit 0 east of bit 63).
AVX2 row_sums sums_of(__m256i before, __m256i c, __m256i after) {
    row_sums s;
    __m256i west = _mm256_or_si256(_mm256_slli_epi64(c, 1), _mm256_srli_epi64(before, 63));
    __m256i east = _mm256_or_si256(_mm256_srli_epi64(c, 1), _mm256_slli_epi64(after, 63));
    s.two0 = _mm256_xor_si256(west, east);
    s.two1 = _mm256_and_si256(west, east);
    s.three0 = _mm256_xor_si256(s.two0, c);
    s.three1 = _mm256_or_si256(s.two1, _mm256_and_si256(s.two0, c));
    s.centre = c;
    return s;
}

// Next state from the sums above, beside and below: the eight-neighbour count n is
// added with full adders. Life needs only n's low two bits and whether n ≥ 4:
// alive next = (n | alive) == 3.
AVX2 __m256i next_state(const row_sums *above, const row_sums *here, const row_sums *below,
                        int life, uint16_t birth, uint16_t survive) {
    __m256i a0 = above->three0, b0 = here->two0, c0 = below->three0;
    __m256i a1 = above->three1, b1 = here->two1, c1 = below->three1;
    __m256i x0 = _mm256_xor_si256(a0, b0), x1 = _mm256_xor_si256(a1, b1);
    __m256i n0 = _mm256_xor_si256(x0, c0);
    __m256i k = _mm256_or_si256(_mm256_and_si256(a0, b0), _mm256_and_si256(x0, c0));
    __m256i p = _mm256_xor_si256(x1, c1);
    __m256i q = _mm256_or_si256(_mm256_and_si256(a1, b1), _mm256_and_si256(x1, c1));
    __m256i n1 = _mm256_xor_si256(p, k);
    __m256i carry = _mm256_and_si256(p, k);
    __m256i alive = here->centre;
    if (life) {
        __m256i atLeast4 = _mm256_or_si256(q, carry);
        return _mm256_andnot_si256(atLeast4, _mm256_and_si256(n1, _mm256_or_si256(n0, alive)));
    }
    __m256i n2 = _mm256_xor_si256(q, carry), n3 = _mm256_and_si256(q, carry);
    __m256i ones = _mm256_set1_epi64x(-1);
    __m256i bits[4][2] = {{_mm256_xor_si256(n0, ones), n0}, {_mm256_xor_si256(n1, ones), n1},
                          {_mm256_xor_si256(n2, ones), n2}, {_mm256_xor_si256(n3, ones), n3}};
    __m256i born = _mm256_setzero_si256(), stays = _mm256_setzero_si256();
    for (int n = 0; n <= 8; n++) {
        if (!((birth | survive) >> n & 1)) continue;
        __m256i is = _mm256_and_si256(_mm256_and_si256(bits[0][n & 1], bits[1][n >> 1 & 1]),
                                      _mm256_and_si256(bits[2][n >> 2 & 1], bits[3][n >> 3 & 1]));
        if (birth >> n & 1) born = _mm256_or_si256(born, is);
        if (survive >> n & 1) stays = _mm256_or_si256(stays, is);
    }
    return _mm256_or_si256(_mm256_andnot_si256(alive, born), _mm256_and_si256(alive, stays));
}

#endif
