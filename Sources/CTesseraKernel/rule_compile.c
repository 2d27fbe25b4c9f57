// A truth table over the 3x3 neighbourhood as a straight line of multiplexers: the
// reduced ordered decision diagram of the table, each node one gate. The kernels run
// the gates on whole words of cells, so a gate costs the same for 64 or 256 cells as
// one lookup costs for one. Nine inputs bound the diagram at 141 nodes; isotropic rules
// need far fewer, and the input order decides how many, so a few orders are tried.
#include "CTesseraKernel.h"

#include <stdlib.h>
#include <string.h>

#include "rule_counted.h"
#include "rule_luts.h"
#include "rule_modes.h"
#include "rule_tables.h"

typedef struct { uint64_t w[8]; } table512;

static int bit(const table512 *t, int i) { return (int)(t->w[i >> 6] >> (i & 63) & 1); }
static int same(const table512 *a, const table512 *b) { return memcmp(a, b, sizeof *a) == 0; }

// The table with input `k` fixed to `value`, as a table over all nine inputs.
static table512 cofactor(const table512 *t, int k, int value) {
    table512 out;
    tessera_cofactor(t->w, 8, k, value, out.w);
    return out;
}

typedef struct {
    tessera_rule *rule;
    const int *order;
    int count;                         // functions known, in `known` and `registers`
    table512 known[TESSERA_FIRST_GATE + TESSERA_MAX_GATES];
    uint8_t registers[TESSERA_FIRST_GATE + TESSERA_MAX_GATES];
    uint8_t levels[TESSERA_MAX_GATES];  // each gate's input, as its place in `order`
} builder;

// The register holding `t`, emitting the gates it needs; -1 when there are too many.
static int build(builder *b, const table512 *t, int level) {
    for (int i = 0; i < b->count; i++)
        if (same(&b->known[i], t)) return b->registers[i];
    for (; level < 9; level++) {
        int k = b->order[level];
        table512 low = cofactor(t, k, 0), high = cofactor(t, k, 1);
        if (same(&low, &high)) continue;
        int lowRegister = build(b, &low, level + 1), highRegister = build(b, &high, level + 1);
        if (lowRegister < 0 || highRegister < 0 || b->rule->gates == TESSERA_MAX_GATES) return -1;
        int target = TESSERA_FIRST_GATE + b->rule->gates;
        b->levels[b->rule->gates] = (uint8_t)level;
        b->rule->program[b->rule->gates++] =
            (tessera_gate){(uint8_t)(2 + k), (uint8_t)lowRegister, (uint8_t)highRegister, (uint8_t)target};
        b->known[b->count] = *t;
        b->registers[b->count++] = (uint8_t)target;
        return target;
    }
    return -1;  // unreachable: a table that depends on no input is all zeros or all ones, known from the start
}

static int compile_in_order(const table512 *t, const int order[9], tessera_rule *rule, uint8_t levels[TESSERA_MAX_GATES],
                            builder *b) {
    memset(b, 0, sizeof *b);
    memset(rule, 0, sizeof *rule);
    rule->compiled = 1;
    b->rule = rule;
    b->order = order;
    // The constants and the inputs themselves need no gate.
    memset(b->known[1].w, 0xFF, sizeof b->known[1].w);
    b->registers[1] = 1;
    for (int k = 0; k < 9; k++) {
        tessera_input_table(k, 8, b->known[2 + k].w);
        b->registers[2 + k] = (uint8_t)(2 + k);
    }
    b->count = TESSERA_FIRST_GATE;
    int output = build(b, t, 0);
    if (output < 0) return 0;
    rule->output = (uint8_t)output;
    memcpy(levels, b->levels, sizeof b->levels);
    return 1;
}

// Deepest level first (a stable sort): a gate reads only gates of deeper levels, so
// gates one after another are independent, and no gate waits on the store of the one
// before it, which the depth-first order of building makes the rule.
static void sort_by_level(tessera_rule *rule, uint8_t levels[TESSERA_MAX_GATES]) {
    for (int i = 1; i < rule->gates; i++) {
        tessera_gate gate = rule->program[i];
        uint8_t level = levels[i];
        int j = i;
        for (; j > 0 && levels[j - 1] < level; j--) {
            rule->program[j] = rule->program[j - 1];
            levels[j] = levels[j - 1];
        }
        rule->program[j] = gate;
        levels[j] = level;
    }
}

// Drops the gates whose results nothing reads (the count's bits a diagram does not
// test), keeping the others' order and registers.
static void drop_unread(tessera_rule *rule, uint8_t levels[TESSERA_MAX_GATES]) {
    uint8_t read[TESSERA_FIRST_GATE + TESSERA_MAX_GATES] = {0};
    read[rule->output] = 1;
    for (int i = rule->gates - 1; i >= 0; i--) {
        tessera_gate g = rule->program[i];
        if (read[g.result]) read[g.select] = read[g.low] = read[g.high] = 1;
    }
    int kept = 0;
    for (int i = 0; i < rule->gates; i++)
        if (read[rule->program[i].result]) levels[kept] = levels[i], rule->program[kept++] = rule->program[i];
    rule->gates = (uint16_t)kept;
}

// What the gates cost: as machine code where the CPU runs AVX2, else interpreted,
// where each gate costs the same.
static int cost(const tessera_rule *rule) {
    return tessera_cpu_has_avx2() ? tessera_rule_jit_cost(rule->program, rule->gates) : rule->gates;
}

// Gives the gates' results registers again once nothing reads them any more (a gate's
// result is mostly read by one gate, soon after), so a batch of cells needs registers
// for the values alive at once, not for every gate.
static void reuse_registers(tessera_rule *rule) {
    int lastRead[VALUES];
    for (int v = 0; v < VALUES; v++) lastRead[v] = -1;
    for (int i = 0; i < rule->gates; i++) {
        tessera_gate g = rule->program[i];
        lastRead[g.select] = lastRead[g.low] = lastRead[g.high] = i;
    }
    lastRead[rule->output] = rule->gates;  // read after the last gate
    uint8_t registerOf[VALUES], spare[VALUES];
    for (int v = 0; v < TESSERA_FIRST_GATE; v++) registerOf[v] = (uint8_t)v;
    int spareCount = 0, used = TESSERA_FIRST_GATE;
    for (int i = 0; i < rule->gates; i++) {
        tessera_gate *g = &rule->program[i];
        uint8_t operands[3] = {g->select, g->low, g->high};
        g->select = registerOf[operands[0]], g->low = registerOf[operands[1]], g->high = registerOf[operands[2]];
        // Operands read for the last time free their registers, which this gate's
        // result may take: a gate reads all three before it writes.
        for (int k = 0; k < 3; k++) {
            int v = operands[k];
            int seen = (k > 0 && operands[0] == v) || (k > 1 && operands[1] == v);
            if (v >= TESSERA_FIRST_GATE && lastRead[v] == i && !seen) spare[spareCount++] = registerOf[v];
        }
        int value = g->result;
        registerOf[value] = spareCount > 0 ? spare[--spareCount] : (uint8_t)used++;
        g->result = registerOf[value];
    }
    rule->output = registerOf[rule->output];
    rule->registers = (uint16_t)used;
}

// The gates as machine code where this CPU runs AVX2 (`zmm`: 512 cells a vector, where
// it has AVX-512), once it gives the table's every entry: three vectors of cells, input
// k of cell i bit k of i % 512, so that code stepping 256-cell vectors in pairs steps
// one alone too.
static void *machine_code(const table512 *t, const tessera_gate *ssa, int gates, int output, const operation *luts,
                          int lutCount, int zmm) {
    if (!tessera_cpu_has_avx2()) return NULL;
    void *code = tessera_rule_jit(ssa, gates, output, luts, lutCount, zmm);
    enum { WORDS = 8, VECTORS = 3 };  // a table is 8 words
    size_t vector = zmm ? WORDS : WORDS / 2;
    size_t bytes = (9 + 1) * VECTORS * WORDS * sizeof(uint64_t) + TESSERA_JIT_SPILL_BYTES;
    uint64_t *memory = code ? aligned_alloc(64, bytes) : NULL;
    if (!memory) {
        tessera_rule_jit_release(code);
        return NULL;
    }
    memset(memory, 0, bytes);
    uint64_t *inputs = memory, *next = memory + 9 * VECTORS * WORDS, *spill = next + VECTORS * WORDS;
    for (int k = 0; k < 9; k++) {
        uint64_t input[WORDS];
        tessera_input_table(k, WORDS, input);
        for (size_t w = 0; w < VECTORS * vector; w++) inputs[(w / vector * 9 + (size_t)k) * vector + w % vector] = input[w % WORDS];
    }
    ((tessera_gate_code)code)(inputs, next, VECTORS, 9 * vector * sizeof(uint64_t), spill, vector * sizeof(uint64_t));
    int agrees = 1;
    for (size_t w = 0; w < VECTORS * vector; w++) agrees &= next[w] == t->w[w % WORDS];
    free(memory);
    if (agrees) return code;
    tessera_rule_jit_release(code);
    return NULL;
}

// The neighbours the table reads (bit k for input k): flipping any other changes no entry.
static int neighbours_read(const table512 *t) {
    int mask = 0;
    for (int k = 0; k < 9; k++)
        for (int i = 0; i < 512 && !(mask >> k & 1); i++)
            if (bit(t, i) != bit(t, i ^ 1 << k)) mask |= 1 << k;
    return mask & ~16;
}

// Whether at most six of the (cell, count) pairs have entries both ways: the count of
// the neighbours in `mask` decides most of the table.
static int counts_decide_most(const table512 *t, int mask) {
    int seen[2][9][2] = {{{0}}};
    for (int i = 0; i < 512; i++) seen[i >> 4 & 1][__builtin_popcount((unsigned)(i & mask))][bit(t, i)] = 1;
    int mixed = 0;
    for (int c = 0; c < 2; c++)
        for (int n = 0; n < 9; n++) mixed += seen[c][n][0] && seen[c][n][1];
    return mixed <= 6;
}

// A diagram's cost hangs on its inputs' order, and no fixed order suits every rule.
// From `start` (the best of the fixed orders), two inputs at most `SPAN` places apart
// trade places wherever that makes the gates cheaper, until no trade does or `DESCENT`
// orders were compiled. For the counted diagram (40 µs a compile; 66 to 132 on Golly's
// non-totalistic rules, 3-5 ms of a process's start) it comes within a few operations
// of the best of 4000 random orders, and of trading any two inputs (twice the
// compiles): B2ce3-k/S23 90 -> 76 operations a vector, B3/S23-q 66 -> 59, B2-a/S12 71
// -> 65. For the plain diagram over the nine cells (13 µs a compile) the random MAP
// rule goes from 129 gates (350 operations) to 123 (327) in 43 compiles; the best of
// 20000 random orders has 120 (313).
enum { DESCENT = 400, SPAN = 3 };

// The counted diagram of `table` in `order` compiled into `candidate` (`levels` its
// gates' depths), the gates nothing reads dropped: its cost, or -1 where the gates do
// not fit.
static int counted_cost(const uint64_t table[8], int neighbours, const int order[13], void *room,
                        tessera_rule *candidate, uint8_t levels[TESSERA_MAX_GATES]) {
    if (!tessera_rule_compile_counted(table, neighbours, order, candidate, levels, room)) return -1;
    drop_unread(candidate, levels);
    return cost(candidate);
}

// What a descent compiles: the counted diagram (with `room`, 13 inputs) or the plain one
// (with `scratch`, 9).
typedef struct {
    const uint64_t *table;
    int neighbours;
    void *room;
    builder *scratch;
} diagrams;

static int order_cost(const diagrams *d, const int *order, tessera_rule *candidate, uint8_t levels[TESSERA_MAX_GATES]) {
    if (d->room) return counted_cost(d->table, d->neighbours, order, d->room, candidate, levels);
    table512 t;
    memcpy(t.w, d->table, sizeof t.w);
    return compile_in_order(&t, order, candidate, levels, d->scratch) ? cost(candidate) : -1;
}

static void descend(const diagrams *d, const int *start, tessera_rule *candidate, uint8_t levels[TESSERA_MAX_GATES],
                    tessera_rule *rule, uint8_t bestLevels[TESSERA_MAX_GATES], int *best) {
    int inputs = d->room ? 13 : 9, order[13];
    memcpy(order, start, sizeof(int) * (size_t)inputs);
    int compiled = 0, improved = 1;
    while (improved && compiled < DESCENT) {
        improved = 0;
        for (int i = 0; i < inputs && compiled < DESCENT; i++) {
            for (int j = i + 1; j < inputs && j <= i + SPAN && compiled < DESCENT; j++) {
                int t = order[i];
                order[i] = order[j], order[j] = t;
                compiled++;
                int c = order_cost(d, order, candidate, levels);
                if (c >= 0 && c < *best) {
                    *rule = *candidate, *best = c, memcpy(bestLevels, levels, TESSERA_MAX_GATES), improved = 1;
                    continue;
                }
                order[j] = order[i], order[i] = t;
            }
        }
    }
}

int tessera_rule_compile(const uint64_t table[8], tessera_rule *rule) {
    table512 t;
    memcpy(t.w, table, sizeof t.w);
    if (bit(&t, 0)) return 0;
    // The cell itself first (birth and survival apart), then the ring of neighbours
    // walked round, so that neighbours tested one after another touch; or the
    // orthogonal four before the diagonal four; or the plain reading order.
    static const int orders[][9] = {
        {4, 1, 2, 5, 8, 7, 6, 3, 0},
        {4, 1, 5, 7, 3, 0, 2, 8, 6},
        {4, 0, 1, 2, 3, 5, 6, 7, 8},
        {0, 1, 2, 3, 4, 5, 6, 7, 8},
    };
    // The count first, then the cell, its bits from the top, and the ring walked round
    // or the orthogonal four before the diagonal four.
    static const int countedOrders[][13] = {
        {4, 12, 11, 10, 9, 1, 5, 7, 3, 0, 2, 8, 6},
        {4, 12, 11, 10, 9, 1, 2, 5, 8, 7, 6, 3, 0},
        {4, 9, 10, 11, 12, 1, 2, 5, 8, 7, 6, 3, 0},
    };
    // 14 KiB of tables, off the stack of whichever thread compiles.
    builder *scratch = malloc(sizeof *scratch);
    tessera_rule *candidate = malloc(sizeof *candidate);
    void *room = malloc(tessera_counted_room());
    uint8_t levels[TESSERA_MAX_GATES], bestLevels[TESSERA_MAX_GATES];
    int found = 0, best = 0, plain = 0, counted = -1;
    for (size_t o = 0; scratch && candidate && o < sizeof orders / sizeof orders[0]; o++) {
        if (!compile_in_order(&t, orders[o], candidate, levels, scratch)) continue;
        int c = cost(candidate);
        if (!found || c < best) *rule = *candidate, best = c, memcpy(bestLevels, levels, sizeof levels), plain = (int)o;
        found = 1;
    }
    // The count pays where the count decides most of the table: at most a few numbers
    // with some of their letters (not a random table, whose every number has some).
    int neighbours = neighbours_read(&t);
    for (size_t o = 0; found && room && counts_decide_most(&t, neighbours) && o < sizeof countedOrders / sizeof countedOrders[0];
         o++) {
        int c = counted_cost(table, neighbours, countedOrders[o], room, candidate, levels);
        if (c >= 0 && c < best) *rule = *candidate, best = c, memcpy(bestLevels, levels, sizeof levels), counted = (int)o;
    }
    diagrams byCount = {table, neighbours, room, NULL}, byCells = {table, 0, NULL, scratch};
    if (counted >= 0) descend(&byCount, countedOrders[counted], candidate, levels, rule, bestLevels, &best);
    else if (found) descend(&byCells, orders[plain], candidate, levels, rule, bestLevels, &best);
    free(scratch);
    free(candidate);
    free(room);
    if (!found) return 0;
    sort_by_level(rule, bestLevels);
    rule->cost = (uint16_t)best;
    operation luts[TESSERA_MAX_GATES];
    int lutCount = tessera_rule_luts(rule->program, rule->gates, rule->output, table, luts);
    rule->luts = (uint16_t)(lutCount > 0 ? lutCount : 0);
    rule->code = machine_code(&t, rule->program, rule->gates, rule->output, luts, lutCount, 0);
    rule->code512 = machine_code(&t, rule->program, rule->gates, rule->output, luts, lutCount, 1);
    reuse_registers(rule);
    return 1;
}

void tessera_rule_release(tessera_rule *rule) {
    tessera_rule_jit_release(rule->code);
    tessera_rule_jit_release(rule->code512);
    rule->code = rule->code512 = NULL;
}

uint64_t tessera_rule_apply(const tessera_rule *rule, const uint64_t inputs[9]) {
    uint64_t r[TESSERA_FIRST_GATE + TESSERA_MAX_GATES];
    r[0] = 0;
    r[1] = ~0ull;
    for (int k = 0; k < 9; k++) r[2 + k] = inputs[k];
    for (int i = 0; i < rule->gates; i++) {
        tessera_gate g = rule->program[i];
        uint64_t low = r[g.low];
        r[g.result] = low ^ ((low ^ r[g.high]) & r[g.select]);
    }
    return r[rule->output];
}
