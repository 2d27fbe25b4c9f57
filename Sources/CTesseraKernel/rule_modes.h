// How a kernel applies its rule, a constant in each of its specialised copies: Life's
// short formula, birth and survival masks on the neighbour count, or a compiled rule's
// gates. Included by the .c files of this target only.
#ifndef TESSERA_RULE_MODES_H
#define TESSERA_RULE_MODES_H

enum { MODE_LIFE, MODE_COUNTS, MODE_GATES };

static inline int tessera_mode_of(const tessera_rule *rule) {
    return rule->compiled ? MODE_GATES : tessera_is_life(rule) ? MODE_LIFE : MODE_COUNTS;
}

#endif
