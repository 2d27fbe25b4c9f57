// A soup's row of cells (`Soup.cells`): cell c alive where SplitMix64's finaliser of
// rowKey ^ (x + c), plus its increment, is below the density's threshold in its top 53
// bits. A hash a cell, so every tiling makes the same cells; in Swift, a cell at a time,
// making an 8192² soup took longer than stepping it 1000 generations. With AVX-512 (DQ:
// 64-bit multiplies) eight cells' hashes go at once.
#include "CTesseraKernel.h"

#define GOLDEN 0x9E3779B97F4A7C15ull
#define MIX1 0xBF58476D1CE4E5B9ull
#define MIX2 0x94D049BB133111EBull

static inline uint64_t finalise(uint64_t z) {
    z = (z ^ z >> 30) * MIX1;
    z = (z ^ z >> 27) * MIX2;
    return z ^ z >> 31;
}

static void soup_row_scalar(uint64_t rowKey, int64_t x, size_t width, uint64_t threshold, uint64_t *words) {
    for (size_t w = 0; w * 64 < width; w++) {
        uint64_t word = 0;
        size_t end = width - w * 64 < 64 ? width - w * 64 : 64;
        for (size_t b = 0; b < end; b++) {
            uint64_t key = finalise((rowKey ^ ((uint64_t)x + w * 64 + b)) + GOLDEN);
            word |= (uint64_t)(key >> 11 < threshold) << b;
        }
        words[w] = word;
    }
}

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

__attribute__((target("avx512f,avx512dq"))) static void soup_row_avx512(uint64_t rowKey, int64_t x, size_t width,
                                                                         uint64_t threshold, uint64_t *words) {
    const __m512i key = _mm512_set1_epi64((long long)rowKey), golden = _mm512_set1_epi64((long long)GOLDEN);
    const __m512i mix1 = _mm512_set1_epi64((long long)MIX1), mix2 = _mm512_set1_epi64((long long)MIX2);
    const __m512i below = _mm512_set1_epi64((long long)threshold);
    __m512i column = _mm512_add_epi64(_mm512_set1_epi64((long long)x), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    const __m512i eight = _mm512_set1_epi64(8);
    for (size_t w = 0; w * 64 < width; w++) {
        uint64_t word = 0;
        for (int part = 0; part < 8; part++) {
            __m512i z = _mm512_add_epi64(_mm512_xor_si512(key, column), golden);
            z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), mix1);
            z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), mix2);
            z = _mm512_srli_epi64(_mm512_xor_si512(z, _mm512_srli_epi64(z, 31)), 11);
            word |= (uint64_t)_mm512_cmplt_epu64_mask(z, below) << (8 * part);
            column = _mm512_add_epi64(column, eight);
        }
        // Past the row's end: no cells.
        if (width - w * 64 < 64) word &= (1ull << (width - w * 64)) - 1;
        words[w] = word;
    }
}
#endif

void tessera_soup_row(uint64_t rowKey, int64_t x, size_t width, uint64_t threshold, uint64_t *words) {
#if defined(__x86_64__) || defined(__i386__)
    if (tessera_cpu_has_avx512dq()) return soup_row_avx512(rowKey, x, width, threshold, words);
#endif
    soup_row_scalar(rowKey, x, width, threshold, words);
}

void tessera_soup_row_scalar(uint64_t rowKey, int64_t x, size_t width, uint64_t threshold, uint64_t *words) {
    soup_row_scalar(rowKey, x, width, threshold, words);
}
