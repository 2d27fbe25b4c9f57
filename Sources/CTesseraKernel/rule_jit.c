// A compiled rule's gates as x86-64 AVX2 machine code, so that the values a vector of
// cells passes through stay in the sixteen ymm registers: the interpreter loads two
// operands and stores the result of every gate (three operations of work), the code
// does the three operations and touches memory only where sixteen registers are not
// enough. Where the CPU has AVX-512 (F, VL), a multiplexer is one vpternlogq, and the
// vectors go two at a time in the 32 zmm registers, each input two halves of one: half
// the operations, and fewer spills. The code is checked against the rule's truth table
// before it is used, and a rule without it (no AVX2, no executable memory, a failed
// check) runs the interpreter.
//
// The code is `void f(const __m256i *inputs, __m256i *next, size_t count, size_t stride,
// void *spill, size_t nextStride)`: for each of `count` vectors of cells, its nine
// inputs (k as in `tessera_rule`) are `inputs[k]`, its next state goes to `next[0]`,
// then `inputs` moves on `stride` bytes and `next` one vector (`nextStride` bytes in
// the code for 512-cell vectors). `spill` holds what does not fit in
// registers, 64 bytes for each of the rule's values. The same code for vectors of 512
// cells (`__m512i`, AVX-512 only) takes every other input a multiplexer or LUT reads
// straight from memory: on Zen 5 a vector operation reading three registers issues two
// a cycle, the register file serving about six values a cycle, and the loads feed
// another port (the random MAP rule's code on inputs in L1: 47.5 G/s, 42 without).
#include "CTesseraKernel.h"

#if defined(__x86_64__) && defined(__linux__)

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rule_luts.h"
#include "rule_modes.h"

enum {
    REGISTERS = 32,
    // The arguments' registers, as the System V ABI passes them.
    INPUTS = 7, NEXT = 6, COUNT = 2, STRIDE = 1, SPILL = 8,
};

// `wide`: the body emitted now steps zmm registers (AVX-512), each input two vectors of
// 256 cells or (`native`) one of 512, else one vector in ymm registers (`ternaries`:
// with vpternlogq where the CPU has it).
typedef struct {
    uint8_t *code;
    size_t length, capacity;
    int failed, wide, ternaries;
    int native;  // with `wide`, each input one vector of 512 cells, not two of 256
} emitter;

static void byte(emitter *e, uint8_t b) {
    if (e->length == e->capacity) {
        size_t capacity = e->capacity ? 2 * e->capacity : 4096;
        uint8_t *grown = realloc(e->code, capacity);
        if (!grown) {
            e->failed = 1;
            e->length = 0;
            return;
        }
        e->code = grown, e->capacity = capacity;
    }
    e->code[e->length++] = b;
}

static void int32(emitter *e, int32_t v) {
    for (int i = 0; i < 4; i++) byte(e, (uint8_t)((uint32_t)v >> (8 * i)));
}

// A three-byte VEX prefix (map 0F, 256 bits) and the opcode: `pp` 1 for 66, 2 for F3.
static void vex(emitter *e, int pp, int reg, int vvvv, int rm, uint8_t opcode) {
    byte(e, 0xC4);
    byte(e, (uint8_t)((reg & 8 ? 0 : 0x80) | 0x40 | (rm & 8 ? 0 : 0x20) | 0x01));
    byte(e, (uint8_t)((~vvvv & 15) << 3 | 0x04 | pp));
    byte(e, opcode);
}

// An EVEX prefix (no mask) and the opcode: `map` 1 for 0F, 3 for 0F3A; `pp` 1 for 66,
// 2 for F3; `length` 1 for 256 bits, 2 for 512. `reg` and `vvvv` name any of 32
// registers; `rm` a register too where `direct`, else a base register (an index, if
// any, below 8).
static void evex(emitter *e, int map, int pp, int w, int length, int reg, int vvvv, int rm, int direct, uint8_t opcode) {
    byte(e, 0x62);
    byte(e, (uint8_t)((reg & 8 ? 0 : 0x80) | (direct && rm & 16 ? 0 : 0x40) | (rm & 8 ? 0 : 0x20) | (reg & 16 ? 0 : 0x10) | map));
    byte(e, (uint8_t)(w << 7 | (~vvvv & 15) << 3 | 0x04 | pp));
    byte(e, (uint8_t)(length << 5 | (vvvv & 16 ? 0 : 0x08)));
    byte(e, opcode);
}

// A ModRM byte naming registers `reg` and `rm`.
static void registers(emitter *e, int reg, int rm) { byte(e, (uint8_t)(0xC0 | (reg & 7) << 3 | (rm & 7))); }

// A ModRM byte naming register `reg` and [base + offset].
static void memory(emitter *e, int reg, int base, int32_t offset) {
    byte(e, (uint8_t)(0x80 | (reg & 7) << 3 | (base & 7)));
    int32(e, offset);
}

enum { AND = 0xDB, ANDN = 0xDF, OR = 0xEB, XOR = 0xEF, EQUAL = 0x76, LOAD = 0x6F, STORE = 0x7F };

// `dst = op(a, b)`: vpand(q) DB, vpandn(q) DF (~a & b), vpor(q) EB, vpxor(q) EF.
static void alu(emitter *e, uint8_t opcode, int dst, int a, int b) {
    if (e->wide) evex(e, 1, 1, 1, 2, dst, a, b, 1, opcode);
    else vex(e, 1, dst, a, b, opcode);
    registers(e, dst, b);
}

// A value's vector between register `reg` and [base + offset]: load 6F, store 7F
// (vmovdqu, or vmovdqu64 of 512 bits).
static void move(emitter *e, uint8_t opcode, int reg, int base, int32_t offset) {
    if (e->wide) evex(e, 1, 2, 1, 2, reg, 0, base, 0, opcode);
    else vex(e, 2, reg, 0, base, opcode);
    memory(e, reg, base, offset);
}

// vmovdqa(64) `dst`, `src`: a copy (Zen 5 runs a zmm copy on an ALU: copy and
// vpternlogq pairs issue two a cycle).
static void copy_register(emitter *e, int dst, int src) {
    if (e->wide) evex(e, 1, 1, 1, 2, dst, 0, src, 1, 0x6F);
    else vex(e, 1, dst, 0, src, 0x6F);
    registers(e, dst, src);
}

// vpternlogq `dst`, `a`, `b`, `table` (EVEX.66.0F3A.W1 25 /r ib): each bit of `dst`
// becomes bit 4·dst + 2·a + b of `table`.
static void ternary(emitter *e, int dst, int a, int b, uint8_t table) {
    evex(e, 3, 1, 1, e->wide ? 2 : 1, dst, a, b, 1, 0x25);
    registers(e, dst, b);
    byte(e, table);
}

// The same with `b` input `input` of a `native` vector, read from memory.
static void ternary_from_memory(emitter *e, int dst, int a, int input, uint8_t table) {
    evex(e, 3, 1, 1, 2, dst, a, INPUTS, 0, 0x25);
    memory(e, dst, INPUTS, (input - 2) * 64);
    byte(e, table);
}

// Input `offset` bytes into a vector's inputs, for two vectors: the first's into the
// low half of `reg` (vmovdqu64 ymm), the second's, `stride` bytes on, into its high
// half (vinserti64x4 from [inputs + stride + offset]); for a `native` vector, all of
// `reg` from [inputs + 2 offset].
static void load_pair(emitter *e, int reg, int32_t offset) {
    if (e->native) {
        move(e, LOAD, reg, INPUTS, 2 * offset);
        return;
    }
    evex(e, 1, 2, 1, 1, reg, 0, INPUTS, 0, LOAD);
    memory(e, reg, INPUTS, offset);
    evex(e, 3, 1, 0, 2, reg, reg, INPUTS, 0, 0x3A);
    byte(e, (uint8_t)(0x84 | (reg & 7) << 3)), byte(e, (uint8_t)(STRIDE << 3 | INPUTS));  // [base + index + disp32]
    int32(e, offset);
    byte(e, 1);
}

// Register `reg`'s next states: one vector (256 cells, or 512 `native`) to next[0], or
// two to next[0] and next[1] (vmovdqu64 ymm, vextracti64x4).
static void store_next(emitter *e, int reg) {
    if (!e->wide || e->native) {
        move(e, STORE, reg, NEXT, 0);
        return;
    }
    evex(e, 1, 2, 1, 1, reg, 0, NEXT, 0, STORE);
    memory(e, reg, NEXT, 0);
    evex(e, 3, 1, 0, 2, reg, 0, NEXT, 0, 0x3B);
    memory(e, reg, NEXT, 32);
    byte(e, 1);
}

// Where value `v` lives in memory: an input among the inputs, a gate's result in `spill`.
// (1) AVX-512 has no vector compare into a register, and vpternlogq reads its
// destination: from the register's old value, often the last vector's result, the
// ones would chain each pair of vectors behind the one before. The zeroing idiom
// depends on nothing.
static void load(emitter *e, int reg, int value) {
    if (value == 0) alu(e, XOR, reg, reg, reg);  // the constants, from nothing
    else if (value == 1 && e->wide) alu(e, XOR, reg, reg, reg), ternary(e, reg, reg, reg, 0xFF);  // (1)
    else if (value == 1) alu(e, EQUAL, reg, reg, reg);
    else if (value < TESSERA_FIRST_GATE && e->wide) load_pair(e, reg, (value - 2) * 32);
    else if (value < TESSERA_FIRST_GATE) move(e, LOAD, reg, INPUTS, (value - 2) * 32);
    else move(e, LOAD, reg, SPILL, value * 64);
}

// Where each value is: a vector register or -1; and, for gate results, whether its
// spill slot holds it. Inputs and constants live in memory from the start. Registers
// are handed out by Belady's rule: the one whose value is next read furthest ahead is
// given up.
typedef struct {
    emitter *e;
    const int *uses;      // the positions reading each value, per value from `first`
    int first[VALUES + 1], next[VALUES];
    int inRegister[VALUES], inMemory[VALUES];
    int count;            // registers to use: 16 ymm, or 32 zmm
    int holds[REGISTERS]; // the value in each register, or -1
    int pinned[REGISTERS];
} allocator;

static int next_use(const allocator *a, int value) {
    int k = a->next[value];
    return k < a->first[value + 1] ? a->uses[k] : 1 << 30;
}

static int free_register(allocator *a) {
    int best = -1, bestUse = -1;
    for (int r = 0; r < a->count; r++) {
        if (a->pinned[r]) continue;
        if (a->holds[r] < 0) return r;
        int use = next_use(a, a->holds[r]);
        if (use > bestUse) best = r, bestUse = use;
    }
    int value = a->holds[best];
    if (bestUse < 1 << 30 && !a->inMemory[value]) {
        move(a->e, STORE, best, SPILL, value * 64);
        a->inMemory[value] = 1;
    }
    a->inRegister[value] = -1;
    a->holds[best] = -1;
    return best;
}

static int in_register(allocator *a, int value) {
    int r = a->inRegister[value];
    if (r < 0) {
        r = free_register(a);
        load(a->e, r, value);
        a->inRegister[value] = r, a->holds[r] = value;
    }
    a->pinned[r] = 1;
    return r;
}

// vpternlogq's table for a multiplexer (s ? h : l of operands s, l, h), an OR-NOT (~s |
// h of s, h) or a LUT with operand `d` in its destination and operands `b` and `c` its
// two sources (the same one twice for two operands).
static uint8_t ternary_table(operation o, int d, int b, int c) {
    uint8_t table = 0;
    for (int i = 0; i < 8; i++) {
        int v[3];
        v[d] = i >> 2 & 1, v[b] = i >> 1 & 1, v[c] = i & 1;
        int f = o.kind == LUT   ? o.table >> (v[0] << 2 | v[1] << 1 | (o.operands > 2 ? v[2] : 0)) & 1
                : o.kind == MUX ? (v[0] ? v[2] : v[1])
                                : (!v[0] | v[1]);
        table |= (uint8_t)(f << i);
    }
    return table;
}

// A gate as the operation it comes to (rule_luts.h): a multiplexer, or less where an
// input is a constant or the high side is the NOT of the low side.
static operation lowered(tessera_gate g, const int16_t negates[VALUES]) {
    uint8_t s = g.select, l = g.low, h = g.high;
    if (l == 0 && h == 1) return (operation){COPY, 1, {s}, g.result};
    if (l == 1 && h == 0) return (operation){NOT, 1, {s}, g.result};
    if (l == 0) return (operation){AND_, 2, {s, h}, g.result};
    if (h == 0) return (operation){ANDN_, 2, {s, l}, g.result};  // ~s & l
    if (h == 1) return (operation){OR_, 2, {s, l}, g.result};
    if (l == 1) return (operation){ORN_, 2, {s, h}, g.result};   // ~s | h
    if (negates[h] == l) return (operation){XOR_, 2, {s, l}, g.result};
    return (operation){MUX, 3, {s, l, h}, g.result};
}

// Every gate of `source` lowered, in order.
static void lower(const tessera_gate *source, int gates, operation *out) {
    int16_t negates[VALUES];
    for (int v = 0; v < VALUES; v++) negates[v] = -1;
    for (int i = 0; i < gates; i++)
        if (source[i].low == 1 && source[i].high == 0) negates[source[i].result] = source[i].select;
    for (int i = 0; i < gates; i++) out[i] = lowered(source[i], negates);
}

int tessera_rule_jit_cost(const tessera_gate *program, int gates) {
    operation all[TESSERA_MAX_GATES];
    lower(program, gates, all);
    int total = 0;
    for (int i = 0; i < gates; i++) total += all[i].kind == MUX ? 3 : all[i].kind == ORN_ ? 2 : 1;
    return total;
}

// The operations for one vector (or two, `wide`), the value `output` stored as its
// next state.
static void emit_body(emitter *e, const operation *program, int count, int output) {
    allocator a;
    memset(&a, 0, sizeof a);
    int reads[VALUES + 1] = {0};
    for (int i = 0; i < count; i++)
        for (int k = 0; k < program[i].operands; k++) reads[program[i].operand[k]]++;
    reads[output]++;
    int *uses = malloc(sizeof(int) * (3 * (size_t)count + 1));
    if (!uses) {
        e->failed = 1;
        return;
    }
    for (int v = 0; v < VALUES; v++) a.first[v + 1] = a.first[v] + reads[v];
    int fill[VALUES];
    for (int v = 0; v < VALUES; v++) fill[v] = a.first[v], a.next[v] = a.first[v];
    for (int i = 0; i < count; i++)
        for (int k = 0; k < program[i].operands; k++) uses[fill[program[i].operand[k]]++] = i;
    uses[fill[output]++] = count;
    a.uses = uses, a.e = e, a.count = e->wide ? 32 : 16;
    for (int v = 0; v < VALUES; v++) a.inRegister[v] = -1, a.inMemory[v] = v < TESSERA_FIRST_GATE;
    for (int r = 0; r < a.count; r++) a.holds[r] = -1;

    int foldable = 0;
    for (int i = 0; i < count; i++) {
        operation o = program[i];
        memset(a.pinned, 0, sizeof a.pinned);
        // With vpternlogq a multiplexer, an OR-NOT or a LUT is one operation
        // (`ternaries`); the rest are spelled alike either way. In 512-bit code every
        // other one of three operands with an input among them reads that input from
        // memory (`fold`; see the top of this file).
        int ternaryOp = e->ternaries && (o.kind == MUX || o.kind == ORN_ || o.kind == LUT), fold = -1;
        for (int k = 0; e->native && ternaryOp && o.operands == 3 && k < 3 && fold < 0; k++) {
            int v = o.operand[k];
            if (v >= 2 && v < TESSERA_FIRST_GATE && o.operand[(k + 1) % 3] != v && o.operand[(k + 2) % 3] != v) fold = k;
        }
        if (fold >= 0 && foldable++ % 2) fold = -1;
        int x[3] = {-1, -1, -1};
        for (int k = 0; k < o.operands; k++)
            if (k != fold) x[k] = in_register(&a, o.operand[k]);
        int ones = o.kind == NOT || (!e->ternaries && o.kind == ORN_) ? in_register(&a, 1) : -1;
        // vpternlogq reads its destination: it writes over an operand read here for the
        // last time, else over a copy of another (a register's old value would hold it
        // back behind whatever wrote that).
        int d = -1;
        for (int k = 0; ternaryOp && k < o.operands && d < 0; k++) {
            int v = o.operand[k], here = 0;
            for (int j = 0; j < o.operands; j++) here += o.operand[j] == v;
            if (k != fold && a.first[v + 1] - a.next[v] == here) d = k;
        }
        int t = d >= 0 ? x[d] : free_register(&a);
        if (d >= 0) a.inRegister[o.operand[d]] = -1;
        if (ternaryOp && d < 0) {
            // In 512-bit code an input or a spilled result loads into it, rather than
            // take the register file's reads for a copy.
            for (int k = 0; k < o.operands && d < 0 && e->native; k++)
                if (k != fold && o.operand[k] >= 2 && a.inMemory[o.operand[k]]) load(e, t, o.operand[k]), d = k;
            if (d < 0) d = fold == 0 ? 1 : 0, copy_register(e, t, x[d]);
        }
        if (ternaryOp) {
            int b = d == 0 ? 1 : 0, c = o.operands == 2 ? b : 3 - d - b;
            if (fold >= 0) b = 3 - d - fold, c = fold;
            if (fold >= 0) ternary_from_memory(e, t, x[b], o.operand[fold], ternary_table(o, d, b, c));
            else ternary(e, t, x[b], x[c], ternary_table(o, d, b, c));
        } else switch (o.kind) {
        case COPY: alu(e, AND, t, x[0], x[0]); break;
        case NOT: alu(e, XOR, t, x[0], ones); break;
        case AND_: alu(e, AND, t, x[0], x[1]); break;
        case ANDN_: alu(e, ANDN, t, x[0], x[1]); break;
        case OR_: alu(e, OR, t, x[0], x[1]); break;
        case ORN_: alu(e, ANDN, t, x[1], x[0]), alu(e, XOR, t, t, ones); break;  // ~(s & ~h)
        case XOR_: alu(e, XOR, t, x[0], x[1]); break;
        default: {  // (s & h) | (~s & l): two operations deep, not three as l ^ ((l ^ h) & s)
            a.pinned[t] = 1;
            int u = free_register(&a);
            alu(e, AND, t, x[0], x[2]), alu(e, ANDN, u, x[0], x[1]), alu(e, OR, t, t, u);
        }
        }
        a.inRegister[o.result] = t, a.holds[t] = o.result;
        // Past this operation: its operands' next reads, and registers of values read no more.
        for (int k = 0; k < o.operands; k++) a.next[o.operand[k]]++;
        for (int r = 0; r < a.count; r++)
            if (a.holds[r] >= 0 && next_use(&a, a.holds[r]) == 1 << 30) a.inRegister[a.holds[r]] = -1, a.holds[r] = -1;
    }
    memset(a.pinned, 0, sizeof a.pinned);
    store_next(e, in_register(&a, output));
    free(uses);
}

// The operations in the order a depth-first walk from the output finishes them, the
// operand that needs more first: a value is then mostly read soon after it is made, so
// fewer are alive at once than in the interpreter's order (level by level). A NOT only
// exclusive ors read is left out.
typedef struct {
    const operation *all;
    int producer[VALUES], size[VALUES], done[VALUES];
    operation *order;
    int count;
} walk;

static int subtree(walk *w, int value) {
    int i = w->producer[value];
    if (i < 0 || w->size[value]) return w->size[value];
    w->size[value] = 1;  // (the gates have no cycles; this only bounds the count)
    int size = 1;
    for (int k = 0; k < w->all[i].operands; k++) size += subtree(w, w->all[i].operand[k]);
    return w->size[value] = size;
}

static void finish(walk *w, int value) {
    int i = w->producer[value];
    if (i < 0 || w->done[value]) return;
    w->done[value] = 1;
    operation o = w->all[i];
    int order[3] = {0, 1, 2};
    for (int k = 1; k < o.operands; k++)  // largest first
        for (int j = k; j > 0 && w->size[o.operand[order[j]]] > w->size[o.operand[order[j - 1]]]; j--) {
            int swap = order[j];
            order[j] = order[j - 1], order[j - 1] = swap;
        }
    for (int k = 0; k < o.operands; k++) finish(w, o.operand[order[k]]);
    w->order[w->count++] = o;
}

void *tessera_rule_jit(const tessera_gate *source, int gates, int output, const operation *luts, int lutCount, int zmm) {
    operation all[TESSERA_MAX_GATES], program[TESSERA_MAX_GATES];
    emitter e = {.ternaries = tessera_cpu_has_ternary()};
    if (zmm && !e.ternaries) return NULL;
    // LUTs where they save a fifth of the gates or more: a counted rule's adders
    // (B37/S2-i34q: 58 gates, 29 LUTs; on Zen 5 60 G/s with them, 51 without). A
    // diagram over the nine cells saves about a tenth (the random MAP rule: 129 gates,
    // 117 LUTs), and its LUTs cost more than that: each reads three inputs alive the
    // whole body, and vpternlogq reading three registers runs two a cycle there, not
    // four (24.5 G/s with them, 26 without).
    int count = gates;
    if (e.ternaries && lutCount >= 0 && 5 * lutCount <= 4 * gates) memcpy(all, luts, sizeof *luts * (size_t)(count = lutCount));
    else lower(source, gates, all);
    walk w = {.all = all, .order = program};
    for (int v = 0; v < VALUES; v++) w.producer[v] = -1;
    for (int i = 0; i < count; i++) w.producer[all[i].result] = i;
    subtree(&w, output);
    finish(&w, output);
    size_t single = 0;
    if (e.ternaries && !zmm) {
        // Two vectors at a time while two are left: cmp rdx, 2; jb single; the body;
        // lea rdi, [rdi + 2 rcx]; add rsi, 64; sub rdx, 2; jmp pairs.
        size_t pairs = e.length;
        byte(&e, 0x48), byte(&e, 0x83), byte(&e, 0xFA), byte(&e, 0x02);
        byte(&e, 0x0F), byte(&e, 0x82);
        single = e.length;
        int32(&e, 0);
        e.wide = 1;
        emit_body(&e, program, w.count, output);
        e.wide = 0;
        byte(&e, 0x48), byte(&e, 0x8D), byte(&e, 0x3C), byte(&e, 0x4F);
        byte(&e, 0x48), byte(&e, 0x83), byte(&e, 0xC6), byte(&e, 0x40);
        byte(&e, 0x48), byte(&e, 0x83), byte(&e, 0xEA), byte(&e, 0x02);
        byte(&e, 0xE9);
        int32(&e, (int32_t)((int64_t)pairs - (int64_t)(e.length + 4)));
    }
    size_t alone = e.length;
    // test rdx, rdx; jz end
    byte(&e, 0x48), byte(&e, 0x85), byte(&e, 0xD2);
    byte(&e, 0x0F), byte(&e, 0x84);
    size_t skip = e.length;
    int32(&e, 0);
    size_t top = e.length;
    e.wide = e.native = zmm;
    emit_body(&e, program, w.count, output);
    // add rdi, rcx; add rsi, 32 (for zmm add rsi, r9: the next states' stride); dec rdx; jnz top
    byte(&e, 0x48), byte(&e, 0x01), byte(&e, 0xCF);
    if (zmm) byte(&e, 0x4C), byte(&e, 0x01), byte(&e, 0xCE);
    else byte(&e, 0x48), byte(&e, 0x83), byte(&e, 0xC6), byte(&e, 0x20);
    byte(&e, 0x48), byte(&e, 0xFF), byte(&e, 0xCA);
    byte(&e, 0x0F), byte(&e, 0x85);
    int32(&e, (int32_t)((int64_t)top - (int64_t)(e.length + 4)));
    size_t end = e.length;
    // vzeroupper; ret
    byte(&e, 0xC5), byte(&e, 0xF8), byte(&e, 0x77), byte(&e, 0xC3);
    if (e.failed) {
        free(e.code);
        return NULL;
    }
    int32_t jump = (int32_t)(end - (skip + 4)), toAlone = (int32_t)(alone - (single + 4));
    memcpy(e.code + skip, &jump, 4);
    if (e.ternaries && !zmm) memcpy(e.code + single, &toAlone, 4);

    // The mapping starts with its own length, for `tessera_rule_release`.
    size_t length = sizeof(size_t) + e.length;
    uint8_t *mapping = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) {
        free(e.code);
        return NULL;
    }
    memcpy(mapping, &length, sizeof length);
    memcpy(mapping + sizeof length, e.code, e.length);
    free(e.code);
    if (mprotect(mapping, length, PROT_READ | PROT_EXEC) != 0) {
        munmap(mapping, length);
        return NULL;
    }
    return mapping + sizeof length;
}

int tessera_can_make_code(void) {
    if (!tessera_cpu_has_avx2()) return 0;
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return 0;
    int executable = mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0;
    munmap(page, 4096);
    return executable;
}

void tessera_rule_jit_release(void *code) {
    if (!code) return;
    uint8_t *mapping = (uint8_t *)code - sizeof(size_t);
    size_t length;
    memcpy(&length, mapping, sizeof length);
    munmap(mapping, length);
}

#else

void *tessera_rule_jit(const tessera_gate *program, int gates, int output, const operation *luts, int lutCount, int zmm) {
    (void)program, (void)gates, (void)output, (void)luts, (void)lutCount, (void)zmm;
    return NULL;
}

int tessera_rule_jit_cost(const tessera_gate *program, int gates) {
    (void)program;
    return gates;
}

int tessera_can_make_code(void) { return 0; }

void tessera_rule_jit_release(void *code) { (void)code; }

#endif
