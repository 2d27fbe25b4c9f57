// One generation of a Generations rule on a bounded board held as bit planes (plane k
// is bit k of every cell's state): the two-state rule of the live cells (state 1) gives
// births and survivals, and the planes are updated as a counter: dying cells count up,
// and the last state wraps to 0. The live cells of a band of rows are copied into a
// buffer laid out for the tiles' kernel (a torus's wrapped neighbours beside each row),
// which steps them 256 cells at a time where the CPU has AVX2, else 64 a word; the
// planes are updated 256 cells at a time.
#include "CTesseraKernel.h"
#include "rule_modes.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

// Four words of every plane: the loops over a row step 256 cells at a time (AVX2 where
// the CPU has it, the clones below; with AVX-512 (VL) the compiler joins the planes'
// ands, ors and exclusive ors three at a time into vpternlogq: 345/3/6 and
// 2367/3457/5 about 7% faster than the AVX2 clone alone). Read and written in place
// through the unaligned type, never passed to a function (a vector argument's ABI
// differs between the clones).
typedef uint64_t word4 __attribute__((vector_size(32), aligned(8)));
#define INLINE static inline __attribute__((always_inline))
#if defined(__x86_64__) && defined(__ELF__)
#define CLONES __attribute__((target_clones("avx512vl", "avx2", "default")))
#else
#define CLONES
#endif
#define AT4(p) (*(word4 *)(p))

// The planes' four words at `at` after a generation whose live cells' next state is
// `next` (1 where a cell is born or survives): born cells and survivors are 1, a live
// cell that does not survive 2, a dying cell counts on, and the last state wraps to 0.
INLINE void update4(const uint64_t *next, int states, const uint64_t *const *source, uint64_t *const *target, const int bits,
                    size_t at) {
    word4 plane[8], any = {0, 0, 0, 0}, step = AT4(next);
    for (int k = 0; k < bits; k++) any |= plane[k] = AT4(source[k] + at);
    word4 alive = plane[0];
    for (int k = 1; k < bits; k++) alive &= ~plane[k];
    // Dying cells count up: plane bits plus one where `dying`.
    word4 dying = any & ~alive, born = step & ~any, dies = alive & ~step, carry = dying;
    for (int k = 0; k < bits; k++) {
        word4 sum = plane[k] ^ carry;
        carry &= plane[k];
        plane[k] = sum;
    }
    // Those that reached `states` are dead.
    word4 last = dying;
    for (int k = 0; k < bits; k++) last &= states >> k & 1 ? plane[k] : ~plane[k];
    word4 counted = dying & ~last, one = born | (alive & step), none = {0, 0, 0, 0};
    for (int k = 0; k < bits; k++) AT4(target[k] + at) = (plane[k] & counted) | (k == 0 ? one : k == 1 ? dies : none);
}

// `update4` over the `words` words of a row at `at`, the last masked by `lastMask`.
INLINE void update_row_of(const uint64_t *next, int states, const uint64_t *const *source, uint64_t *const *target,
                          const int bits, size_t at, size_t words, uint64_t lastMask) {
    size_t whole = words / 4 * 4, rest = words - whole;
    for (size_t j = 0; j < whole; j += 4) update4(next + j, states, source, target, bits, at + j);
    if (rest) {
        // The last words, fewer than four, through copies four words long.
        uint64_t from[8][4] = {{0}}, to[8][4], step[4] = {0};
        const uint64_t *sources[8];
        uint64_t *targets[8];
        for (int k = 0; k < bits; k++) {
            memcpy(from[k], source[k] + at + whole, rest * 8);
            sources[k] = from[k], targets[k] = to[k];
        }
        memcpy(step, next + whole, rest * 8);
        update4(step, states, sources, targets, bits, 0);
        for (int k = 0; k < bits; k++) memcpy(target[k] + at + whole, to[k], rest * 8);
    }
    if (words)
        for (int k = 0; k < bits; k++) target[k][at + words - 1] &= lastMask;
}

// Each of a Generations board's plane counts (up to 256 states, 8 planes) as a
// constant, so that the loops over planes unroll into registers.
#define BY_BITS(call)                 \
    switch (bits) {                   \
    case 2: call(2); break;           \
    case 3: call(3); break;           \
    case 4: call(4); break;           \
    case 5: call(5); break;           \
    case 6: call(6); break;           \
    case 7: call(7); break;           \
    case 8: call(8); break;           \
    default: call(bits); break;       \
    }

// `update_row_of` over `rows` rows: row i's next state at `next + i * nextStride`, its
// planes at `at + i * stride`. A band's rows in one call, as a row of a 1024-cell board
// is four vectors, fewer than a call's set-up costs.
INLINE void update_rows_of(const uint64_t *next, size_t nextStride, int states, const uint64_t *const *source,
                           uint64_t *const *target, const int bits, size_t at, size_t stride, int rows, size_t words,
                           uint64_t lastMask) {
    for (int i = 0; i < rows; i++)
        update_row_of(next + (size_t)i * nextStride, states, source, target, bits, at + (size_t)i * stride, words, lastMask);
}

CLONES static void update_rows(const uint64_t *next, size_t nextStride, int states, const uint64_t *const *source,
                               uint64_t *const *target, int bits, size_t at, size_t stride, int rows, size_t words,
                               uint64_t lastMask) {
#define UPDATE(b) update_rows_of(next, nextStride, states, source, target, b, at, stride, rows, words, lastMask)
    BY_BITS(UPDATE)
#undef UPDATE
}

void tessera_states_after(const uint64_t *next, int states, const uint64_t *const *source, uint64_t *const *target, int bits,
                          size_t words) {
    update_rows(next, 0, states, source, target, bits, 0, 0, 1, words, ~0ull);
}

// The next state of 64 cells under a two-state rule, from their nine inputs.
static uint64_t two_state(const tessera_rule *rule, const uint64_t in[9]) {
    return rule->compiled ? tessera_rule_apply(rule, in) : tessera_counts_next_of(rule, in);
}

// Rows stepped at once: the band's live cells and their next state stay in cache between
// the copy, the step and the update.
enum { BAND_ROWS = 64 };

// The live cells (state 1) of row `y` (wrapped round a torus, none beyond a plane's
// edge) into `out`, `rowWords` (a multiple of 4) words with the bits past `width` 0.
// On a torus the cells beside the row's ends are set as they wrap: the last cell in the
// guard word's top bit before the row, the first at bit `width` (past the row's cells,
// or in the guard word after it), which the kernel reads as the ends' neighbours.
INLINE void live_words_of(const uint64_t *const *planes, const int bits, size_t stride, int width, int height, int y,
                          int wraps, uint64_t *out, size_t rowWords) {
    if (wraps) y = ((y % height) + height) % height;
    size_t words = ((size_t)width + 63) / 64;
    if (y < 0 || y >= height) words = 0;
    size_t whole = words / 4 * 4, at = (size_t)y * stride;
    for (size_t j = 0; j < whole; j += 4) {
        word4 alive = AT4(planes[0] + at + j);
        for (int k = 1; k < bits; k++) alive &= ~AT4(planes[k] + at + j);
        AT4(out + j) = alive;
    }
    for (size_t j = whole; j < words; j++) {
        uint64_t alive = planes[0][at + j];
        for (int k = 1; k < bits; k++) alive &= ~planes[k][at + j];
        out[j] = alive;
    }
    if (words && width % 64) out[words - 1] &= (1ull << (width % 64)) - 1;
    memset(out + words, 0, (rowWords - words) * 8);
    if (wraps) {
        out[-1] = (out[(width - 1) >> 6] >> ((width - 1) & 63) & 1) << 63;
        uint64_t first = out[0] & 1;
        if ((size_t)width == 64 * rowWords) out[rowWords] = first;
        else out[width >> 6] |= first << (width & 63);
    }
}

// The live cells of rows `y ..< y + rows` into `out`, a row every `outStride` words.
CLONES static void live_rows(const uint64_t *const *planes, int bits, size_t stride, int width, int height, int y, int rows,
                             int wraps, uint64_t *out, size_t outStride, size_t rowWords) {
#define LIVE(b)                                                                                                   \
    for (int i = 0; i < rows; i++)                                                                                \
        live_words_of(planes, b, stride, width, height, y + i, wraps, out + (size_t)i * outStride, rowWords)
    BY_BITS(LIVE)
#undef LIVE
}

// Band rows 1 .. `count` of `alive` stepped into `next` a word at a time, where there is
// no AVX2 kernel: the same layout, each word's west and east neighbours read across the
// words beside it (the guard words hold a torus's wrapped ones, as the kernel reads them).
static void step_band_words(const tessera_rule *rule, const uint64_t *alive, uint64_t *next, size_t bandStride, size_t words,
                            int count) {
    for (int i = 1; i <= count; i++) {
        const uint64_t *rows[3] = {alive + (size_t)(i - 1) * bandStride, alive + (size_t)i * bandStride,
                                   alive + (size_t)(i + 1) * bandStride};
        for (size_t j = 0; j < words; j++) {
            uint64_t in[9];
            for (int k = 0; k < 3; k++) {
                const uint64_t *w = rows[k];
                in[3 * k] = w[j] << 1 | w[(ptrdiff_t)j - 1] >> 63, in[3 * k + 1] = w[j], in[3 * k + 2] = w[j] >> 1 | w[j + 1] << 63;
            }
            next[(size_t)i * bandStride + j] = two_state(rule, in);
        }
    }
}

int tessera_generations_step(const tessera_rule *rule, int states, const uint64_t *const *source, uint64_t *const *target,
                             int bits, size_t stride, int width, int height, int wraps, int avx2, int firstRow, int endRow) {
    // The kernel's layout: rows of whole 256-cell columns, 32-byte aligned, four zero
    // guard words before each row and after the last.
    size_t rowWords = ((size_t)width + 255) / 256 * 4, bandStride = rowWords + 4;
    size_t bytes = ((BAND_ROWS + 2) * bandStride + 4) * 8;
    uint64_t *alive = aligned_alloc(32, bytes), *next = aligned_alloc(32, bytes);
    if (!alive || !next) {
        free(alive), free(next);
        return 0;
    }
    memset(alive, 0, bytes), memset(next, 0, bytes);
    size_t words = ((size_t)width + 63) / 64;
    uint64_t lastMask = width % 64 ? (1ull << (width % 64)) - 1 : ~0ull;
    for (int top = firstRow; top < endRow; top += BAND_ROWS) {
        int count = endRow - top < BAND_ROWS ? endRow - top : BAND_ROWS;
        // Band row i is board row top - 1 + i: the band's rows and one either side.
        live_rows(source, bits, stride, width, height, top - 1, count + 2, wraps, alive + 4, bandStride, rowWords);
        // A build without the AVX2 loop (not x86) steps nothing there and says so.
        if (!avx2 || !tessera_step_rows_avx2(alive + 4, next + 4, bandStride, rowWords, 1, (size_t)count + 1, rule))
            step_band_words(rule, alive + 4, next + 4, bandStride, words, count);
        update_rows(next + 4 + bandStride, bandStride, states, source, target, bits, (size_t)top * stride, stride, count, words,
                    lastMask);
    }
    free(alive), free(next);
    return 1;
}
