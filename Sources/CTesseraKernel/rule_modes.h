// How a kernel applies its rule, a constant in each of its specialised copies: Life's
// short formula, birth and survival masks on the neighbour count, or a compiled rule's
// gates; and the count's formula a word at a time, for the loops without AVX2 and
// Generations' step. Included by the .c files of this target only.
#ifndef TESSERA_RULE_MODES_H
#define TESSERA_RULE_MODES_H

enum { MODE_LIFE, MODE_COUNTS, MODE_GATES };

// A rule's gates as machine code (rule_jit.c): the next states of `count` vectors of
// cells, each vector's nine inputs side by side, `stride` bytes after the last's;
// `spill` of TESSERA_JIT_SPILL_BYTES, 64-byte aligned. Vectors of 256 cells, their next
// states side by side, or with `zmm` (where the CPU has AVX-512) of 512, each next state
// `nextStride` bytes after the last's (a board's rows). Made by `tessera_rule_jit`
// (rule_luts.h).
typedef void (*tessera_gate_code)(const void *inputs, void *next, size_t count, size_t stride, void *spill,
                                  size_t nextStride);
enum { TESSERA_JIT_SPILL_BYTES = 64 * (TESSERA_FIRST_GATE + TESSERA_MAX_GATES) };
// What `program`'s machine code costs, in operations on a vector: a multiplexer three,
// an OR-NOT two, every other gate (a constant input, an exclusive or) one, as AVX2
// spells them. With AVX-512 a multiplexer is one vpternlogq, yet the programs this count
// favours run faster there too: counting it as one chose plain diagrams, shallower in
// gates and deeper in chains, 25-37% slower on an AMD EPYC (Zen 5).
int tessera_rule_jit_cost(const tessera_gate *program, int gates);
void tessera_rule_jit_release(void *code);

static inline int tessera_mode_of(const tessera_rule *rule) {
    return rule->compiled ? MODE_GATES : tessera_is_life(rule) ? MODE_LIFE : MODE_COUNTS;
}

// A Life-like rule as boolean logic on the bit-sliced neighbour count, 64 cells a word:
// from the 2-bit sums west+centre+east of the rows above and below and west+east of the
// cell's own row.
static inline uint64_t tessera_counts_next(uint64_t above3_0, uint64_t above3_1, uint64_t here2_0, uint64_t here2_1,
                                           uint64_t below3_0, uint64_t below3_1, uint64_t alive, const tessera_rule *rule) {
    uint64_t x0 = above3_0 ^ here2_0, x1 = above3_1 ^ here2_1;
    uint64_t n0 = x0 ^ below3_0;
    uint64_t k = (above3_0 & here2_0) | (x0 & below3_0);
    uint64_t p = x1 ^ below3_1;
    uint64_t q = (above3_1 & here2_1) | (x1 & below3_1);
    uint64_t n1 = p ^ k, carry = p & k;
    uint64_t n2 = q ^ carry, n3 = q & carry;
    uint64_t born = 0, stays = 0;
    uint16_t birth = rule->birth, survive = rule->survive;
    for (int n = 0; n <= 8; n++) {
        if (!((birth | survive) >> n & 1)) continue;
        uint64_t is = (n & 1 ? n0 : ~n0) & (n & 2 ? n1 : ~n1) & (n & 4 ? n2 : ~n2) & (n & 8 ? n3 : ~n3);
        if (birth >> n & 1) born |= is;
        if (survive >> n & 1) stays |= is;
    }
    return (~alive & born) | (alive & stays);
}

// The same from the nine inputs of 64 cells (k as in `tessera_rule`), their rows' sums
// made here.
static inline uint64_t tessera_counts_next_of(const tessera_rule *rule, const uint64_t in[9]) {
    uint64_t three[2][2], two0 = in[3] ^ in[5], two1 = in[3] & in[5];
    for (int row = 0; row < 2; row++) {
        const uint64_t *w = in + 6 * row;  // the row above, then the row below
        uint64_t sum0 = w[0] ^ w[2], sum1 = w[0] & w[2];
        three[row][0] = sum0 ^ w[1];
        three[row][1] = sum1 | (sum0 & w[1]);
    }
    return tessera_counts_next(three[0][0], three[0][1], two0, two1, three[1][0], three[1][1], in[4], rule);
}

#endif
