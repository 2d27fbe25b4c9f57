// The innermost loop of the Life step, in AVX2. Swift's SIMD types compile to SSE2
// without a -target-cpu flag (about half this speed); a per-function target attribute
// plus a run-time CPU check keeps the binary portable. Everything else is Swift.
#include "CTesseraKernel.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TESSERA_X86 1
#endif

#ifdef TESSERA_X86

#ifndef TESSERA_TERNARY
int tessera_cpu_has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

int tessera_cpu_has_ternary(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
}

int tessera_cpu_has_avx512bw(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}

int tessera_cpu_has_avx512dq(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
}

#endif

#include "life_avx2.h"

// The unaligned loads one word either side carry the edge bit across words. The dense
// steps' rows may start at any word (`Kernel.step`'s words), so no load or store there
// assumes alignment (on aligned words the unaligned forms cost the same).
AVX2 row_sums horizontal(const uint64_t *p) {
    return sums_of(_mm256_loadu_si256((const __m256i *)(p - 1)), _mm256_loadu_si256((const __m256i *)p),
                   _mm256_loadu_si256((const __m256i *)(p + 1)));
}

// The west, centre and east cells of the row at `p`.
AVX2 void row_cells(const uint64_t *p, __m256i out[ROW_CELLS]) {
    cells_of(_mm256_loadu_si256((const __m256i *)(p - 1)), _mm256_loadu_si256((const __m256i *)p),
             _mm256_loadu_si256((const __m256i *)(p + 1)), out);
}

// A compiled rule's rows [rowBegin, rowEnd) (at most TESSERA_BAND_ROWS) of the 4-word
// column at word j: the rows' cells first, then the gates on them all.
AVX2 void step_band_gates(const uint64_t *src, uint64_t *dst, size_t stride, size_t j, size_t rowBegin,
                          size_t rowEnd, const tessera_rule *rule) {
    __m256i cells[(TESSERA_BAND_ROWS + 2) * ROW_CELLS];
    __m256i next[TESSERA_BAND_ROWS];
    int count = (int)(rowEnd - rowBegin);
    for (int i = 0; i < count + 2; i++) row_cells(src + (rowBegin - 1 + (size_t)i) * stride + j, cells + i * ROW_CELLS);
    gates_next(rule, cells, ROW_CELLS, count, next);
    for (int i = 0; i < count; i++) _mm256_storeu_si256((__m256i *)(dst + (rowBegin + (size_t)i) * stride + j), next[i]);
}

// Walks down one 4-word column at a time so the sums of the rows above and at the
// current row stay in registers: each source row's sums are computed once per band.
AVX2 void step_band(const uint64_t *src, uint64_t *dst, size_t stride, size_t words,
                    size_t rowBegin, size_t rowEnd, int mode, const tessera_rule *rule) {
    for (size_t j = 0; j < words; j += 4) {
        if (mode == MODE_GATES) {
            step_band_gates(src, dst, stride, j, rowBegin, rowEnd, rule);
            continue;
        }
        row_sums above = horizontal(src + (rowBegin - 1) * stride + j);
        row_sums here = horizontal(src + rowBegin * stride + j);
        for (size_t r = rowBegin; r < rowEnd; r++) {
            // Each row is its own stream here, too many for the hardware prefetcher on
            // boards that do not fit in cache: ask for the line the next pass will need.
            _mm_prefetch((const char *)(src + (r + 1) * stride + j + TESSERA_PREFETCH_WORDS), _MM_HINT_T0);
            row_sums below = horizontal(src + (r + 1) * stride + j);
            __m256i next = next_state(&above, &here, &below, mode, rule);
            _mm256_storeu_si256((__m256i *)(dst + r * stride + j), next);
            above = here;
            here = below;
        }
    }
}

AVX2 void step_columns(const uint64_t *src, uint64_t *dst, size_t stride, size_t words,
                       size_t rowBegin, size_t rowEnd, int mode, const tessera_rule *rule) {
    for (size_t band = rowBegin; band < rowEnd; band += TESSERA_BAND_ROWS) {
        size_t bandEnd = band + TESSERA_BAND_ROWS < rowEnd ? band + TESSERA_BAND_ROWS : rowEnd;
        step_band(src, dst, stride, words, band, bandEnd, mode, rule);
    }
}

#define SPECIALISED(name, mode)                                                                       \
    __attribute__((target(TESSERA_TARGET))) static void name(const uint64_t *src, uint64_t *dst, size_t stride, \
                                                     size_t words, size_t rowBegin, size_t rowEnd,      \
                                                     const tessera_rule *rule) {                        \
        step_columns(src, dst, stride, words, rowBegin, rowEnd, mode, rule);                           \
    }
SPECIALISED(step_life, MODE_LIFE)
SPECIALISED(step_counts, MODE_COUNTS)
SPECIALISED(step_gates, MODE_GATES)
#undef SPECIALISED

// The same walk, for the rows of one block row (at most 32) of a few columns, only the
// rows `mask` names (bit i: row rowBegin + i): before each store, the old word of the
// target (the generation before last) is compared with the new one, and each 4-word
// column reports what changed: anywhere, in which rows (a mask, as `mask`), in its
// first or last row, its first or last column, its four corners; and whether anything
// is alive, in the rows it stepped or the others (which already hold their next state).
// The old line is about to be written anyway, so the extra load costs little, and it
// spares the store where nothing changed.
AVX2 void step_tracked(const uint64_t *src, uint64_t *dst, size_t stride, size_t words,
                       size_t rowBegin, size_t rowEnd, uint32_t mask, int mode, const tessera_rule *rule,
                       uint64_t *flags) {
    size_t count = rowEnd - rowBegin;
    uint64_t inRange = count >= 32 ? 0xFFFFFFFFull : (1ull << count) - 1;
    uint64_t wanted = (uint64_t)mask & inRange, others = ~wanted & inRange;
    for (size_t j = 0; j < words; j += 4) {
        __m256i diff = _mm256_setzero_si256(), live = _mm256_setzero_si256();
        __m256i first = _mm256_setzero_si256(), last = _mm256_setzero_si256();
        uint64_t changedRows = 0;
        // Runs of consecutive wanted rows, the sums of the rows above and at the
        // current row carried down each run in registers.
        for (uint64_t todo = wanted; todo;) {
            unsigned start = (unsigned)__builtin_ctzll(todo);
            unsigned length = (unsigned)__builtin_ctzll(~(todo >> start));
            todo &= ~(((1ull << length) - 1) << start);
            size_t runBegin = rowBegin + start, runEnd = runBegin + length;
            row_sums above = horizontal(src + (runBegin - 1) * stride + j);
            row_sums here = horizontal(src + runBegin * stride + j);
            // A compiled rule's run, at most 32 rows, in batches first.
            __m256i gated[32];
            if (mode == MODE_GATES) {
                __m256i cells[(32 + 2) * ROW_CELLS];
                for (size_t i = 0; i < length + 2; i++) row_cells(src + (runBegin - 1 + i) * stride + j, cells + i * ROW_CELLS);
                gates_next(rule, cells, ROW_CELLS, (int)length, gated);
            }
            for (size_t r = runBegin; r < runEnd; r++) {
                row_sums below = horizontal(src + (r + 1) * stride + j);
                __m256i next = mode == MODE_GATES ? gated[r - runBegin] : next_state(&above, &here, &below, mode, rule);
                __m256i *target = (__m256i *)(dst + r * stride + j);
                __m256i changed = _mm256_xor_si256(next, _mm256_load_si256(target));
                if (r == rowBegin) first = changed;
                if (r == rowEnd - 1) last = changed;
                diff = _mm256_or_si256(diff, changed);
                live = _mm256_or_si256(live, next);
                // Equal words stay unwritten: a block of dead cells stepped next to new
                // activity then leaves never-written pages unmapped.
                if (!_mm256_testz_si256(changed, changed)) {
                    _mm256_store_si256(target, next);
                    changedRows |= 1ull << (r - rowBegin);
                }
                above = here;
                here = below;
            }
        }
        // Rows left out hold their next state already: a look whether one is alive,
        // unless a stepped one was.
        for (uint64_t rest = others; rest && _mm256_testz_si256(live, live); rest &= rest - 1) {
            size_t r = rowBegin + (size_t)__builtin_ctzll(rest);
            live = _mm256_or_si256(live, _mm256_load_si256((const __m256i *)(dst + r * stride + j)));
        }
        uint64_t bits = 0;
        if (!_mm256_testz_si256(diff, diff)) {
            bits |= TESSERA_CHANGED | changedRows << 32;
            if (!_mm256_testz_si256(first, first)) bits |= TESSERA_CHANGED_FIRST_ROW;
            if (!_mm256_testz_si256(last, last)) bits |= TESSERA_CHANGED_LAST_ROW;
            // A column's first cell is bit 0 of its first word, its last bit 63 of its fourth.
            if ((uint64_t)_mm256_extract_epi64(diff, 0) & 1) bits |= TESSERA_CHANGED_FIRST_COLUMN;
            if ((uint64_t)_mm256_extract_epi64(diff, 3) >> 63) bits |= TESSERA_CHANGED_LAST_COLUMN;
            if ((uint64_t)_mm256_extract_epi64(first, 0) & 1) bits |= TESSERA_CHANGED_TOP_LEFT;
            if ((uint64_t)_mm256_extract_epi64(first, 3) >> 63) bits |= TESSERA_CHANGED_TOP_RIGHT;
            if ((uint64_t)_mm256_extract_epi64(last, 0) & 1) bits |= TESSERA_CHANGED_BOTTOM_LEFT;
            if ((uint64_t)_mm256_extract_epi64(last, 3) >> 63) bits |= TESSERA_CHANGED_BOTTOM_RIGHT;
        }
        if (!_mm256_testz_si256(live, live)) bits |= TESSERA_ALIVE;
        flags[j / 4] = bits;
    }
}

#define SPECIALISED(name, mode)                                                                               \
    __attribute__((target(TESSERA_TARGET))) static void name(const uint64_t *src, uint64_t *dst, size_t stride,         \
                                                     size_t words, size_t rowBegin, size_t rowEnd, uint32_t mask, \
                                                     const tessera_rule *rule, uint64_t *flags) {               \
        step_tracked(src, dst, stride, words, rowBegin, rowEnd, mask, mode, rule, flags);                      \
    }
SPECIALISED(step_tracked_life, MODE_LIFE)
SPECIALISED(step_tracked_counts, MODE_COUNTS)
SPECIALISED(step_tracked_gates, MODE_GATES)
#undef SPECIALISED

int tessera_step_tracked_avx2(const uint64_t *src, uint64_t *dst, size_t stride, size_t words,
                              size_t rowBegin, size_t rowEnd, uint32_t rowMask, const tessera_rule *rule,
                              uint64_t *flags) {
    if (rowBegin >= rowEnd) return 1;
#ifndef TESSERA_TERNARY
    if (!rule->compiled && tessera_cpu_has_ternary())
        return tessera_step_tracked_ternary(src, dst, stride, words, rowBegin, rowEnd, rowMask, rule, flags);
#endif
    if (rule->compiled)
        step_tracked_gates(src, dst, stride, words, rowBegin, rowEnd, rowMask, rule, flags);
    else if (tessera_is_life(rule))
        step_tracked_life(src, dst, stride, words, rowBegin, rowEnd, rowMask, rule, flags);
    else
        step_tracked_counts(src, dst, stride, words, rowBegin, rowEnd, rowMask, rule, flags);
    return 1;
}

int tessera_step_rows_avx2(const uint64_t *src, uint64_t *dst, size_t stride, size_t words,
                           size_t rowBegin, size_t rowEnd, const tessera_rule *rule) {
    if (rowBegin >= rowEnd) return 1;
#ifndef TESSERA_TERNARY
    // 512 cells a vector where the CPU has it (Life-like rules), else 256 with vpternlogq.
    if (tessera_step_rows_avx512(src, dst, stride, words, rowBegin, rowEnd, rule)) return 1;
    if (!rule->compiled && tessera_cpu_has_ternary())
        return tessera_step_rows_ternary(src, dst, stride, words, rowBegin, rowEnd, rule);
#endif
    if (rule->compiled)
        step_gates(src, dst, stride, words, rowBegin, rowEnd, rule);
    else if (tessera_is_life(rule))
        step_life(src, dst, stride, words, rowBegin, rowEnd, rule);
    else
        step_counts(src, dst, stride, words, rowBegin, rowEnd, rule);
    return 1;
}

#elif !defined(TESSERA_TERNARY)

int tessera_cpu_has_avx2(void) { return 0; }

int tessera_cpu_has_ternary(void) { return 0; }

int tessera_cpu_has_avx512bw(void) { return 0; }

int tessera_cpu_has_avx512dq(void) { return 0; }

int tessera_step_rows_avx2(const uint64_t *src, uint64_t *dst, size_t stride, size_t words,
                           size_t rowBegin, size_t rowEnd, const tessera_rule *rule) {
    (void)src; (void)dst; (void)stride; (void)words; (void)rowBegin; (void)rowEnd; (void)rule;
    return 0;
}

int tessera_step_tracked_avx2(const uint64_t *src, uint64_t *dst, size_t stride, size_t words,
                              size_t rowBegin, size_t rowEnd, uint32_t rowMask, const tessera_rule *rule,
                              uint64_t *flags) {
    (void)src; (void)dst; (void)stride; (void)words; (void)rowBegin; (void)rowEnd;
    (void)rowMask; (void)rule; (void)flags;
    return 0;
}

#endif
