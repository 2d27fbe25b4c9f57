// Larger than Life on the (2r+1)² box up to range 127 in AVX-512 (BW): ltl_box_avx2.c's
// column counts in bytes, 64 columns a vector. A row's 64 cells are a mask register as
// they lie in memory, so a row is added to the columns' counts by one masked add, and
// the rule's two compares give the next row's word with nothing unpacked or packed. Up
// to range 7 a count fits a byte and is summed from the columns' bytes; past it, it is
// a difference of the columns' prefix sums in 16 bits, 32 at a time.
#include "CTesseraKernel.h"
#include "ltl_rows.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512bw"))) static
#define AVX512_INLINE __attribute__((target("avx512f,avx512bw"), always_inline)) static inline

typedef struct { __m512i birthLow, birthSpan, surviveLow, surviveSpan; int itself, quiet; } byte_rule;

// The columns of word `w` of a row `width` wide that lie on the board.
static inline uint64_t inside(int width, int w) { return width - 64 * w >= 64 ? ~0ull : (1ull << (width & 63)) - 1; }

// The columns' counts with row `arriving` added and row `leaving` taken away.
AVX512 void move_rows(uint8_t *columns, const uint64_t *arriving, const uint64_t *leaving, int width) {
    const __m512i one = _mm512_set1_epi8(1);
    for (int w = 0; w < (width + 63) / 64; w++) {
        __m512i c = _mm512_load_si512(columns + 64 * w);
        c = _mm512_mask_add_epi8(c, arriving[w] & inside(width, w), c, one);
        _mm512_store_si512(columns + 64 * w, _mm512_mask_sub_epi8(c, leaving[w] & inside(width, w), c, one));
    }
}

// The counts of the 64 cells at `here` for range `r`: each window of 2r+1 columns made in
// registers from the vectors either side (16 bytes on from `here` and 16 before it,
// what each 16-byte lane's windows straddle).
AVX512_INLINE __m512i counts_r(__m512i before, __m512i here, __m512i after, const int r) {
    __m512i east = _mm512_alignr_epi64(after, here, 2), west = _mm512_alignr_epi64(here, before, 6), count = here;
#define SIDES(j)                                                                                \
    if (j <= r)                                                                                 \
        count = _mm512_add_epi8(count, _mm512_add_epi8(_mm512_alignr_epi8(east, here, j),         \
                                                       _mm512_alignr_epi8(here, west, 16 - j)));
    SIDES(1) SIDES(2) SIDES(3) SIDES(4) SIDES(5) SIDES(6) SIDES(7)
#undef SIDES
    return count;
}

// One pass along a row for range `r` (a constant in each copy, so that the windows
// unroll): row `out` of the next generation from `row`'s cells and the columns' counts
// about it; and the columns' counts moved down a row, row `arriving` added and row
// `leaving` taken away. The pass reads each aligned vector of counts before it stores
// over it: unaligned loads would straddle the previous row's stores (or the margins'),
// which cannot forward to them.
AVX512_INLINE void pass_r(const byte_rule *rule, const uint64_t *row, const uint64_t *arriving, const uint64_t *leaving,
                          uint8_t *columns, int width, uint64_t *out, const int r) {
    const __m512i one = _mm512_set1_epi8(1);
    __m512i before = _mm512_load_si512(columns - 64), here = _mm512_load_si512(columns);
    for (int w = 0; w < (width + 63) / 64; w++) {
        __m512i after = _mm512_load_si512(columns + 64 * w + 64);
        uint64_t alive = row[w], next = 0, onBoard = inside(width, w);
        // No count and no cell: nothing is born where nothing is born from nothing, and
        // a settled soup is mostly such stretches.
        __m512i around = _mm512_or_si512(_mm512_or_si512(before, here), after);
        if (alive || !rule->quiet || _mm512_test_epi8_mask(around, around)) {
            __m512i count = counts_r(before, here, after, r);
            if (!rule->itself) count = _mm512_mask_sub_epi8(count, alive, count, one);
            uint64_t born = _mm512_cmple_epu8_mask(_mm512_sub_epi8(count, rule->birthLow), rule->birthSpan);
            uint64_t stays = _mm512_cmple_epu8_mask(_mm512_sub_epi8(count, rule->surviveLow), rule->surviveSpan);
            next = (alive & stays) | (~alive & born);
        }
        out[w] = next & onBoard;
        __m512i moved = _mm512_mask_add_epi8(here, arriving[w] & onBoard, here, one);
        _mm512_store_si512(columns + 64 * w, _mm512_mask_sub_epi8(moved, leaving[w] & onBoard, moved, one));
        before = here, here = after;
    }
}

AVX512 void pass(const tessera_ltl_rule *rule, const uint64_t *row, const uint64_t *arriving, const uint64_t *leaving,
                 uint8_t *columns, int width, uint64_t *out) {
    byte_rule bytes = {_mm512_set1_epi8((char)rule->birthLow), _mm512_set1_epi8((char)(rule->birthHigh - rule->birthLow)),
                       _mm512_set1_epi8((char)rule->surviveLow),
                       _mm512_set1_epi8((char)(rule->surviveHigh - rule->surviveLow)), rule->countsItself, rule->birthLow > 0};
    switch (rule->range) {
#define RANGE(r) \
    case r: pass_r(&bytes, row, arriving, leaving, columns, width, out, r); break;
        RANGE(1) RANGE(2) RANGE(3) RANGE(4) RANGE(5) RANGE(6) RANGE(7)
#undef RANGE
    }
}

// prefix[i] = the sum of columns[0 .. i-1], i ≤ count (count a multiple of 32), modulo
// 2^16: a window's sum is the difference of two, exact while it is under 2^16. 32 at a
// time: a scan within each 16-byte lane, then each lane given the totals of those below
// it and of the vectors before.
AVX512 void prefix_sums(const uint8_t *columns, int count, uint16_t *prefix) {
    const __m512i lastWord = _mm512_set1_epi64((long long)0x0F0E0F0E0F0E0F0Eull), last = _mm512_set1_epi16(31);
    const __m512i zero = _mm512_setzero_si512();
    __m512i total = zero;
    prefix[0] = 0;
    for (int i = 0; i < count; i += 32) {
        __m512i v = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(columns + i)));
        v = _mm512_add_epi16(v, _mm512_bslli_epi128(v, 2));
        v = _mm512_add_epi16(v, _mm512_bslli_epi128(v, 4));
        v = _mm512_add_epi16(v, _mm512_bslli_epi128(v, 8));
        // Each lane's total across it, moved up a lane: the lanes below each one, summed.
        __m512i below = _mm512_alignr_epi64(_mm512_shuffle_epi8(v, lastWord), zero, 6);
        below = _mm512_add_epi16(below, _mm512_alignr_epi64(below, zero, 6));
        below = _mm512_add_epi16(below, _mm512_alignr_epi64(below, zero, 4));
        v = _mm512_add_epi16(_mm512_add_epi16(v, below), total);
        _mm512_storeu_si512(prefix + 1 + i, v);
        total = _mm512_permutexvar_epi16(last, v);
    }
}

// Row `out` of the next generation from the row's cells and the prefix sums of the
// columns from -r on, 32 cells at a time.
AVX512 void decide(const tessera_ltl_rule *rule, const uint64_t *row, const uint16_t *prefix, int width, uint64_t *out) {
    const int n = 2 * rule->range + 1;
    const __m512i one = _mm512_set1_epi16(1), birthLow = _mm512_set1_epi16((short)rule->birthLow),
                  birthSpan = _mm512_set1_epi16((short)(rule->birthHigh - rule->birthLow)),
                  surviveLow = _mm512_set1_epi16((short)rule->surviveLow),
                  surviveSpan = _mm512_set1_epi16((short)(rule->surviveHigh - rule->surviveLow));
    for (int w = 0; w < (width + 63) / 64; w++) {
        uint64_t next = 0;
        for (int half = 0; half < 2; half++) {
            const uint16_t *at = prefix + 64 * w + 32 * half;
            uint32_t alive = (uint32_t)(row[w] >> (32 * half));
            __m512i count = _mm512_sub_epi16(_mm512_loadu_si512(at + n), _mm512_loadu_si512(at));
            if (!rule->countsItself) count = _mm512_mask_sub_epi16(count, alive, count, one);
            uint32_t born = _mm512_cmple_epu16_mask(_mm512_sub_epi16(count, birthLow), birthSpan);
            uint32_t stays = _mm512_cmple_epu16_mask(_mm512_sub_epi16(count, surviveLow), surviveSpan);
            next |= (uint64_t)((alive & stays) | (~alive & born)) << (32 * half);
        }
        out[w] = next & inside(width, w);
    }
}

// Each column's count a byte, 64-byte aligned, with a margin either side (64 bytes up to
// range 7, else room for the prefix sums' reads past the row): the wrapped columns on a
// torus, 0 on a plane, and 0 past them. Rows beyond a dead edge arrive and leave as a
// row of none; rows with none live about them are skipped (`ltl_window`).
int tessera_ltl_box_step_avx512(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                                int height, int wraps, int firstRow, int endRow) {
    int r = rule->range, words = (width + 63) / 64;
    if (r < 1 || r > 127) return 0;
    int margin = r <= 7 ? 64 : (r + 32 + 63) / 64 * 64, scanned = (width + 2 * r + 31) / 32 * 32;
    size_t bytes = 64 * (size_t)words + 2 * (size_t)margin;
    uint8_t *memory = aligned_alloc(64, bytes);
    uint16_t *prefix = r > 7 ? malloc(((size_t)scanned + 1) * sizeof *prefix) : NULL;
    uint64_t *none = calloc((size_t)words, sizeof *none);
    int *wrapped = ltl_wrapped_columns(r, width);
    ltl_window window = ltl_window_at(src, stride, width, height, wraps, firstRow, endRow, r);
    if (!memory || (r > 7 && !prefix) || !none || !wrapped || !window.occupied) {
        free(memory), free(prefix), free(none), free(wrapped), free(window.occupied);
        return 0;
    }
    memset(memory, 0, bytes);
    uint8_t *columns = memory + margin;
    for (int y = firstRow - r; y <= firstRow + r; y++) {
        const uint64_t *row = ltl_window_row(&window, y);
        if (row) move_rows(columns, row, none, width);
    }
    for (int y = firstRow; y < endRow; y++) {
        const uint64_t *arriving = ltl_window_row(&window, y + r + 1), *leaving = ltl_window_row(&window, y - r);
        if (window.live == 0 && rule->birthLow > 0) {
            memset(dst + (size_t)y * stride, 0, (size_t)words * sizeof *dst);
            if (arriving) move_rows(columns, arriving, none, width);
        } else {
            if (wraps) ltl_wrap_margins(columns, width, r, wrapped);
            const uint64_t *in = arriving ? arriving : none, *out = leaving ? leaving : none;
            if (r <= 7) {
                pass(rule, src + (size_t)y * stride, in, out, columns, width, dst + (size_t)y * stride);
            } else {
                prefix_sums(columns - r, scanned, prefix);
                decide(rule, src + (size_t)y * stride, prefix, width, dst + (size_t)y * stride);
                move_rows(columns, in, out, width);
            }
        }
        ltl_window_move(&window, arriving, leaving);
    }
    free(memory), free(prefix), free(none), free(wrapped), free(window.occupied);
    return 1;
}

#else

int tessera_ltl_box_step_avx512(const tessera_ltl_rule *rule, const uint64_t *src, uint64_t *dst, size_t stride, int width,
                                int height, int wraps, int firstRow, int endRow) {
    (void)rule, (void)src, (void)dst, (void)stride, (void)width, (void)height, (void)wraps, (void)firstRow, (void)endRow;
    return 0;
}

#endif
