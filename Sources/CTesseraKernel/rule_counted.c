// A table rule as the Life-like rule nearest it plus what the letters change: gates
// first add the neighbours into a count n (its bits n0..n3, as the Life-like kernels
// count; of the six or four a hexagonal or von Neumann rule reads), then a decision
// diagram over the cell, n's bits and the neighbours.
// Where the count decides the next state (every letter of a number in the rule, or
// none), the diagram stops at n; only numbers with some of their letters go on to the
// neighbours, and there every neighbourhood of another count is a don't-care, which
// makes those branches small. Isotropic rules with a few letters need a half to a
// third of the gates of the plain diagram (rule_compile.c), which stays for the rest.
#include "CTesseraKernel.h"

#include <stdlib.h>
#include <string.h>

#include "rule_counted.h"
#include "rule_tables.h"

// Functions of 13 inputs: the nine cells (input k as bit k of an index, as in
// `tessera_rule`) and n's four bits (bits 9 to 12). Only indices whose n is the count
// of the neighbours the table reads are ever met: those are the care set.
enum { VARIABLES = 13, WORDS = (1 << VARIABLES) / 64, COUNT_BIT = 9 };
typedef struct { uint64_t w[WORDS]; } table8k;

// Whether `a` and `b` agree wherever `care` is set.
static int agree(const table8k *a, const table8k *b, const table8k *care) {
    for (int i = 0; i < WORDS; i++)
        if ((a->w[i] ^ b->w[i]) & care->w[i]) return 0;
    return 1;
}

static int covers(const table8k *t, const table8k *care) {  // t is 1 wherever care is
    for (int i = 0; i < WORDS; i++)
        if (~t->w[i] & care->w[i]) return 0;
    return 1;
}

static int meets(const table8k *t, const table8k *care) {
    for (int i = 0; i < WORDS; i++)
        if (t->w[i] & care->w[i]) return 1;
    return 0;
}

static void cofactor(const table8k *t, int v, int value, table8k *out) { tessera_cofactor(t->w, WORDS, v, value, out->w); }

enum { KNOWN = TESSERA_FIRST_GATE + TESSERA_MAX_GATES + 4 };

typedef struct {
    tessera_rule *rule;
    const int *order;
    int count;
    table8k known[KNOWN];  // the function each register computes (on all indices)
    uint8_t registers[KNOWN];
    uint8_t levels[TESSERA_MAX_GATES];
    int inputRegister[VARIABLES];
    table8k inputs[VARIABLES];
    // Each call of `build` works in the tables of the level it was called at: the levels
    // of the calls under way only grow, so none shares them (and 80 KiB stay off the
    // stack of whichever thread compiles).
    struct { table8k f, care, f0, f1, c0, c1; } scratch[VARIABLES + 1];
} builder;

static int gate(builder *b, int select, int low, int high, int level) {
    if (b->rule->gates == TESSERA_MAX_GATES) return -1;
    int target = TESSERA_FIRST_GATE + b->rule->gates;
    b->levels[b->rule->gates] = (uint8_t)level;
    b->rule->program[b->rule->gates++] = (tessera_gate){(uint8_t)select, (uint8_t)low, (uint8_t)high, (uint8_t)target};
    return target;
}

// The count's gates, deepest of all (first in the program): full adders over the rows'
// sums, each operation a multiplexer with a constant (XOR by the NOT of an operand).
// Neighbours the table does not read are register 0, which folds away.
enum { PROLOGUE_LEVEL = VARIABLES };
static int and_(builder *b, int x, int y) {
    if (x == 0 || y == 0) return 0;
    return gate(b, x, 0, y, PROLOGUE_LEVEL);
}
static int or_(builder *b, int x, int y) {
    if (x == 0 || y == 0) return x | y;
    return gate(b, x, y, 1, PROLOGUE_LEVEL);
}
static int xor_(builder *b, int x, int y) {
    if (x == 0 || y == 0) return x | y;
    int notY = gate(b, y, 1, 0, PROLOGUE_LEVEL);
    return notY < 0 ? -1 : gate(b, x, y, notY, PROLOGUE_LEVEL);
}

// n's bits, of the neighbours in `mask` (bit k for input k).
static int count_gates(builder *b, int mask, int n[4]) {
    int in[9];
    for (int k = 0; k < 9; k++) in[k] = mask >> k & 1 ? 2 + k : 0;
    int a[2], c[2];
    for (int r = 0; r < 2; r++) {
        int *sum = r ? c : a, *row = in + 6 * r;
        // (Each gate a statement of its own: their order is the program's.)
        int t = xor_(b, row[0], row[2]);
        sum[0] = xor_(b, t, row[1]);
        int ends = and_(b, row[0], row[2]), middle = and_(b, t, row[1]);
        sum[1] = or_(b, ends, middle);
    }
    int b0 = xor_(b, in[3], in[5]), b1 = and_(b, in[3], in[5]);
    int x0 = xor_(b, a[0], b0);
    n[0] = xor_(b, x0, c[0]);
    int k0 = and_(b, a[0], b0), k1 = and_(b, x0, c[0]);
    int k = or_(b, k0, k1);
    int x1 = xor_(b, a[1], b1);
    int p = xor_(b, x1, c[1]);
    int q0 = and_(b, a[1], b1), q1 = and_(b, x1, c[1]);
    int q = or_(b, q0, q1);
    n[1] = xor_(b, p, k);
    int carry = and_(b, p, k);
    n[2] = xor_(b, q, carry);
    n[3] = and_(b, q, carry);
    return b->rule->gates < TESSERA_MAX_GATES;  // (a gate that did not fit left -1 behind)
}

static int remember(builder *b, const table8k *f, int reg) {
    b->known[b->count] = *f;
    b->registers[b->count] = (uint8_t)reg;
    return b->count++;
}

static int any(const table8k *t) {
    for (int i = 0; i < WORDS; i++)
        if (t->w[i]) return 1;
    return 0;
}

// The known function equal to `f` on `care`, emitting the gates it needs: its index in
// `known`, or -1 where the gates run out.
static int build(builder *b, const table8k *function, const table8k *careSet, int level) {
    table8k *f = &b->scratch[level].f, *care = &b->scratch[level].care;
    table8k *f0 = &b->scratch[level].f0, *f1 = &b->scratch[level].f1;
    table8k *c0 = &b->scratch[level].c0, *c1 = &b->scratch[level].c1;
    *f = *function, *care = *careSet;
    for (;;) {
        if (!meets(f, care)) return 0;
        if (covers(f, care)) return 1;
        for (int i = 0; i < b->count; i++)
            if (agree(&b->known[i], f, care)) return i;
        if (level == VARIABLES) return -1;  // (unreachable: every input is known)
        int v = b->order[level];
        cofactor(f, v, 0, f0), cofactor(f, v, 1, f1);
        cofactor(care, v, 0, c0), cofactor(care, v, 1, c1);
        // Where both halves care alike and agree, or one cares for nothing, the input is
        // not needed here.
        if (!any(c1) || (memcmp(c0, c1, sizeof *c0) == 0 && agree(f0, f1, c0))) {
            *f = *f0, *care = *c0, level++;
            continue;
        }
        if (!any(c0)) {
            *f = *f1, *care = *c1, level++;
            continue;
        }
        int low = build(b, f0, c0, level + 1), high = build(b, f1, c1, level + 1);
        if (low < 0 || high < 0 || b->count == KNOWN) return -1;
        int reg = gate(b, b->inputRegister[v], b->registers[low], b->registers[high], level);
        if (reg < 0) return -1;
        const table8k *x = &b->inputs[v];
        for (int i = 0; i < WORDS; i++) f->w[i] = (x->w[i] & b->known[high].w[i]) | (~x->w[i] & b->known[low].w[i]);
        return remember(b, f, reg);
    }
}

size_t tessera_counted_room(void) { return sizeof(builder); }

int tessera_rule_compile_counted(const uint64_t table[8], int neighbours, const int order[VARIABLES],
                                 tessera_rule *rule, uint8_t levels[TESSERA_MAX_GATES], void *room) {
    // Every table is written before it is read: only the count of known ones starts at 0.
    builder *b = room;
    b->count = 0;
    memset(rule, 0, sizeof *rule);
    rule->compiled = 1;
    b->rule = rule;
    b->order = order;
    table8k f = {{0}}, care = {{0}}, zero = {{0}}, ones;
    memset(&ones, 0xFF, sizeof ones);
    for (int cells = 0; cells < 512; cells++) {
        int n = 0;
        for (int k = 0; k < 9; k++) n += neighbours >> k & cells >> k & 1;
        int i = cells | n << COUNT_BIT;
        care.w[i >> 6] |= 1ull << (i & 63);
        if (table[cells >> 6] >> (cells & 63) & 1) f.w[i >> 6] |= 1ull << (i & 63);
    }
    int n[4];
    int ok = count_gates(b, neighbours, n);
    remember(b, &zero, 0);
    remember(b, &ones, 1);
    for (int v = 0; v < VARIABLES; v++) {
        tessera_input_table(v, WORDS, b->inputs[v].w);
        b->inputRegister[v] = v < COUNT_BIT ? 2 + v : n[v - COUNT_BIT];
        remember(b, &b->inputs[v], b->inputRegister[v]);
    }
    int output = ok ? build(b, &f, &care, 0) : -1;
    if (output >= 0) {
        rule->output = b->registers[output];
        memcpy(levels, b->levels, sizeof b->levels);
    }
    return output >= 0;
}
