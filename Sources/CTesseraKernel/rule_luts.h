// A compiled rule's gates as the operations machine code spells (rule_jit.c), and their
// cover by functions of three inputs, each one vpternlogq (rule_luts.c). Included by
// the .c files of this target only.
#ifndef TESSERA_RULE_LUTS_H
#define TESSERA_RULE_LUTS_H

#include "CTesseraKernel.h"

enum { VALUES = TESSERA_FIRST_GATE + TESSERA_MAX_GATES };

// An operation on values (0 and 1 the constants, 2 + k input k, then the gates'
// results): a multiplexer (s ? h : l of operands s, l, h), a copy, a NOT, an AND, an
// AND-NOT (~s & l of s, l), an OR, an OR-NOT (~s | h of s, h), an exclusive or, or any
// function of its operands (LUT, `table` its truth table with operand 0 as 0xF0, 1 as
// 0xCC, 2 as 0xAA).
enum { MUX, COPY, NOT, AND_, ANDN_, OR_, ORN_, XOR_, LUT };
typedef struct { uint8_t kind, operands, operand[3], result, table; } operation;

// The LUTs that give `output` of the gates `ssa` (each value written once), in the
// gates' order, into `out` (room for TESSERA_MAX_GATES), where they give `table`
// (checked on its 512 entries): their count, else -1.
int tessera_rule_luts(const tessera_gate *ssa, int gates, int output, const uint64_t table[8], operation *out);

// The gates `ssa` as machine code (rule_jit.c; its calling convention is
// `tessera_gate_code` in rule_modes.h), for vectors of 256 cells or with `zmm` (where the
// CPU has AVX-512) of 512; spelled with the `lutCount` checked LUTs `luts` where the CPU
// has vpternlogq and they save a fifth of the gates (`lutCount` -1: none). NULL where it
// cannot be made.
void *tessera_rule_jit(const tessera_gate *ssa, int gates, int output, const operation *luts, int lutCount, int zmm);

#endif
