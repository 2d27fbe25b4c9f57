// One generation of Larger than Life on the (2r+1)² box, range up to 127, in AVX2: each
// column's count over the 2r+1 rows around the current row is a byte (at most 255) kept
// as the row moves down, one row's bits added and one's taken away, 32 columns at a
// time; a row's counts are window sums of those over 2r+1 columns, in bytes up to range
// 7 ((2r+1)² ≤ 225), else in 16 bits (at most 255² = 65025) as differences of prefix
// sums; the rule is two unsigned compares of 32 or 16 counts at a time, packed back to
// bits by a byte mask.
#include "CTesseraKernel.h"
#include "ltl_rows.h"

#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2"))) static
#define AVX2_INLINE __attribute__((target("avx2"), always_inline)) static inline

// Bits x .. x+31 of a row (x a multiple of 32), none past `width`.
static inline uint32_t bits32(const uint64_t *row, int x, int width) {
    uint32_t bits = (uint32_t)(row[x >> 6] >> (x & 63));
    return width - x >= 32 ? bits : bits & ((1u << (width - x)) - 1);
}

// 32 bits as 32 bytes, 0xFF where a bit is set.
AVX2_INLINE __m256i byte_mask(uint32_t bits) {
    const __m256i spread = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3,
                                            3, 3, 3, 3);
    const __m256i select = _mm256_set1_epi64x((long long)0x8040201008040201ull);
    __m256i v = _mm256_shuffle_epi8(_mm256_set1_epi32((int)bits), spread);
    return _mm256_cmpeq_epi8(_mm256_and_si256(v, select), select);
}

// 16 bits as 16 lanes of 16 bits, 0xFFFF where a bit is set.
AVX2_INLINE __m256i word_mask(uint32_t bits) {
    const __m256i select = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, (short)32768);
    return _mm256_cmpeq_epi16(_mm256_and_si256(_mm256_set1_epi16((short)bits), select), select);
}

// Columns' counts (`columns[x]`, x < width) with row `add`'s cells added and row
// `remove`'s taken away (either NULL: none; the test outside the loop).
AVX2_INLINE void move_rows_of(uint8_t *columns, const uint64_t *add, const uint64_t *remove, int width, const int adds,
                              const int removes) {
    for (int x = 0; x < width; x += 32) {
        __m256i c = _mm256_loadu_si256((const __m256i *)(columns + x));
        if (adds) c = _mm256_sub_epi8(c, byte_mask(bits32(add, x, width)));
        if (removes) c = _mm256_add_epi8(c, byte_mask(bits32(remove, x, width)));
        _mm256_storeu_si256((__m256i *)(columns + x), c);
    }
}

AVX2 void move_rows(uint8_t *columns, const uint64_t *add, const uint64_t *remove, int width) {
    if (add && remove) move_rows_of(columns, add, remove, width, 1, 1);
    else if (add) move_rows_of(columns, add, remove, width, 1, 0);
    else if (remove) move_rows_of(columns, add, remove, width, 0, 1);
}

// prefix[i] = the sum of columns[0 .. i-1], i ≤ count (count a multiple of 16), modulo
// 2^16: a window's sum is the difference of two, exact while it is under 2^16. Sixteen
// at a time: a scan in each 128-bit half, the low half's total added to the high half,
// and the total so far to both.
AVX2 void prefix_sums(const uint8_t *columns, int count, uint16_t *prefix) {
    const __m256i lastWord = _mm256_setr_epi8(14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15,
                                              14, 15, 14, 15, 14, 15, 14, 15, 14, 15, 14, 15);
    __m256i total = _mm256_setzero_si256();
    prefix[0] = 0;
    for (int i = 0; i < count; i += 16) {
        __m256i v = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(columns + i)));
        v = _mm256_add_epi16(v, _mm256_slli_si256(v, 2));
        v = _mm256_add_epi16(v, _mm256_slli_si256(v, 4));
        v = _mm256_add_epi16(v, _mm256_slli_si256(v, 8));
        __m256i halves = _mm256_shuffle_epi8(v, lastWord);  // each half's total, across it
        v = _mm256_add_epi16(v, _mm256_permute2x128_si256(halves, halves, 0x08));
        v = _mm256_add_epi16(v, total);
        _mm256_storeu_si256((__m256i *)(prefix + 1 + i), v);
        total = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, lastWord), 0xFF);
    }
}

// Row `out` of the next generation from the row's cells and their counts, 32 at a time.
AVX2 void decide(const tessera_ltl_rule *rule, const uint64_t *row, const uint16_t *prefix, int width, uint64_t *out) {
    int n = 2 * rule->range + 1;
    const __m256i birthLow = _mm256_set1_epi16((short)rule->birthLow),
                  birthSpan = _mm256_set1_epi16((short)(rule->birthHigh - rule->birthLow)),
                  surviveLow = _mm256_set1_epi16((short)rule->surviveLow),
                  surviveSpan = _mm256_set1_epi16((short)(rule->surviveHigh - rule->surviveLow));
    int itself = rule->countsItself;
    memset(out, 0, (size_t)(width + 63) / 64 * 8);
    for (int x = 0; x < width; x += 32) {
        uint32_t bits = bits32(row, x, width);
        __m256i decided[2];
        for (int half = 0; half < 2; half++) {
            __m256i alive = word_mask(bits >> (16 * half) & 0xFFFF);
            const uint16_t *at = prefix + x + 16 * half;
            __m256i count = _mm256_sub_epi16(_mm256_loadu_si256((const __m256i *)(at + n)), _mm256_loadu_si256((const __m256i *)at));
            if (!itself) count = _mm256_add_epi16(count, alive);  // alive is -1 where it counts itself
            __m256i b = _mm256_sub_epi16(count, birthLow), s = _mm256_sub_epi16(count, surviveLow);
            __m256i born = _mm256_cmpeq_epi16(_mm256_min_epu16(b, birthSpan), b);
            __m256i stays = _mm256_cmpeq_epi16(_mm256_min_epu16(s, surviveSpan), s);
            decided[half] = _mm256_blendv_epi8(born, stays, alive);
        }
        // Lanes of -1 or 0 packed to bytes (per 128-bit half, so the quarters reordered).
        __m256i bytes = _mm256_permute4x64_epi64(_mm256_packs_epi16(decided[0], decided[1]), 0xD8);
        uint32_t next = (uint32_t)_mm256_movemask_epi8(bytes);
        if (width - x < 32) next &= (1u << (width - x)) - 1;
        out[x >> 6] |= (uint64_t)next << (x & 63);
    }
}

// A range of 7 or less, whose counts fit a byte ((2r+1)² ≤ 225): 32 cells from column x
// on, each count summed from the columns' bytes as it is decided, never stored. The
// columns are read 32-byte aligned, as whole vectors the row before stored (the vector
// at x and those either side), and the windows made in registers, rather than loaded
// unaligned across those stores.
typedef struct { __m256i birthLow, birthSpan, surviveLow, surviveSpan; int itself; } byte_rule;

AVX2_INLINE uint32_t decide32(const byte_rule *rule, const uint8_t *columns, uint32_t bits, const int r) {
    __m256i before = _mm256_load_si256((const __m256i *)(columns - 32)), here = _mm256_load_si256((const __m256i *)columns),
            after = _mm256_load_si256((const __m256i *)(columns + 32));
    // Bytes 16 on from `here`, and 16 before it: what the windows straddle.
    __m256i east = _mm256_permute2x128_si256(here, after, 0x21), west = _mm256_permute2x128_si256(before, here, 0x21);
    __m256i count = here;
#define SIDES(j)                                                                       \
    if (j <= r) {                                                                      \
        count = _mm256_add_epi8(count, _mm256_alignr_epi8(east, here, j));             \
        count = _mm256_add_epi8(count, _mm256_alignr_epi8(here, west, 16 - j));        \
    }
    SIDES(1) SIDES(2) SIDES(3) SIDES(4) SIDES(5) SIDES(6) SIDES(7)
#undef SIDES
    __m256i alive = byte_mask(bits);
    if (!rule->itself) count = _mm256_add_epi8(count, alive);  // alive is -1 where it counts itself
    __m256i b = _mm256_sub_epi8(count, rule->birthLow), s = _mm256_sub_epi8(count, rule->surviveLow);
    __m256i born = _mm256_cmpeq_epi8(_mm256_min_epu8(b, rule->birthSpan), b);
    __m256i stays = _mm256_cmpeq_epi8(_mm256_min_epu8(s, rule->surviveSpan), s);
    return (uint32_t)_mm256_movemask_epi8(_mm256_blendv_epi8(born, stays, alive));
}

// Row `out` of the next generation, 64 cells a word, for range `r` (a constant in each
// copy, so that the sums unroll).
AVX2_INLINE void decide_in_bytes_r(const byte_rule *rule, const uint64_t *row, const uint8_t *columns, int width, uint64_t *out,
                                   const int r) {
    for (int x = 0; x < width; x += 64) {
        uint64_t bits = row[x >> 6], next = decide32(rule, columns + x, (uint32_t)bits, r);
        if (width - x > 32) next |= (uint64_t)decide32(rule, columns + x + 32, (uint32_t)(bits >> 32), r) << 32;
        out[x >> 6] = width - x >= 64 ? next : next & ((1ull << (width - x)) - 1);
    }
}

AVX2 void decide_in_bytes(const tessera_ltl_rule *rule, const uint64_t *row, const uint8_t *columns, int width, uint64_t *out) {
    byte_rule bytes = {_mm256_set1_epi8((char)rule->birthLow), _mm256_set1_epi8((char)(rule->birthHigh - rule->birthLow)),
                       _mm256_set1_epi8((char)rule->surviveLow), _mm256_set1_epi8((char)(rule->surviveHigh - rule->surviveLow)),
                       rule->countsItself};
    switch (rule->range) {
#define RANGE(r) \
    case r: decide_in_bytes_r(&bytes, row, columns, width, out, r); break;
        RANGE(1) RANGE(2) RANGE(3) RANGE(4) RANGE(5) RANGE(6) RANGE(7)
#undef RANGE
    }
}

// Each column's count a byte at `columns[x]`, 32-byte aligned, with at least r and 32
// bytes of margin either side: the wrapped columns on a torus, 0 on a plane, and 0
// past them. A row's counts are summed in bytes up to range 7, else taken from the
// columns' prefix sums in 16 bits (from column -r on). Rows with none live about them
// are skipped (`ltl_window`).
AVX2 int step(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width, int height, int wraps,
              int firstRow, int endRow) {
    int r = rule->range, padded = (width + 31) / 32 * 32, margin = (r + 31) / 32 * 32;
    int scanned = (padded + 2 * r + 15) / 16 * 16;
    size_t bytes = (size_t)padded + 2 * (size_t)margin + 32;
    uint8_t *memory = aligned_alloc(32, bytes);
    uint16_t *prefix = r > 7 ? malloc(((size_t)scanned + 16) * 2) : NULL;
    int *wrapped = ltl_wrapped_columns(r, width);
    ltl_window window = ltl_window_at(src, stride, width, height, wraps, firstRow, endRow, r);
    if (!memory || (r > 7 && !prefix) || !wrapped || !window.occupied) {
        free(memory), free(prefix), free(wrapped), free(window.occupied);
        return 0;
    }
    memset(memory, 0, bytes);
    uint8_t *columns = memory + margin;
    for (int y = firstRow - r; y <= firstRow + r; y++) {
        const uint64_t *row = ltl_window_row(&window, y);
        if (row) move_rows(columns, row, NULL, width);
    }
    for (int y = firstRow; y < endRow; y++) {
        const uint64_t *arriving = ltl_window_row(&window, y + r + 1), *leaving = ltl_window_row(&window, y - r);
        if (window.live == 0 && rule->birthLow > 0) {
            memset(dst + (size_t)y * stride, 0, (size_t)(width + 63) / 64 * 8);
        } else {
            if (wraps) ltl_wrap_margins(columns, width, r, wrapped);
            if (r <= 7) {
                decide_in_bytes(rule, src + (size_t)y * stride, columns, width, dst + (size_t)y * stride);
            } else {
                prefix_sums(columns - r, scanned, prefix);
                decide(rule, src + (size_t)y * stride, prefix, width, dst + (size_t)y * stride);
            }
        }
        move_rows(columns, arriving, leaving, width);
        ltl_window_move(&window, arriving, leaving);
    }
    free(memory), free(prefix), free(wrapped), free(window.occupied);
    return 1;
}

int tessera_ltl_box_step_avx2(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                              int height, int wraps, int firstRow, int endRow) {
    return step(rule, src, dst, stride, width, height, wraps, firstRow, endRow);
}

#else

int tessera_ltl_box_step_avx2(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                              int height, int wraps, int firstRow, int endRow) {
    (void)rule, (void)src, (void)dst, (void)stride, (void)width, (void)height, (void)wraps, (void)firstRow, (void)endRow;
    return 0;
}

#endif
