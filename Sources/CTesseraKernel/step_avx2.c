// The innermost loop of the Life step, in AVX2. Swift's SIMD types compile to SSE2
// without a -target-cpu flag (about half this speed); a per-function target attribute
// plus a run-time CPU check keeps the binary portable. Everything else is Swift.
#include "CTesseraKernel.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_X86 1
#endif

#ifdef TESSERA_X86

int tessera_cpu_has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

#define AVX2 __attribute__((target("avx2"), always_inline)) static inline

// Horizontal sum of each cell with its west and east neighbours, as a 2-bit number
// (sum0 low bit, sum1 high bit). The unaligned loads one word either side carry the
// edge bit across words.
AVX2 void horizontal(const uint64_t *p, __m256i *sum0, __m256i *sum1, __m256i *centre) {
    __m256i c = _mm256_load_si256((const __m256i *)p);
    __m256i before = _mm256_loadu_si256((const __m256i *)(p - 1));
    __m256i after = _mm256_loadu_si256((const __m256i *)(p + 1));
    __m256i west = _mm256_or_si256(_mm256_slli_epi64(c, 1), _mm256_srli_epi64(before, 63));
    __m256i east = _mm256_or_si256(_mm256_srli_epi64(c, 1), _mm256_slli_epi64(after, 63));
    __m256i we = _mm256_xor_si256(west, east);
    *sum0 = _mm256_xor_si256(we, c);
    *sum1 = _mm256_or_si256(_mm256_and_si256(west, east), _mm256_and_si256(we, c));
    *centre = c;
}

AVX2 __m256i majority(__m256i a, __m256i b, __m256i c) {
    return _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(c, _mm256_xor_si256(a, b)));
}

// Next state from three stacked 2-bit row sums (the 3x3 total including the centre).
AVX2 __m256i next_state(__m256i a0, __m256i a1, __m256i b0, __m256i b1, __m256i c0,
                        __m256i c1, __m256i alive, int life, uint16_t birth,
                        uint16_t survive) {
    __m256i t0 = _mm256_xor_si256(_mm256_xor_si256(a0, b0), c0);
    __m256i k = majority(a0, b0, c0);
    __m256i p = _mm256_xor_si256(_mm256_xor_si256(a1, b1), c1);
    __m256i q = majority(a1, b1, c1);
    __m256i t1 = _mm256_xor_si256(p, k);
    __m256i carry = _mm256_and_si256(p, k);
    __m256i t2 = _mm256_xor_si256(q, carry);
    __m256i t3 = _mm256_and_si256(q, carry);
    if (life) {
        // total 3: born or survives; total 4: survives (the centre is one of the four).
        __m256i low3 = _mm256_andnot_si256(_mm256_or_si256(t2, t3), _mm256_and_si256(t0, t1));
        __m256i is4 = _mm256_andnot_si256(_mm256_or_si256(_mm256_or_si256(t0, t1), t3), t2);
        return _mm256_or_si256(low3, _mm256_and_si256(alive, is4));
    }
    __m256i ones = _mm256_set1_epi64x(-1);
    __m256i n0 = _mm256_xor_si256(t0, ones), n1 = _mm256_xor_si256(t1, ones);
    __m256i n2 = _mm256_xor_si256(t2, ones), n3 = _mm256_xor_si256(t3, ones);
    __m256i low[4] = {_mm256_and_si256(n0, n1), _mm256_and_si256(t0, n1),
                      _mm256_and_si256(n0, t1), _mm256_and_si256(t0, t1)};
    __m256i high[3] = {_mm256_and_si256(n2, n3), _mm256_and_si256(t2, n3),
                       _mm256_and_si256(n2, t3)};
    __m256i born = _mm256_setzero_si256(), stays = _mm256_setzero_si256();
    for (int total = 0; total <= 9; total++) {
        __m256i is = _mm256_and_si256(low[total & 3], high[total >> 2]);
        if (birth >> total & 1) born = _mm256_or_si256(born, is);
        // A live cell's total counts itself: total-1 neighbours.
        if (total > 0 && (survive >> (total - 1) & 1)) stays = _mm256_or_si256(stays, is);
    }
    return _mm256_or_si256(_mm256_andnot_si256(alive, born), _mm256_and_si256(alive, stays));
}

// Walks down one 4-word column at a time so the row sums above and at the current row
// stay in registers: each source row's sum is computed once.
AVX2 void step_columns(const uint64_t *src, uint64_t *dst, size_t stride, size_t words,
                       size_t rowBegin, size_t rowEnd, int life, uint16_t birth,
                       uint16_t survive) {
    for (size_t j = 0; j < words; j += 4) {
        __m256i a0, a1, b0, b1, c0, c1, above, alive, below;
        horizontal(src + (rowBegin - 1) * stride + j, &a0, &a1, &above);
        horizontal(src + rowBegin * stride + j, &b0, &b1, &alive);
        for (size_t r = rowBegin; r < rowEnd; r++) {
            horizontal(src + (r + 1) * stride + j, &c0, &c1, &below);
            __m256i next = next_state(a0, a1, b0, b1, c0, c1, alive, life, birth, survive);
            _mm256_store_si256((__m256i *)(dst + r * stride + j), next);
            a0 = b0; a1 = b1; b0 = c0; b1 = c1; alive = below;
        }
    }
}

__attribute__((target("avx2"))) static void step_life(const uint64_t *src, uint64_t *dst,
                                                      size_t stride, size_t words,
                                                      size_t rowBegin, size_t rowEnd) {
    step_columns(src, dst, stride, words, rowBegin, rowEnd, 1, 0, 0);
}

__attribute__((target("avx2"))) static void step_any(const uint64_t *src, uint64_t *dst,
                                                     size_t stride, size_t words,
                                                     size_t rowBegin, size_t rowEnd,
                                                     uint16_t birth, uint16_t survive) {
    step_columns(src, dst, stride, words, rowBegin, rowEnd, 0, birth, survive);
}

int tessera_step_rows_avx2(const uint64_t *src, uint64_t *dst, size_t stride, size_t words,
                           size_t rowBegin, size_t rowEnd, uint16_t birth, uint16_t survive) {
    if (rowBegin >= rowEnd) return 1;
    if (birth == (1u << 3) && survive == ((1u << 2) | (1u << 3)))
        step_life(src, dst, stride, words, rowBegin, rowEnd);
    else
        step_any(src, dst, stride, words, rowBegin, rowEnd, birth, survive);
    return 1;
}

#else

int tessera_cpu_has_avx2(void) { return 0; }

int tessera_step_rows_avx2(const uint64_t *src, uint64_t *dst, size_t stride, size_t words,
                           size_t rowBegin, size_t rowEnd, uint16_t birth, uint16_t survive) {
    (void)src; (void)dst; (void)stride; (void)words; (void)rowBegin; (void)rowEnd;
    (void)birth; (void)survive;
    return 0;
}

#endif
