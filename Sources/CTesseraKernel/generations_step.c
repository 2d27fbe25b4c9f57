// One generation of a Generations rule on a bounded board held as bit planes (plane k
// is bit k of every cell's state), a row at a time: the live cells (state 1) of the
// rows above, at and below are read with one cell more at each end (wrapped round a
// torus, dead beyond a plane's edge), the two-state rule of the live cells gives
// births and survivals 64 cells a word, and the planes of the row are updated as a
// counter: dying cells count up, and the last state wraps to 0.
#include "CTesseraKernel.h"
#include "rule_modes.h"

#include <stdlib.h>
#include <string.h>

// The 64 bits of `row` from bit `offset` on.
static inline uint64_t bits_at(const uint64_t *row, size_t offset) {
    size_t word = offset >> 6, shift = offset & 63;
    if (shift == 0) return row[word];
    return row[word] >> shift | row[word + 1] << (64 - shift);
}

// Row `y`'s live cells with one more at each end: bit 0 the cell west of column 0,
// bit x+1 column x, bit width+1 the cell east of the last column.
static void live_row(const uint64_t *const *planes, int bits, size_t stride, int width, int height, int y, int wraps,
                     uint64_t *out, size_t outWords) {
    memset(out, 0, outWords * 8);
    if (wraps) y = ((y % height) + height) % height;
    else if (y < 0 || y >= height) return;
    size_t words = ((size_t)width + 63) / 64;
    for (size_t j = 0; j < words; j++) {
        uint64_t alive = planes[0][(size_t)y * stride + j];
        for (int k = 1; k < bits; k++) alive &= ~planes[k][(size_t)y * stride + j];
        // Column 64j + i lands at bit 64j + i + 1.
        out[j] |= alive << 1;
        out[j + 1] |= alive >> 63;
    }
    if (wraps) {
        size_t last = (size_t)width;  // bit of column width-1 is `width`
        uint64_t west = out[last >> 6] >> (last & 63) & 1, east = out[0] >> 1 & 1;
        out[0] |= west;
        out[(last + 1) >> 6] |= east << ((last + 1) & 63);
    }
}

// The next state of 64 cells under a two-state rule, from their nine inputs.
static uint64_t two_state(const tessera_rule *rule, const uint64_t in[9]) {
    return rule->compiled ? tessera_rule_apply(rule, in) : tessera_counts_next_of(rule, in);
}

// The planes' words at `at` after a generation whose live cells' next state is `next`
// (1 where a cell is born or survives): born cells and survivors are 1, a live cell that
// does not survive 2, a dying cell counts on, and the last state wraps to 0.
static inline void update_states(uint64_t next, int states, const uint64_t *const *source, uint64_t *const *target, int bits,
                                 size_t at, uint64_t mask) {
    uint64_t plane[16], any = 0;
    for (int k = 0; k < bits; k++) any |= plane[k] = source[k][at];
    uint64_t alive = plane[0];
    for (int k = 1; k < bits; k++) alive &= ~plane[k];
    uint64_t dying = any & ~alive, dead = ~any;
    uint64_t born = next & dead, dies = alive & ~next;
    // Dying cells count up: plane bits plus one where `dying`.
    uint64_t carry = dying;
    for (int k = 0; k < bits; k++) {
        uint64_t sum = plane[k] ^ carry;
        carry &= plane[k];
        plane[k] = sum;
    }
    // Those that reached `states` are dead.
    uint64_t last = dying;
    for (int k = 0; k < bits; k++) last &= states >> k & 1 ? plane[k] : ~plane[k];
    uint64_t one = born | (alive & next), two = dies;
    for (int k = 0; k < bits; k++) {
        uint64_t value = (plane[k] & dying & ~last) | (k == 0 ? one : 0) | (k == 1 ? two : 0);
        target[k][at] = value & mask;
    }
}

void tessera_states_after(const uint64_t *next, int states, const uint64_t *const *source, uint64_t *const *target, int bits,
                          size_t words) {
    for (size_t at = 0; at < words; at++) update_states(next[at], states, source, target, bits, at, ~0ull);
}

int tessera_generations_step(const tessera_rule *rule, int states, const uint64_t *const *source, uint64_t *const *target,
                             int bits, size_t stride, int width, int height, int wraps) {
    size_t extWords = ((size_t)width + 2 + 63) / 64 + 1;
    uint64_t *rows = calloc(3 * extWords, 8);
    if (!rows) return 0;
    uint64_t *above = rows, *here = rows + extWords, *below = rows + 2 * extWords;
    live_row(source, bits, stride, width, height, -1, wraps, above, extWords);
    live_row(source, bits, stride, width, height, 0, wraps, here, extWords);
    size_t words = ((size_t)width + 63) / 64;
    uint64_t lastMask = width % 64 ? (1ull << (width % 64)) - 1 : ~0ull;
    for (int y = 0; y < height; y++) {
        live_row(source, bits, stride, width, height, y + 1, wraps, below, extWords);
        for (size_t j = 0; j < words; j++) {
            size_t x = 64 * j;
            const uint64_t in[9] = {bits_at(above, x), bits_at(above, x + 1), bits_at(above, x + 2),
                                    bits_at(here, x), bits_at(here, x + 1), bits_at(here, x + 2),
                                    bits_at(below, x), bits_at(below, x + 1), bits_at(below, x + 2)};
            uint64_t next = two_state(rule, in);
            update_states(next, states, source, target, bits, (size_t)y * stride + j, j == words - 1 ? lastMask : ~0ull);
        }
        uint64_t *spare = above;
        above = here, here = below, below = spare;
    }
    free(rows);
    return 1;
}
