// Truth tables over a rule's inputs as words of bits (entry i is bit i % 64 of word
// i / 64, input k bit k of i), for both ways of compiling a rule (rule_compile.c,
// rule_counted.c). Included by the .c files of this target only.
#ifndef TESSERA_RULE_TABLES_H
#define TESSERA_RULE_TABLES_H

#include <stdint.h>

// The entries where input k (k < 6) is 0: within each word.
static const uint64_t tessera_input_clear[6] = {0x5555555555555555ull, 0x3333333333333333ull, 0x0F0F0F0F0F0F0F0Full,
                                                0x00FF00FF00FF00FFull, 0x0000FFFF0000FFFFull, 0x00000000FFFFFFFFull};

// `t` (`words` words) with input `k` fixed to `value`, as a table over all the inputs:
// within words for the low six inputs, whole words for the others.
// (The cases apart, outside the loops, so that each loop is plain and vectorises: a
// compile of a counted rule cofactors thousands of 1 KiB tables.)
static inline void tessera_cofactor(const uint64_t *t, int words, int k, int value, uint64_t *out) {
    if (k >= 6) {
        int bit = 1 << (k - 6);
        for (int i = 0; i < words; i++) out[i] = t[value ? i | bit : i & ~bit];
        return;
    }
    uint64_t keep = value ? ~tessera_input_clear[k] : tessera_input_clear[k];
    int shift = 1 << k;
    if (value)
        for (int i = 0; i < words; i++) out[i] = (t[i] & keep) | (t[i] & keep) >> shift;
    else
        for (int i = 0; i < words; i++) out[i] = (t[i] & keep) | (t[i] & keep) << shift;
}

// Input `k` itself as a table of `words` words.
static inline void tessera_input_table(int k, int words, uint64_t *out) {
    for (int i = 0; i < words; i++) out[i] = k < 6 ? ~tessera_input_clear[k] : i >> (k - 6) & 1 ? ~0ull : 0;
}

#endif
