// HashLife's base case: a 16x16 square of cells, stepped one, two or four generations,
// gives its centre 8x8. Called once per distinct square and step, it was a third of a
// methuselah's time as a loop over 16-bit rows; on x86-64 the whole square is two SSE2
// registers, a row a 16-bit lane (SSE2 is part of x86-64, so no CPU check), and a
// generation is some forty instructions. Other CPUs run the row loop.
#include "CTesseraKernel.h"

#if defined(__SSE2__)
#include <emmintrin.h>

typedef struct { __m128i lo, hi; } square;   // rows 0-7 and 8-15, row r in lane r % 8

// Eight-neighbour counts added with full adders, as the AVX2 kernel does: `a`/`c` are
// the rows above/below each row, west and east are the 16-bit lanes shifted, so
// nothing crosses from one row into the next. Edge rows and columns come out wrong,
// and the caller keeps only the centre.
static inline __m128i next_lanes(__m128i a, __m128i b, __m128i c, int life, uint16_t birth, uint16_t survive) {
    __m128i aw = _mm_slli_epi16(a, 1), ae = _mm_srli_epi16(a, 1);
    __m128i bw = _mm_slli_epi16(b, 1), be = _mm_srli_epi16(b, 1);
    __m128i cw = _mm_slli_epi16(c, 1), ce = _mm_srli_epi16(c, 1);
    __m128i awe = _mm_xor_si128(aw, ae), cwe = _mm_xor_si128(cw, ce);
    __m128i a0 = _mm_xor_si128(awe, a), a1 = _mm_or_si128(_mm_and_si128(aw, ae), _mm_and_si128(awe, a));
    __m128i c0 = _mm_xor_si128(cwe, c), c1 = _mm_or_si128(_mm_and_si128(cw, ce), _mm_and_si128(cwe, c));
    __m128i b0 = _mm_xor_si128(bw, be), b1 = _mm_and_si128(bw, be);
    __m128i x0 = _mm_xor_si128(a0, b0), x1 = _mm_xor_si128(a1, b1);
    __m128i n0 = _mm_xor_si128(x0, c0), k = _mm_or_si128(_mm_and_si128(a0, b0), _mm_and_si128(x0, c0));
    __m128i p = _mm_xor_si128(x1, c1), q = _mm_or_si128(_mm_and_si128(a1, b1), _mm_and_si128(x1, c1));
    __m128i n1 = _mm_xor_si128(p, k), carry = _mm_and_si128(p, k);
    if (life) return _mm_andnot_si128(_mm_or_si128(q, carry), _mm_and_si128(n1, _mm_or_si128(n0, b)));
    __m128i n2 = _mm_xor_si128(q, carry), n3 = _mm_and_si128(q, carry), ones = _mm_set1_epi32(-1);
    __m128i bits[4][2] = {{_mm_xor_si128(n0, ones), n0}, {_mm_xor_si128(n1, ones), n1},
                          {_mm_xor_si128(n2, ones), n2}, {_mm_xor_si128(n3, ones), n3}};
    __m128i born = _mm_setzero_si128(), stays = _mm_setzero_si128();
    for (int n = 0; n <= 8; n++) {
        if (!((birth | survive) >> n & 1)) continue;
        __m128i is = _mm_and_si128(_mm_and_si128(bits[0][n & 1], bits[1][n >> 1 & 1]),
                                   _mm_and_si128(bits[2][n >> 2 & 1], bits[3][n >> 3 & 1]));
        if (birth >> n & 1) born = _mm_or_si128(born, is);
        if (survive >> n & 1) stays = _mm_or_si128(stays, is);
    }
    return _mm_or_si128(_mm_andnot_si128(b, born), _mm_and_si128(b, stays));
}

static inline square step_square(square s, int life, uint16_t birth, uint16_t survive) {
    // Lane r of `above` holds row r - 1, of `below` row r + 1 (byte shifts move whole lanes).
    __m128i aboveLo = _mm_slli_si128(s.lo, 2), aboveHi = _mm_or_si128(_mm_slli_si128(s.hi, 2), _mm_srli_si128(s.lo, 14));
    __m128i belowLo = _mm_or_si128(_mm_srli_si128(s.lo, 2), _mm_slli_si128(s.hi, 14)), belowHi = _mm_srli_si128(s.hi, 2);
    square next = {next_lanes(aboveLo, s.lo, belowLo, life, birth, survive),
                   next_lanes(aboveHi, s.hi, belowHi, life, birth, survive)};
    return next;
}

uint64_t tessera_leaf_result(uint64_t nw, uint64_t ne, uint64_t sw, uint64_t se, int generations,
                             uint16_t birth, uint16_t survive) {
    // Byte r of a leaf is its row r: interleaved, west then east, they make the rows' lanes.
    square s = {_mm_unpacklo_epi8(_mm_cvtsi64_si128((long long)nw), _mm_cvtsi64_si128((long long)ne)),
                _mm_unpacklo_epi8(_mm_cvtsi64_si128((long long)sw), _mm_cvtsi64_si128((long long)se))};
    int life = birth == (1u << 3) && survive == ((1u << 2) | (1u << 3));
    for (int g = 0; g < generations; g++) s = life ? step_square(s, 1, birth, survive) : step_square(s, 0, birth, survive);
    // Columns 4-11 of every row as bytes, then rows 4-11.
    __m128i mask = _mm_set1_epi16(0xFF);
    __m128i bytes = _mm_packus_epi16(_mm_and_si128(_mm_srli_epi16(s.lo, 4), mask), _mm_and_si128(_mm_srli_epi16(s.hi, 4), mask));
    return (uint64_t)_mm_cvtsi128_si64(_mm_srli_si128(bytes, 4));
}

#else

// Next states of row `b` from the rows above (`a`) and below (`c`): the eight-neighbour
// count added with full adders, as the AVX2 kernel does. Bits past 16 are garbage the
// caller masks off; column edges are wrong, and the caller keeps only the centre.
static inline uint32_t next_row(uint32_t a, uint32_t b, uint32_t c, int life, uint16_t birth, uint16_t survive) {
    uint32_t aw = a << 1, ae = a >> 1, bw = b << 1, be = b >> 1, cw = c << 1, ce = c >> 1;
    // Two-bit sums: west + centre + east above and below, west + east beside.
    uint32_t a0 = aw ^ ae ^ a, a1 = (aw & ae) | ((aw ^ ae) & a);
    uint32_t c0 = cw ^ ce ^ c, c1 = (cw & ce) | ((cw ^ ce) & c);
    uint32_t b0 = bw ^ be, b1 = bw & be;
    uint32_t x0 = a0 ^ b0, x1 = a1 ^ b1;
    uint32_t n0 = x0 ^ c0, k = (a0 & b0) | (x0 & c0);
    uint32_t p = x1 ^ c1, q = (a1 & b1) | (x1 & c1);
    uint32_t n1 = p ^ k, carry = p & k;
    if (life) return ~(q | carry) & n1 & (n0 | b);
    uint32_t n2 = q ^ carry, n3 = q & carry;
    uint32_t bits[4][2] = {{~n0, n0}, {~n1, n1}, {~n2, n2}, {~n3, n3}};
    uint32_t born = 0, stays = 0;
    for (int n = 0; n <= 8; n++) {
        if (!((birth | survive) >> n & 1)) continue;
        uint32_t is = bits[0][n & 1] & bits[1][n >> 1 & 1] & bits[2][n >> 2 & 1] & bits[3][n >> 3 & 1];
        if (birth >> n & 1) born |= is;
        if (survive >> n & 1) stays |= is;
    }
    return (~b & born) | (b & stays);
}

static inline void step_rows(uint32_t rows[16], int generations, int life, uint16_t birth, uint16_t survive) {
    for (int g = 0; g < generations; g++) {
        uint32_t next[16];
        // Row g and 15 - g and beyond are no longer right after g generations; rows 1-14
        // are computed anyway, a fixed loop clang unrolls.
        for (int r = 1; r < 15; r++) next[r] = next_row(rows[r - 1], rows[r], rows[r + 1], life, birth, survive) & 0xFFFF;
        for (int r = 1; r < 15; r++) rows[r] = next[r];
    }
}

uint64_t tessera_leaf_result(uint64_t nw, uint64_t ne, uint64_t sw, uint64_t se, int generations,
                             uint16_t birth, uint16_t survive) {
    uint32_t rows[16];
    for (int r = 0; r < 8; r++) {
        rows[r] = (uint32_t)(nw >> (8 * r) & 0xFF) | (uint32_t)(ne >> (8 * r) & 0xFF) << 8;
        rows[r + 8] = (uint32_t)(sw >> (8 * r) & 0xFF) | (uint32_t)(se >> (8 * r) & 0xFF) << 8;
    }
    int life = birth == (1u << 3) && survive == ((1u << 2) | (1u << 3));
    if (life) step_rows(rows, generations, 1, birth, survive);
    else step_rows(rows, generations, 0, birth, survive);
    uint64_t centre = 0;
    for (int r = 0; r < 8; r++) centre |= (uint64_t)(rows[r + 4] >> 4 & 0xFF) << (8 * r);
    return centre;
}

#endif
