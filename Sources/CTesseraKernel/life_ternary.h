// The next state of Life and Life-like rules from a row's sums, in vpternlogq, for one
// vector width: life_avx2.h includes it for 256 bits where its file is compiled for
// AVX-512 (step_ternary.c, tile_step_ternary.c), life_avx512.h for 512. The includer
// defines the vector type LIFE_V, the function's name LIFE_NEXT and attributes
// LIFE_FUNCTION, and LIFE_TERNARY(a, b, c, table), LIFE_XOR, LIFE_ANDNOT and
// LIFE_ZERO() in that width; they are undefined at the end. (No include guard: each
// width is a file of its own.)

// The eight-neighbour count n = n0 + 2(p + k) + 4q of the sums above (a: west + centre +
// east, as two bits), beside (b: west + east) and below (c), each full adder's sum (an
// exclusive or of three) and carry (a majority of three) one vpternlogq. Life needs only
// n's low two bits and whether n ≥ 4: alive next = (n | alive) == 3.
LIFE_FUNCTION LIFE_V LIFE_NEXT(LIFE_V a0, LIFE_V b0, LIFE_V c0, LIFE_V a1, LIFE_V b1, LIFE_V c1, LIFE_V alive, int mode,
                               const tessera_rule *rule) {
    LIFE_V n0 = LIFE_TERNARY(a0, b0, c0, 0x96), k = LIFE_TERNARY(a0, b0, c0, 0xE8);
    LIFE_V p = LIFE_TERNARY(a1, b1, c1, 0x96), q = LIFE_TERNARY(a1, b1, c1, 0xE8);
    LIFE_V n1 = LIFE_XOR(p, k);
    if (mode == MODE_LIFE) {
        LIFE_V atLeast4 = LIFE_TERNARY(q, p, k, 0xF8);     // q | (p & k)
        LIFE_V three = LIFE_TERNARY(n1, n0, alive, 0xE0);  // n1 & (n0 | alive)
        return LIFE_ANDNOT(atLeast4, three);
    }
    LIFE_V n2 = LIFE_TERNARY(q, p, k, 0x78);  // q ^ (p & k)
    LIFE_V n3 = LIFE_TERNARY(q, p, k, 0x80);  // q & p & k
    LIFE_V born = LIFE_ZERO(), stays = LIFE_ZERO();
    // For each count n the rule names: the cells whose count's low three bits are n's (one
    // minterm of n2, n1, n0), or'ed in where n3 is n's fourth bit: x | (low & n3) for 8,
    // x | (low & ~n3) below. (vpternlogq's table is an immediate: n a literal.)
#define COUNT(n)                                                                 \
    if ((rule->birth | rule->survive) >> (n) & 1) {                              \
        LIFE_V low = LIFE_TERNARY(n2, n1, n0, 1 << ((n) & 7));                   \
        if (rule->birth >> (n) & 1)                                              \
            born = LIFE_TERNARY(born, low, n3, (n) == 8 ? 0xF8 : 0xF4);          \
        if (rule->survive >> (n) & 1)                                            \
            stays = LIFE_TERNARY(stays, low, n3, (n) == 8 ? 0xF8 : 0xF4);        \
    }
    COUNT(0) COUNT(1) COUNT(2) COUNT(3) COUNT(4) COUNT(5) COUNT(6) COUNT(7) COUNT(8)
#undef COUNT
    return LIFE_TERNARY(alive, stays, born, 0xCA);  // alive ? stays : born
}

#undef LIFE_V
#undef LIFE_NEXT
#undef LIFE_FUNCTION
#undef LIFE_TERNARY
#undef LIFE_XOR
#undef LIFE_ANDNOT
#undef LIFE_ZERO
