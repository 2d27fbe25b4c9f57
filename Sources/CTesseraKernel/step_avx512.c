// The dense step 512 cells a vector, for CPUs with AVX-512: step_avx2.c's walk (down a
// column of a band, each row's sums made once) and life_ternary.h's next state, on
// 8-word columns; a compiled rule's code for 512-cell vectors on each row's west, centre
// and east cells (rule_jit.c). Where a vector operation costs the same at either width
// (Zen 5, recent Intel), a row costs the same operations for twice the cells. A row's
// last 4 words, where its words are not a multiple of 8, go through the 256-bit step.
#include "CTesseraKernel.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#include "life_avx2.h"
#include "life_avx512.h"

// The west, centre and east cells of the row at `p`: the unaligned loads one word
// either side carry the edge bit across words.
Z512 void row_cells512(const uint64_t *p, __m512i out[ROW_CELLS]) {
    cells512_of(_mm512_loadu_si512((const void *)(p - 1)), _mm512_loadu_si512((const void *)p),
                _mm512_loadu_si512((const void *)(p + 1)), out);
}

Z512 sums512 horizontal512(const uint64_t *p) {
    return sums512_of(_mm512_loadu_si512((const void *)(p - 1)), _mm512_loadu_si512((const void *)p),
                      _mm512_loadu_si512((const void *)(p + 1)));
}

// A compiled rule's rows by bands, each 8-word column of a band its rows' cells first,
// then the rule's code on them all, which writes the next states into the target's rows.
__attribute__((target("avx512f"))) static void step_gates512(const uint64_t *src, uint64_t *dst, size_t stride,
                                                              size_t words, size_t rowBegin, size_t rowEnd,
                                                              const tessera_rule *rule) {
    __m512i cells[(TESSERA_BAND_ROWS + 2) * ROW_CELLS];
    _Alignas(64) uint8_t spill[TESSERA_JIT_SPILL_BYTES];
    for (size_t band = rowBegin; band < rowEnd; band += TESSERA_BAND_ROWS) {
        size_t count = (band + TESSERA_BAND_ROWS < rowEnd ? band + TESSERA_BAND_ROWS : rowEnd) - band;
        for (size_t j = 0; j + 8 <= words; j += 8) {
            for (size_t i = 0; i < count + 2; i++) row_cells512(src + (band - 1 + i) * stride + j, cells + i * ROW_CELLS);
            ((tessera_gate_code)rule->code512)(cells, dst + band * stride + j, count, ROW_CELLS * sizeof(__m512i), spill,
                                               stride * sizeof(uint64_t));
        }
    }
}

Z512 void step_columns512(const uint64_t *src, uint64_t *dst, size_t stride, size_t words, size_t rowBegin,
                          size_t rowEnd, int mode, const tessera_rule *rule) {
    for (size_t band = rowBegin; band < rowEnd; band += TESSERA_BAND_ROWS) {
        size_t bandEnd = band + TESSERA_BAND_ROWS < rowEnd ? band + TESSERA_BAND_ROWS : rowEnd;
        for (size_t j = 0; j + 8 <= words; j += 8) {
            sums512 above = horizontal512(src + (band - 1) * stride + j);
            sums512 here = horizontal512(src + band * stride + j);
            for (size_t r = band; r < bandEnd; r++) {
                _mm_prefetch((const char *)(src + (r + 1) * stride + j + TESSERA_PREFETCH_WORDS), _MM_HINT_T0);
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
    if ((rule->compiled && !rule->code512) || !tessera_cpu_has_ternary()) return 0;
    if (rowBegin >= rowEnd) return 1;
    if (rule->compiled) step_gates512(src, dst, stride, words, rowBegin, rowEnd, rule);
    else if (tessera_is_life(rule)) step_life512(src, dst, stride, words, rowBegin, rowEnd, rule);
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
