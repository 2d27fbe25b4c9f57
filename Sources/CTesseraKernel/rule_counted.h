// The second way to compile a table rule (rule_counted.c), for rule_compile.c.
#ifndef TESSERA_RULE_COUNTED_H
#define TESSERA_RULE_COUNTED_H

#include "CTesseraKernel.h"

// `table`'s gates as the adders of the count of the neighbours in `neighbours` (bit k
// for input k; the table reads no other neighbour) and a decision diagram over the
// inputs in `order` (0-8 the cells, 9-12 the count's bits), each gate's result a
// register of its own and `levels` each gate's depth (the adders deepest); 0 if the
// gates do not fit. `room` holds `tessera_counted_room()` bytes, the compile's tables,
// for one compile after another.
int tessera_rule_compile_counted(const uint64_t table[8], int neighbours, const int order[13],
                                 tessera_rule *rule, uint8_t levels[TESSERA_MAX_GATES], void *room);
size_t tessera_counted_room(void);

#endif
