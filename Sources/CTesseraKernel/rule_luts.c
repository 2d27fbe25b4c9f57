// The cover of a compiled rule's gates by functions of three inputs (a technology
// mapping to LUTs of three inputs), for machine code where vpternlogq computes any of
// them in one operation (rule_jit.c): each value's cuts are the sets of at most three
// values it can be computed from, and each gate the output needs takes the cut whose
// LUTs cost least per reader (area flow). A multiplexer whose inputs come from at most
// three values in all becomes one LUT: a diagram's last levels collapse into functions
// of its last three inputs (the random MAP rule's 129 gates to 117), a counted rule's
// full adders into one LUT for each sum and each carry (B37/S2-i34q 58 gates to 29).
// Plain C, checked against the rule's table at every compile, on any CPU.
#include <stdlib.h>
#include <string.h>

#include "rule_luts.h"
#include "rule_tables.h"

enum { CUTS = 16 };
typedef struct { uint8_t size, leaf[3]; } cut;
typedef struct {
    cut cuts[VALUES][CUTS];
    uint8_t count[VALUES];
    float flow[VALUES];
    int best[VALUES];  // the cut a gate takes, an index into its cuts
} cover;

// `a` ∪ `b` into `out` where it has at most three leaves (sorted, without repeats).
static int merged(cut a, cut b, cut *out) {
    int i = 0, j = 0, n = 0;
    uint8_t leaf[6];
    while (i < a.size || j < b.size) {
        uint8_t next = j == b.size || (i < a.size && a.leaf[i] < b.leaf[j]) ? a.leaf[i] : b.leaf[j];
        if (i < a.size && a.leaf[i] == next) i++;
        if (j < b.size && b.leaf[j] == next) j++;
        leaf[n++] = next;
    }
    if (n > 3) return 0;
    out->size = (uint8_t)n;
    memcpy(out->leaf, leaf, (size_t)n);
    return 1;
}

static void add_cut(cover *c, int value, cut k) {
    for (int i = 0; i < c->count[value]; i++)
        if (c->cuts[value][i].size == k.size && !memcmp(c->cuts[value][i].leaf, k.leaf, k.size)) return;
    if (c->count[value] < CUTS) c->cuts[value][c->count[value]++] = k;
}

// The truth table of `value` over `k`'s leaves (0xF0, 0xCC, 0xAA), by the gates below it.
static uint8_t table_of(const tessera_gate *source, const int *producer, int value, cut k) {
    static const uint8_t patterns[3] = {0xF0, 0xCC, 0xAA};
    for (int i = 0; i < k.size; i++)
        if (k.leaf[i] == value) return patterns[i];
    if (value < 2) return value ? 0xFF : 0x00;
    tessera_gate g = source[producer[value]];
    uint8_t s = table_of(source, producer, g.select, k), l = table_of(source, producer, g.low, k);
    uint8_t h = table_of(source, producer, g.high, k);
    return (uint8_t)((s & h) | (~s & l));
}

// A LUT as the operation it comes to: a copy, a NOT or a two-input AND, AND-NOT, OR or
// exclusive or where it is one (those have a form that writes a register of their own).
static operation lut_operation(cut k, uint8_t table, int result) {
    operation o = {LUT, k.size, {0}, (uint8_t)result, table};
    memcpy(o.operand, k.leaf, k.size);
    uint8_t a = k.leaf[0], b = k.leaf[1];
    if (k.size == 1 && table == 0xF0) return (operation){COPY, 1, {a}, (uint8_t)result, 0};
    if (k.size == 1 && table == 0x0F) return (operation){NOT, 1, {a}, (uint8_t)result, 0};
    if (k.size != 2) return o;
    switch (table) {
    case 0xC0: return (operation){AND_, 2, {a, b}, (uint8_t)result, 0};
    case 0x30: return (operation){ANDN_, 2, {b, a}, (uint8_t)result, 0};  // a & ~b
    case 0x0C: return (operation){ANDN_, 2, {a, b}, (uint8_t)result, 0};  // ~a & b
    case 0xFC: return (operation){OR_, 2, {a, b}, (uint8_t)result, 0};
    case 0x3C: return (operation){XOR_, 2, {a, b}, (uint8_t)result, 0};
    default: return o;
    }
}

// The LUTs that give `output`, in the gates' order, into `out`: their count, or -1.
static int map_luts(const tessera_gate *source, int gates, int output, operation *out) {
    cover *c = calloc(1, sizeof *c);
    if (!c) return -1;
    int producer[VALUES], readers[VALUES] = {0};
    for (int v = 0; v < VALUES; v++) producer[v] = -1;
    for (int i = 0; i < gates; i++) {
        producer[source[i].result] = i;
        readers[source[i].select]++, readers[source[i].low]++, readers[source[i].high]++;
    }
    c->count[0] = c->count[1] = 1;  // the constants: no leaves
    for (int v = 2; v < TESSERA_FIRST_GATE; v++) c->count[v] = 1, c->cuts[v][0] = (cut){1, {(uint8_t)v}};
    for (int i = 0; i < gates; i++) {
        tessera_gate g = source[i];
        int v = g.result;
        float bestFlow = 1e30f;
        for (int x = 0; x < c->count[g.select]; x++)
            for (int y = 0; y < c->count[g.low]; y++)
                for (int z = 0; z < c->count[g.high]; z++) {
                    cut xy, k;
                    if (!merged(c->cuts[g.select][x], c->cuts[g.low][y], &xy) || !merged(xy, c->cuts[g.high][z], &k)) continue;
                    add_cut(c, v, k);
                }
        // Area flow: this LUT, and each gate leaf's flow shared among its readers.
        for (int k = 0; k < c->count[v]; k++) {
            float flow = 1;
            for (int j = 0; j < c->cuts[v][k].size; j++) {
                int leaf = c->cuts[v][k].leaf[j];
                if (leaf >= TESSERA_FIRST_GATE) flow += c->flow[leaf] / (float)(readers[leaf] ? readers[leaf] : 1);
            }
            if (flow < bestFlow) bestFlow = flow, c->best[v] = k;
        }
        c->flow[v] = bestFlow;
        // The value itself, a leaf of its readers' cuts: last, so that it is never its own cut.
        add_cut(c, v, (cut){1, {(uint8_t)v}});
    }
    // The gates the output needs, each with its cut, from the output down.
    uint8_t needed[VALUES] = {0};
    if (output >= TESSERA_FIRST_GATE) needed[output] = 1;
    for (int i = gates - 1; i >= 0; i--) {
        int v = source[i].result;
        if (!needed[v]) continue;
        cut k = c->cuts[v][c->best[v]];
        for (int j = 0; j < k.size; j++) needed[k.leaf[j]] = 1;
    }
    int count = 0;
    for (int i = 0; i < gates && count >= 0; i++) {
        int v = source[i].result;
        if (!needed[v]) continue;
        cut k = c->cuts[v][c->best[v]];
        uint8_t table = table_of(source, producer, v, k);
        // (A gate of constants, or a constant of one value: no diagram makes one.)
        if (k.size == 0 || (k.size == 1 && table != 0xF0 && table != 0x0F)) count = -1;
        else out[count++] = lut_operation(k, table, v);
    }
    free(c);
    return count;
}

// `o` on 64 neighbourhoods at a time, its operands' values in `v`.
static uint64_t apply(operation o, const uint64_t *v) {
    uint64_t a = v[o.operand[0]], b = o.operands > 1 ? v[o.operand[1]] : 0, c = o.operands > 2 ? v[o.operand[2]] : 0;
    switch (o.kind) {
    case COPY: return a;
    case NOT: return ~a;
    case AND_: return a & b;
    case ANDN_: return ~a & b;
    case OR_: return a | b;
    case XOR_: return a ^ b;
    default: {  // (a table of fewer operands is the same whatever the others, here 0)
        uint64_t r = 0;
        for (int m = 0; m < 8; m++)
            if (o.table >> m & 1) r |= (m & 4 ? a : ~a) & (m & 2 ? b : ~b) & (m & 1 ? c : ~c);
        return r;
    }
    }
}

int tessera_rule_luts(const tessera_gate *ssa, int gates, int output, const uint64_t table[8], operation *out) {
    uint64_t inputs[9][8];
    for (int k = 0; k < 9; k++) tessera_input_table(k, 8, inputs[k]);
    int count = map_luts(ssa, gates, output, out);
    for (int w = 0; w < 8 && count >= 0; w++) {
        uint64_t now[VALUES];
        now[0] = 0, now[1] = ~0ull;
        for (int k = 0; k < 9; k++) now[2 + k] = inputs[k][w];
        for (int i = 0; i < count; i++) now[out[i].result] = apply(out[i], now);
        if (now[output] != table[w]) count = -1;
    }
    return count;
}
