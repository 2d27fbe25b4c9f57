// The dense step of Life and Life-like rules 512 cells a vector, for CPUs with AVX-512:
// step_avx2.c's walk (down a column of a band, each row's sums made once) and
// life_avx2.h's adders as vpternlogq, on 8-word columns. Where a vector operation costs
// the same at either width (Zen 5, recent Intel), a row costs the same operations for
// twice the cells. A row's last 4 words, where its words are not a multiple of 8, go
// through the 256-bit step. Compiled rules stay there too: their machine code steps two
// 256-bit vectors in one zmm register already (rule_jit.c).
#include "CTesseraKernel.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "rule_modes.h"

#define Z512 __attribute__((target("avx512f"), always_inline)) static inline

int tessera_step_rows_ternary(const uint64_t *src, uint64_t *dst, size_t stride, size_t words, size_t rowBegin,
                              size_t rowEnd, const tessera_rule *rule);

// A row's sums as in life_avx2.h's `row_sums`: west + centre + east as two bits (for
// the rows above and below a cell), west + east (for its own row), and the row.
typedef struct { __m512i three0, three1, two0, two1, centre; } sums512;

// The unaligned loads one word either side carry the edge bit across words.
Z512 sums512 horizontal512(const uint64_t *p) {
    __m512i before = _mm512_loadu_si512((const void *)(p - 1)), c = _mm512_loadu_si512((const void *)p);
    __m512i after = _mm512_loadu_si512((const void *)(p + 1));
    __m512i west = _mm512_or_si512(_mm512_slli_epi64(c, 1), _mm512_srli_epi64(before, 63));
    __m512i east = _mm512_or_si512(_mm512_srli_epi64(c, 1), _mm512_slli_epi64(after, 63));
    return (sums512){.three0 = _mm512_ternarylogic_epi64(west, c, east, 0x96),  // exclusive or of three
                     .three1 = _mm512_ternarylogic_epi64(west, c, east, 0xE8),  // majority of three
                     .two0 = _mm512_xor_si512(west, east),
                     .two1 = _mm512_and_si512(west, east),
                     .centre = c};
}

// The next state from the sums above, beside and below, the count n = n0 + 2(p + k) + 4q
// added as in life_avx2.h's `next_state`.
Z512 __m512i next512(const sums512 *above, const sums512 *here, const sums512 *below, int mode, const tessera_rule *rule) {
    __m512i a0 = above->three0, b0 = here->two0, c0 = below->three0;
    __m512i a1 = above->three1, b1 = here->two1, c1 = below->three1;
    __m512i alive = here->centre;
    __m512i n0 = _mm512_ternarylogic_epi64(a0, b0, c0, 0x96), k = _mm512_ternarylogic_epi64(a0, b0, c0, 0xE8);
    __m512i p = _mm512_ternarylogic_epi64(a1, b1, c1, 0x96), q = _mm512_ternarylogic_epi64(a1, b1, c1, 0xE8);
    __m512i n1 = _mm512_xor_si512(p, k);
    if (mode == MODE_LIFE) {
        __m512i atLeast4 = _mm512_ternarylogic_epi64(q, p, k, 0xF8);     // q | (p & k)
        __m512i three = _mm512_ternarylogic_epi64(n1, n0, alive, 0xE0);  // n1 & (n0 | alive)
        return _mm512_andnot_si512(atLeast4, three);
    }
    __m512i n2 = _mm512_ternarylogic_epi64(q, p, k, 0x78);  // q ^ (p & k)
    __m512i n3 = _mm512_ternarylogic_epi64(q, p, k, 0x80);  // q & p & k
    __m512i born = _mm512_setzero_si512(), stays = _mm512_setzero_si512();
    // For each count n the rule names: the cells whose count's low three bits are n's (one
    // minterm of n2, n1, n0), or'ed in where n3 is n's fourth bit: x | (low & n3) for 8,
    // x | (low & ~n3) below. (vpternlogq's table is an immediate: n a literal.)
#define COUNT(n)                                                                       \
    if ((rule->birth | rule->survive) >> (n) & 1) {                                    \
        __m512i low = _mm512_ternarylogic_epi64(n2, n1, n0, 1 << ((n) & 7));           \
        if (rule->birth >> (n) & 1)                                                    \
            born = _mm512_ternarylogic_epi64(born, low, n3, (n) == 8 ? 0xF8 : 0xF4);   \
        if (rule->survive >> (n) & 1)                                                  \
            stays = _mm512_ternarylogic_epi64(stays, low, n3, (n) == 8 ? 0xF8 : 0xF4); \
    }
    COUNT(0) COUNT(1) COUNT(2) COUNT(3) COUNT(4) COUNT(5) COUNT(6) COUNT(7) COUNT(8)
#undef COUNT
    return _mm512_ternarylogic_epi64(alive, stays, born, 0xCA);  // alive ? stays : born
}

// Bands of rows keep what one column walk touches in L1 for the next column, as in step_avx2.c.
enum { BAND_ROWS = 64, PREFETCH_WORDS = 16 };

Z512 void step_columns512(const uint64_t *src, uint64_t *dst, size_t stride, size_t words, size_t rowBegin,
                          size_t rowEnd, int mode, const tessera_rule *rule) {
    for (size_t band = rowBegin; band < rowEnd; band += BAND_ROWS) {
        size_t bandEnd = band + BAND_ROWS < rowEnd ? band + BAND_ROWS : rowEnd;
        for (size_t j = 0; j + 8 <= words; j += 8) {
            sums512 above = horizontal512(src + (band - 1) * stride + j);
            sums512 here = horizontal512(src + band * stride + j);
            for (size_t r = band; r < bandEnd; r++) {
                _mm_prefetch((const char *)(src + (r + 1) * stride + j + PREFETCH_WORDS), _MM_HINT_T0);
                sums512 below = horizontal512(src + (r + 1) * stride + j);
                _mm512_storeu_si512((void *)(dst + r * stride + j), next512(&above, &here, &below, mode, rule));
                above = here;
                here = below;
            }
        }
    }
}

__attribute__((target("avx512f"))) static void step_life512(const uint64_t *src, uint64_t *dst, size_t stride,
                                                             size_t words, size_t rowBegin, size_t rowEnd,
                                                             const tessera_rule *rule) {
    step_columns512(src, dst, stride, words, rowBegin, rowEnd, MODE_LIFE, rule);
}

__attribute__((target("avx512f"))) static void step_counts512(const uint64_t *src, uint64_t *dst, size_t stride,
                                                               size_t words, size_t rowBegin, size_t rowEnd,
                                                               const tessera_rule *rule) {
    step_columns512(src, dst, stride, words, rowBegin, rowEnd, MODE_COUNTS, rule);
}

int tessera_step_rows_avx512(const uint64_t *src, uint64_t *dst, size_t stride, size_t words, size_t rowBegin,
                             size_t rowEnd, const tessera_rule *rule) {
    if (rule->compiled || !tessera_cpu_has_ternary()) return 0;
    if (rowBegin >= rowEnd) return 1;
    if (tessera_is_life(rule)) step_life512(src, dst, stride, words, rowBegin, rowEnd, rule);
    else step_counts512(src, dst, stride, words, rowBegin, rowEnd, rule);
    if (words & 4) tessera_step_rows_ternary(src + (words - 4), dst + (words - 4), stride, 4, rowBegin, rowEnd, rule);
    return 1;
}

#else

int tessera_step_rows_avx512(const uint64_t *src, uint64_t *dst, size_t stride, size_t words, size_t rowBegin,
                             size_t rowEnd, const tessera_rule *rule) {
    (void)src; (void)dst; (void)stride; (void)words; (void)rowBegin; (void)rowEnd; (void)rule;
    return 0;
}

#endif
