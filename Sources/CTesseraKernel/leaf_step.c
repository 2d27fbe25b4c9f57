// HashLife's base case: a 32x32 square of cells, stepped up to eight generations, gives
// its centre 16x16. Called once per distinct square and step, straight from the sixteen
// 8x8 leaves it is made of: the 16x16 squares in between (nine overlapping ones and four
// more, with thirteen results of four generations each) are never made, so a chaotic
// pattern costs one hash lookup per five it took when the base case was 16x16. On x86-64
// the square is four AVX2 registers of eight 32-bit rows where the CPU has AVX2 (checked
// at run time, as the step kernel is), else eight SSE2 registers of four (SSE2 is part of
// x86-64), and a generation is some forty instructions a register. Other CPUs run the same
// logic on one row at a time.
#include "CTesseraKernel.h"
#include "rule_modes.h"

// Eight-neighbour counts added with full adders, as the AVX2 kernel does: `a`/`c` are
// the rows above/below `b`, west and east the row shifted a column either way, so
// nothing crosses between rows. Edge rows and columns come out wrong; the caller keeps
// only the centre. A compiled rule runs its gates on the nine inputs instead.
#define NEXT_STATE(T, XOR, AND, OR, ANDNOT, NOT, SHL, SHR, ZERO)                                       \
    T aw = SHL(a), ae = SHR(a), bw = SHL(b), be = SHR(b), cw = SHL(c), ce = SHR(c);                    \
    if (mode == MODE_GATES) {                                                                           \
        T r[TESSERA_FIRST_GATE + TESSERA_MAX_GATES];                                                    \
        r[0] = ZERO, r[1] = NOT(ZERO), r[2] = aw, r[3] = a, r[4] = ae, r[5] = bw, r[6] = b, r[7] = be;  \
        r[8] = cw, r[9] = c, r[10] = ce;                                                                \
        for (int i = 0; i < rule->gates; i++) {                                                         \
            tessera_gate g = rule->program[i];                                                          \
            r[g.result] = XOR(r[g.low], AND(XOR(r[g.low], r[g.high]), r[g.select]));                       \
        }                                                                                               \
        return r[rule->output];                                                                         \
    }                                                                                                   \
    T awe = XOR(aw, ae), cwe = XOR(cw, ce);                                                             \
    T a0 = XOR(awe, a), a1 = OR(AND(aw, ae), AND(awe, a));                                              \
    T c0 = XOR(cwe, c), c1 = OR(AND(cw, ce), AND(cwe, c));                                              \
    T b0 = XOR(bw, be), b1 = AND(bw, be);                                                               \
    T x0 = XOR(a0, b0), x1 = XOR(a1, b1);                                                               \
    T n0 = XOR(x0, c0), k = OR(AND(a0, b0), AND(x0, c0));                                               \
    T p = XOR(x1, c1), q = OR(AND(a1, b1), AND(x1, c1));                                                \
    T n1 = XOR(p, k), carry = AND(p, k);                                                                \
    if (mode == MODE_LIFE) return ANDNOT(OR(q, carry), AND(n1, OR(n0, b)));                             \
    T n2 = XOR(q, carry), n3 = AND(q, carry);                                                           \
    uint16_t birth = rule->birth, survive = rule->survive;                                              \
    T bits[4][2] = {{NOT(n0), n0}, {NOT(n1), n1}, {NOT(n2), n2}, {NOT(n3), n3}};                        \
    T born = ZERO, stays = ZERO;                                                                        \
    for (int n = 0; n <= 8; n++) {                                                                      \
        if (!((birth | survive) >> n & 1)) continue;                                                    \
        T is = AND(AND(bits[0][n & 1], bits[1][n >> 1 & 1]), AND(bits[2][n >> 2 & 1], bits[3][n >> 3 & 1])); \
        if (birth >> n & 1) born = OR(born, is);                                                        \
        if (survive >> n & 1) stays = OR(stays, is);                                                    \
    }                                                                                                   \
    return OR(ANDNOT(b, born), AND(b, stays));

#if defined(__SSE2__)
#include <emmintrin.h>

#define V_NOT(x) _mm_xor_si128(x, _mm_set1_epi32(-1))
#define V_SHL(x) _mm_slli_epi32(x, 1)
#define V_SHR(x) _mm_srli_epi32(x, 1)

static inline __m128i next_lanes(__m128i a, __m128i b, __m128i c, int mode, const tessera_rule *rule) {
    NEXT_STATE(__m128i, _mm_xor_si128, _mm_and_si128, _mm_or_si128, _mm_andnot_si128, V_NOT, V_SHL, V_SHR,
               _mm_setzero_si128())
}

// Register k holds rows 4k to 4k+3, row 4k+j in lane j; bit c of a lane is column c.
static inline void step_square(__m128i rows[8], int mode, const tessera_rule *rule) {
    __m128i next[8];
    for (int k = 0; k < 8; k++) {
        // Lane j of `above` holds row 4k+j-1, of `below` row 4k+j+1 (byte shifts move whole lanes).
        __m128i above = _mm_slli_si128(rows[k], 4), below = _mm_srli_si128(rows[k], 4);
        if (k > 0) above = _mm_or_si128(above, _mm_srli_si128(rows[k - 1], 12));
        if (k < 7) below = _mm_or_si128(below, _mm_slli_si128(rows[k + 1], 12));
        next[k] = next_lanes(above, rows[k], below, mode, rule);
    }
    for (int k = 0; k < 8; k++) rows[k] = next[k];
}

static inline void run(__m128i rows[8], int generations, int mode, const tessera_rule *rule) {
    for (int g = 0; g < generations; g++) step_square(rows, mode, rule);
}

// The same in AVX2. Register k holds rows k, k+4, ..., k+28 (row 4j+k in lane j), so the
// rows above and below a register's are the registers beside it, and only the first
// and last need their lanes turned by one (a row from the far edge comes round into the
// edge lane: edge rows are wrong anyway).
#include "life_avx2.h"
#define W_XOR _mm256_xor_si256
#define W_AND _mm256_and_si256
#define W_OR _mm256_or_si256
#define W_ANDNOT _mm256_andnot_si256
#define W_NOT(x) _mm256_xor_si256(x, _mm256_set1_epi32(-1))
#define W_SHL(x) _mm256_slli_epi32(x, 1)
#define W_SHR(x) _mm256_srli_epi32(x, 1)

AVX2 __m256i next_wide(__m256i a, __m256i b, __m256i c, int mode, const tessera_rule *rule) {
    NEXT_STATE(__m256i, W_XOR, W_AND, W_OR, W_ANDNOT, W_NOT, W_SHL, W_SHR, _mm256_setzero_si256())
}

AVX2 void run_wide(__m256i rows[4], int generations, int mode, const tessera_rule *rule) {
    const __m256i up = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6), down = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 0);
    // A compiled rule runs its gates on the four registers at once.
    for (int g = 0; mode == MODE_GATES && g < generations; g++) {
        __m256i above[4] = {_mm256_permutevar8x32_epi32(rows[3], up), rows[0], rows[1], rows[2]};
        __m256i below[4] = {rows[1], rows[2], rows[3], _mm256_permutevar8x32_epi32(rows[0], down)};
        __m256i in[4][INPUTS];
        for (int k = 0; k < 4; k++) {
            in[k][0] = W_SHL(above[k]), in[k][1] = above[k], in[k][2] = W_SHR(above[k]);
            in[k][3] = W_SHL(rows[k]), in[k][4] = rows[k], in[k][5] = W_SHR(rows[k]);
            in[k][6] = W_SHL(below[k]), in[k][7] = below[k], in[k][8] = W_SHR(below[k]);
        }
        gates_next(rule, &in[0][0], INPUTS, 4, rows);
    }
    for (int g = 0; mode != MODE_GATES && g < generations; g++) {
        __m256i r0 = rows[0], r1 = rows[1], r2 = rows[2], r3 = rows[3];
        rows[0] = next_wide(_mm256_permutevar8x32_epi32(r3, up), r0, r1, mode, rule);
        rows[1] = next_wide(r0, r1, r2, mode, rule);
        rows[2] = next_wide(r1, r2, r3, mode, rule);
        rows[3] = next_wide(r2, r3, _mm256_permutevar8x32_epi32(r0, down), mode, rule);
    }
}

// Four registers' lanes 0-3 as four registers' lanes: a 4x4 transpose of 32-bit values.
static inline void transpose(__m128i m[4]) {
    __m128i t0 = _mm_unpacklo_epi32(m[0], m[1]), t1 = _mm_unpacklo_epi32(m[2], m[3]);
    __m128i t2 = _mm_unpackhi_epi32(m[0], m[1]), t3 = _mm_unpackhi_epi32(m[2], m[3]);
    m[0] = _mm_unpacklo_epi64(t0, t1);
    m[1] = _mm_unpackhi_epi64(t0, t1);
    m[2] = _mm_unpacklo_epi64(t2, t3);
    m[3] = _mm_unpackhi_epi64(t2, t3);
}

__attribute__((target("avx2"))) static void step_wide(__m128i rows[8], int generations, const tessera_rule *rule) {
    // rows[m] lane k is row 4m+k: transposed by fours, lane j of wide[k] is row 4j+k.
    __m128i top[4] = {rows[0], rows[1], rows[2], rows[3]}, bottom[4] = {rows[4], rows[5], rows[6], rows[7]};
    transpose(top);
    transpose(bottom);
    __m256i wide[4];
    for (int k = 0; k < 4; k++) wide[k] = _mm256_inserti128_si256(_mm256_castsi128_si256(top[k]), bottom[k], 1);
    switch (tessera_mode_of(rule)) {
    case MODE_LIFE: run_wide(wide, generations, MODE_LIFE, rule); break;
    case MODE_COUNTS: run_wide(wide, generations, MODE_COUNTS, rule); break;
    default: run_wide(wide, generations, MODE_GATES, rule); break;
    }
    for (int k = 0; k < 4; k++) {
        top[k] = _mm256_castsi256_si128(wide[k]);
        bottom[k] = _mm256_extracti128_si256(wide[k], 1);
    }
    transpose(top);
    transpose(bottom);
    for (int m = 0; m < 4; m++) {
        rows[m] = top[m];
        rows[m + 4] = bottom[m];
    }
}

static tessera_leaves square_result(const uint64_t leaves[16], int generations, const tessera_rule *rule, int wide) {
    __m128i rows[8];
    for (int j = 0; j < 4; j++) {
        // Byte r of a leaf is its row r: the four leaves of a band, interleaved west to
        // east byte by byte and then in pairs, make its rows' 32-bit lanes.
        const uint64_t *band = leaves + 4 * j;
        __m128i west = _mm_unpacklo_epi8(_mm_cvtsi64_si128((long long)band[0]), _mm_cvtsi64_si128((long long)band[1]));
        __m128i east = _mm_unpacklo_epi8(_mm_cvtsi64_si128((long long)band[2]), _mm_cvtsi64_si128((long long)band[3]));
        rows[2 * j] = _mm_unpacklo_epi16(west, east);
        rows[2 * j + 1] = _mm_unpackhi_epi16(west, east);
    }
    if (wide) {
        step_wide(rows, generations, rule);
    } else {
        switch (tessera_mode_of(rule)) {
        case MODE_LIFE: run(rows, generations, MODE_LIFE, rule); break;
        case MODE_COUNTS: run(rows, generations, MODE_COUNTS, rule); break;
        default: run(rows, generations, MODE_GATES, rule); break;
        }
    }
    // Columns 8-15 and 16-23 of rows 8-23 (registers 2-5) as bytes: the values fit
    // 16-bit lanes, so the signed pack cannot saturate.
    __m128i mask = _mm_set1_epi32(0xFF);
#define COLUMNS(r0, r1, shift) \
    _mm_packus_epi16(_mm_packs_epi32(_mm_and_si128(_mm_srli_epi32(r0, shift), mask), \
                                     _mm_and_si128(_mm_srli_epi32(r1, shift), mask)), _mm_setzero_si128())
    tessera_leaves centre = {
        (uint64_t)_mm_cvtsi128_si64(COLUMNS(rows[2], rows[3], 8)), (uint64_t)_mm_cvtsi128_si64(COLUMNS(rows[2], rows[3], 16)),
        (uint64_t)_mm_cvtsi128_si64(COLUMNS(rows[4], rows[5], 8)), (uint64_t)_mm_cvtsi128_si64(COLUMNS(rows[4], rows[5], 16))};
#undef COLUMNS
    return centre;
}

tessera_leaves tessera_square_result(const uint64_t leaves[16], int generations, const tessera_rule *rule) {
    return square_result(leaves, generations, rule, __builtin_cpu_supports("avx2"));
}

tessera_leaves tessera_square_result_narrow(const uint64_t leaves[16], int generations, const tessera_rule *rule) {
    return square_result(leaves, generations, rule, 0);
}

#else

#define S_XOR(x, y) ((x) ^ (y))
#define S_AND(x, y) ((x) & (y))
#define S_OR(x, y) ((x) | (y))
#define S_ANDNOT(x, y) (~(x) & (y))
#define S_NOT(x) (~(x))
#define S_SHL(x) ((x) << 1)
#define S_SHR(x) ((x) >> 1)

static inline uint32_t next_row(uint32_t a, uint32_t b, uint32_t c, int mode, const tessera_rule *rule) {
    NEXT_STATE(uint32_t, S_XOR, S_AND, S_OR, S_ANDNOT, S_NOT, S_SHL, S_SHR, 0)
}

static inline void run(uint32_t rows[32], int generations, int mode, const tessera_rule *rule) {
    for (int g = 0; g < generations; g++) {
        uint32_t next[32];
        // Rows 0 and 31 are wrong after the first generation, and more each one after;
        // rows 1-30 are computed anyway, a fixed loop the compiler unrolls.
        for (int r = 1; r < 31; r++) next[r] = next_row(rows[r - 1], rows[r], rows[r + 1], mode, rule);
        for (int r = 1; r < 31; r++) rows[r] = next[r];
    }
}

tessera_leaves tessera_square_result(const uint64_t leaves[16], int generations, const tessera_rule *rule) {
    uint32_t rows[32];
    for (int r = 0; r < 32; r++) {
        const uint64_t *band = leaves + 4 * (r / 8);
        rows[r] = 0;
        for (int column = 0; column < 4; column++) rows[r] |= (uint32_t)(band[column] >> (8 * (r % 8)) & 0xFF) << (8 * column);
    }
    switch (tessera_mode_of(rule)) {
    case MODE_LIFE: run(rows, generations, MODE_LIFE, rule); break;
    case MODE_COUNTS: run(rows, generations, MODE_COUNTS, rule); break;
    default: run(rows, generations, MODE_GATES, rule); break;
    }
    tessera_leaves centre = {0, 0, 0, 0};
    for (int r = 0; r < 8; r++) {
        centre.nw |= (uint64_t)(rows[r + 8] >> 8 & 0xFF) << (8 * r);
        centre.ne |= (uint64_t)(rows[r + 8] >> 16 & 0xFF) << (8 * r);
        centre.sw |= (uint64_t)(rows[r + 16] >> 8 & 0xFF) << (8 * r);
        centre.se |= (uint64_t)(rows[r + 16] >> 16 & 0xFF) << (8 * r);
    }
    return centre;
}

tessera_leaves tessera_square_result_narrow(const uint64_t leaves[16], int generations, const tessera_rule *rule) {
    return tessera_square_result(leaves, generations, rule);
}

#endif
