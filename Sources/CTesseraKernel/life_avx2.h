// The AVX2 pieces both Life steps share (the dense kernel's and the sparse plane's
// tiles'): the row sums they carry and the rule applied to them. Included by the .c
// files of this target only, inside their x86 sections.
#ifndef TESSERA_LIFE_AVX2_H
#define TESSERA_LIFE_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#include "rule_modes.h"

// The instructions the kernels may use: AVX2, or with AVX-512 (VL) as well where a file
// compiles them again for it (step_ternary.c), Life's adders then as vpternlogq.
#ifndef TESSERA_TARGET
#define TESSERA_TARGET "avx2"
#endif
#define AVX2 __attribute__((target(TESSERA_TARGET), always_inline)) static inline

// The dense steps' walk (step_avx2.c, step_avx512.c): bands of rows keep what one column
// walk touches in L1 for the next column, and each row, its own stream, is prefetched
// this far ahead.
#ifndef TESSERA_BAND_ROWS
#define TESSERA_BAND_ROWS 64
#endif
#ifndef TESSERA_PREFETCH_WORDS
#define TESSERA_PREFETCH_WORDS 16
#endif

// The dense steps compiled for AVX-512 (step_ternary.c), which the others send work to.
int tessera_step_tracked_ternary(const uint64_t *src, uint64_t *dst, size_t stride, size_t words, size_t rowBegin,
                                 size_t rowEnd, uint32_t rowMask, const tessera_rule *rule, uint64_t *flags);
int tessera_step_rows_ternary(const uint64_t *src, uint64_t *dst, size_t stride, size_t words, size_t rowBegin,
                              size_t rowEnd, const tessera_rule *rule);

// Horizontal sums of a row as 2-bit numbers: `three` = west + centre + east (for the rows
// above and below a cell), `two` = west + east (for the cell's own row), and the row.
typedef struct { __m256i three0, three1, two0, two1, centre; } row_sums;

// A vector of cells' nine inputs (k as in `tessera_rule`): the west, centre and east
// cells of the rows above, at and below it. Rows' cells side by side are the inputs of
// the vectors of the middle rows, a row's three vectors apart.
enum { INPUTS = 9, ROW_CELLS = 3 };

// The west, centre and east cells of the cells `c`, whose west neighbours' words are
// `before` (bit 63 of each is the cell west of bit 0) and east neighbours' `after` (bit 0
// east of bit 63).
AVX2 void cells_of(__m256i before, __m256i c, __m256i after, __m256i out[ROW_CELLS]) {
    out[0] = _mm256_or_si256(_mm256_slli_epi64(c, 1), _mm256_srli_epi64(before, 63));
    out[1] = c;
    out[2] = _mm256_or_si256(_mm256_srli_epi64(c, 1), _mm256_slli_epi64(after, 63));
}

// The sums of the cells `c` (neighbours as for `cells_of`).
AVX2 row_sums sums_of(__m256i before, __m256i c, __m256i after) {
    row_sums s;
    __m256i cells[ROW_CELLS];
    cells_of(before, c, after, cells);
    __m256i west = cells[0], east = cells[2];
    s.two0 = _mm256_xor_si256(west, east);
    s.two1 = _mm256_and_si256(west, east);
#ifdef TESSERA_TERNARY
    s.three0 = _mm256_ternarylogic_epi64(west, c, east, 0x96);  // exclusive or of three
    s.three1 = _mm256_ternarylogic_epi64(west, c, east, 0xE8);  // majority of three
#else
    s.three0 = _mm256_xor_si256(s.two0, c);
    s.three1 = _mm256_or_si256(s.two1, _mm256_and_si256(s.two0, c));
#endif
    s.centre = c;
    return s;
}

// The interpreter runs a compiled rule's gates on GATE_BATCH vectors of cells at once,
// so that each gate is read once per batch; the registers live in L1 (the gates reuse
// them, so a batch touches a few KiB), and `r[k][b]` is register k of vector b.
enum { GATE_BATCH = 8 };
typedef __m256i gate_registers[TESSERA_FIRST_GATE + TESSERA_MAX_GATES][GATE_BATCH];

// Runs the gates on vectors 0..<count (at most GATE_BATCH), whose inputs are set. The
// gates come in runs with one register as their select (a level of the diagram), which
// stays in registers for its run: two loads a gate, not three. A gate that writes the
// select's register ends its run.
AVX2 void run_gates(const tessera_rule *rule, gate_registers r, int count) {
    const tessera_gate *g = rule->program;
    for (int i = 0; i < rule->gates;) {
        int input = g[i].select;
        __m256i select[GATE_BATCH];
        for (int b = 0; b < count; b++) select[b] = r[input][b];
        for (; i < rule->gates && g[i].select == input;) {
            __m256i *low = r[g[i].low], *high = r[g[i].high], *result = r[g[i].result];
            for (int b = 0; b < count; b++)
                result[b] = _mm256_xor_si256(low[b], _mm256_and_si256(_mm256_xor_si256(low[b], high[b]), select[b]));
            if (g[i++].result == input) break;
        }
    }
}

// The next states of `count` vectors of cells, vector b's inputs from `inputs[b *
// stride]` on, into `next[0..<count]`: by the rule's machine code where it has it.
AVX2 void gates_next(const tessera_rule *rule, const __m256i *inputs, size_t stride, int count, __m256i *next) {
    if (rule->code) {
        _Alignas(64) uint8_t spill[TESSERA_JIT_SPILL_BYTES];
        ((tessera_gate_code)rule->code)(inputs, next, (size_t)count, stride * sizeof(__m256i), spill, sizeof(__m256i));
        return;
    }
    gate_registers r;
    for (int first = 0; first < count; first += GATE_BATCH) {
        int n = count - first < GATE_BATCH ? count - first : GATE_BATCH;
        for (int b = 0; b < n; b++) {
            r[0][b] = _mm256_setzero_si256(), r[1][b] = _mm256_set1_epi64x(-1);
            for (int k = 0; k < INPUTS; k++) r[2 + k][b] = inputs[(size_t)(first + b) * stride + (size_t)k];
        }
        // A full batch with the count a constant, so its loops unroll.
        if (n == GATE_BATCH) run_gates(rule, r, GATE_BATCH);
        else run_gates(rule, r, n);
        for (int b = 0; b < n; b++) next[first + b] = r[rule->output][b];
    }
}

#ifdef TESSERA_TERNARY
#define LIFE_V __m256i
#define LIFE_NEXT next_ternary
#define LIFE_FUNCTION AVX2
#define LIFE_TERNARY _mm256_ternarylogic_epi64
#define LIFE_XOR _mm256_xor_si256
#define LIFE_ANDNOT _mm256_andnot_si256
#define LIFE_ZERO _mm256_setzero_si256
#include "life_ternary.h"
#endif

// Next state from the sums above, beside and below (Life or counts; gates go by
// `gates_next`): the eight-neighbour count n is added with full adders. Life needs only
// n's low two bits and whether n ≥ 4: alive next = (n | alive) == 3. Compiled for
// AVX-512, as life_ternary.h spells it in vpternlogq.
AVX2 __m256i next_state(const row_sums *above, const row_sums *here, const row_sums *below,
                        int mode, const tessera_rule *rule) {
    __m256i a0 = above->three0, b0 = here->two0, c0 = below->three0;
    __m256i a1 = above->three1, b1 = here->two1, c1 = below->three1;
    __m256i alive = here->centre;
#ifdef TESSERA_TERNARY
    return next_ternary(a0, b0, c0, a1, b1, c1, alive, mode, rule);
#else
    __m256i x0 = _mm256_xor_si256(a0, b0), x1 = _mm256_xor_si256(a1, b1);
    __m256i n0 = _mm256_xor_si256(x0, c0);
    __m256i k = _mm256_or_si256(_mm256_and_si256(a0, b0), _mm256_and_si256(x0, c0));
    __m256i p = _mm256_xor_si256(x1, c1);
    __m256i q = _mm256_or_si256(_mm256_and_si256(a1, b1), _mm256_and_si256(x1, c1));
    __m256i n1 = _mm256_xor_si256(p, k);
    __m256i carry = _mm256_and_si256(p, k);
    if (mode == MODE_LIFE) {
        __m256i atLeast4 = _mm256_or_si256(q, carry);
        return _mm256_andnot_si256(atLeast4, _mm256_and_si256(n1, _mm256_or_si256(n0, alive)));
    }
    __m256i n2 = _mm256_xor_si256(q, carry), n3 = _mm256_and_si256(q, carry);
    __m256i ones = _mm256_set1_epi64x(-1);
    __m256i bits[4][2] = {{_mm256_xor_si256(n0, ones), n0}, {_mm256_xor_si256(n1, ones), n1},
                          {_mm256_xor_si256(n2, ones), n2}, {_mm256_xor_si256(n3, ones), n3}};
    __m256i born = _mm256_setzero_si256(), stays = _mm256_setzero_si256();
    uint16_t birth = rule->birth, survive = rule->survive;
    for (int n = 0; n <= 8; n++) {
        if (!((birth | survive) >> n & 1)) continue;
        // The cells whose count is n: all four of its bits as n's.
        __m256i is = _mm256_and_si256(_mm256_and_si256(bits[0][n & 1], bits[1][n >> 1 & 1]),
                                      _mm256_and_si256(bits[2][n >> 2 & 1], bits[3][n >> 3 & 1]));
        if (birth >> n & 1) born = _mm256_or_si256(born, is);
        if (survive >> n & 1) stays = _mm256_or_si256(stays, is);
    }
    return _mm256_or_si256(_mm256_andnot_si256(alive, born), _mm256_and_si256(alive, stays));
#endif
}

#endif
