// One generation of a rule read from a Golly rule file (a decision tree over a cell's
// neighbourhood, `RuleTree`) on a board held as bit planes (plane k is bit k of every
// cell's state), 64 cells (a word) at a time. A word is:
// - copied, where no cell within reach of it changed in the generation before: its
//   cells' inputs are what they were, so their states are too (any rule); a row with no
//   change within reach is copied whole; where the target holds the generation before,
//   it holds these words already, and they are left;
// - the tree's answer for an empty neighbourhood, where nothing within reach is in a
//   state but 0;
// - else each cell's inputs walk the tree, from its rows unpacked into a byte a cell
//   (with one cell more at each end: wrapped round a torus, state 0 beyond a plane's
//   edge), unpacked only where a word of theirs is walked.
#include "CTesseraKernel.h"

#include <stdlib.h>
#include <string.h>

static inline int wrap_row(int y, int height, int wraps) {
    if (wraps) return ((y % height) + height) % height;
    return y < 0 || y >= height ? -1 : y;
}

// Which cells of row `y` (-1: none) are in a state but 0, a bit a cell.
static void occupied_row(const uint64_t *const *planes, int bits, size_t stride, size_t words, int y, uint64_t *out) {
    if (y < 0) {
        memset(out, 0, words * 8);
        return;
    }
    for (size_t j = 0; j < words; j++) {
        uint64_t any = 0;
        for (int k = 0; k < bits; k++) any |= planes[k][(size_t)y * stride + j];
        out[j] = any;
    }
}

// Row `y` (-1: none) as a byte a cell at out[1 + x], with out[0] the cell west of
// column 0 and out[width + 1] the one east of the last.
static void unpack_row(const uint64_t *const *planes, int bits, size_t stride, int width, int y, int wraps,
                       const uint64_t *occupied, uint8_t *out) {
    size_t words = ((size_t)width + 63) / 64;
    memset(out, 0, (size_t)width + 2);
    if (y < 0) return;
    for (size_t j = 0; j < words; j++) {
        uint64_t any = occupied[j];
        while (any) {
            int i = __builtin_ctzll(any);
            any &= any - 1;
            uint8_t state = 0;
            for (int k = 0; k < bits; k++) state |= (uint8_t)((planes[k][(size_t)y * stride + j] >> i & 1) << k);
            out[1 + 64 * j + (size_t)i] = state;
        }
    }
    if (wraps) {
        out[0] = out[width];
        out[width + 1] = out[1];
    }
}

// The bits of three rows, each spread one column left and right: bit i of word j set
// where column 64j + i has a set bit within reach.
static uint64_t reach_word(const uint64_t *const rows[3], size_t j, size_t words, int wraps, int width) {
    uint64_t any = 0, west = 0, east = 0;
    for (int r = 0; r < 3; r++) {
        uint64_t w = rows[r][j];
        any |= w;
        if (j > 0) west |= rows[r][j - 1] >> 63;
        if (j + 1 < words) east |= rows[r][j + 1] << 63;
        if (wraps) {
            // The first and last columns see each other across the seam.
            if (j == 0) west |= rows[r][(size_t)(width - 1) / 64] >> ((width - 1) & 63) & 1;
            if (j + 1 == words) {
                int last = (width - 1) & 63;
                uint64_t first = rows[r][0] & 1;
                if (last == 63) east |= first << 63; else any |= first << (last + 1);
            }
        }
    }
    return any | any << 1 | any >> 1 | west | east;
}

int tessera_tree_step(const uint32_t *nodes, uint32_t root, int moore, const uint64_t *const *source,
                      uint64_t *const *target, int bits, size_t stride, int width, int height, int wraps,
                      const uint64_t *changes, int target_holds_before, uint64_t *changed, int firstRow, int endRow) {
    size_t words = ((size_t)width + 63) / 64, rowBytes = (size_t)width + 2;
    uint8_t *buffer = malloc(3 * rowBytes + 1);
    uint64_t *occupancy = malloc(4 * words * 8 + 8);
    uint8_t *next = malloc((size_t)width + 1);
    // Rows with a cell changed, where changes are known.
    uint8_t *moving = changes ? calloc((size_t)height + 1, 1) : NULL;
    if (!buffer || !occupancy || !next || (changes && !moving)) {
        free(buffer), free(occupancy), free(next), free(moving);
        return 0;
    }
    if (changes) {
        for (int y = 0; y < height; y++) {
            uint64_t any = 0;
            for (size_t j = 0; j < words; j++) any |= changes[(size_t)y * stride + j];
            moving[y] = any != 0;
        }
    }
    // The tree's answer where every input is state 0.
    uint32_t quiet = root;
    for (int i = 0; i < (moore ? 9 : 5); i++) quiet = nodes[quiet];
    uint64_t *none = occupancy + 3 * words;
    memset(none, 0, words * 8);
    uint8_t *row[3] = {buffer, buffer + rowBytes, buffer + 2 * rowBytes};
    uint64_t *occ[3] = {occupancy, occupancy + words, occupancy + 2 * words};
    // Whether row[r] and occ[r] hold rows[r] yet: both are made only where a word is walked.
    int unpacked[3] = {0, 0, 0}, counted[3] = {0, 0, 0}, rows[3];
    rows[0] = wrap_row(firstRow - 1, height, wraps);
    rows[1] = wrap_row(firstRow, height, wraps);
    for (int y = firstRow; y < endRow; y++) {
        rows[2] = wrap_row(y + 1, height, wraps);
        unpacked[2] = counted[2] = 0;
        size_t at = (size_t)y * stride;
        if (changes && !(rows[0] >= 0 && moving[rows[0]]) && !moving[y] && !(rows[2] >= 0 && moving[rows[2]])) {
            // Nothing changed within reach of the row: it stays as it is (`changed` is 0).
            if (!target_holds_before)
                for (int k = 0; k < bits; k++) memcpy(target[k] + at, source[k] + at, words * 8);
        } else {
            for (int r = 0; r < 3; r++) {
                if (!counted[r]) occupied_row(source, bits, stride, words, rows[r], occ[r]);
                counted[r] = 1;
            }
            const uint64_t *const near[3] = {occ[0], occ[1], occ[2]};
            const uint64_t *const moved[3] = {
                changes && rows[0] >= 0 ? changes + (size_t)rows[0] * stride : none,
                changes ? changes + at : none,
                changes && rows[2] >= 0 ? changes + (size_t)rows[2] * stride : none,
            };
            for (size_t j = 0; j < words; j++) {
                size_t begin = 64 * j, end = begin + 64 < (size_t)width ? begin + 64 : (size_t)width;
                if (changes && reach_word(moved, j, words, wraps, width) == 0) {
                    if (!target_holds_before)
                        for (int k = 0; k < bits; k++) target[k][at + j] = source[k][at + j];
                    continue;
                }
                if (reach_word(near, j, words, wraps, width) == 0) {
                    memset(next + begin, (int)quiet, end - begin);
                } else {
                    for (int r = 0; r < 3; r++) {
                        if (!unpacked[r]) unpack_row(source, bits, stride, width, rows[r], wraps, occ[r], row[r]);
                        unpacked[r] = 1;
                    }
                    const uint8_t *n = row[0] + 1, *c = row[1] + 1, *s = row[2] + 1;
                    for (size_t x = begin; x < end; x++) {
                        uint32_t i;
                        if (moore) {
                            // Golly's ruletreealgo order: nw, ne, sw, se, n, w, e, s, c.
                            i = nodes[root + n[x - 1]];
                            i = nodes[i + n[x + 1]];
                            i = nodes[i + s[x - 1]];
                            i = nodes[i + s[x + 1]];
                            i = nodes[i + n[x]];
                            i = nodes[i + c[x - 1]];
                            i = nodes[i + c[x + 1]];
                            i = nodes[i + s[x]];
                            i = nodes[i + c[x]];
                        } else {
                            // n, w, e, s, c.
                            i = nodes[root + n[x]];
                            i = nodes[i + c[x - 1]];
                            i = nodes[i + c[x + 1]];
                            i = nodes[i + s[x]];
                            i = nodes[i + c[x]];
                        }
                        next[x] = (uint8_t)i;
                    }
                }
                uint64_t plane[8] = {0}, differ = 0;
                for (size_t x = begin; x < end; x++) {
                    uint8_t state = next[x];
                    if (!state) continue;
                    for (int k = 0; k < bits; k++) plane[k] |= (uint64_t)(state >> k & 1) << (x - begin);
                }
                for (int k = 0; k < bits; k++) {
                    differ |= plane[k] ^ source[k][at + j];
                    target[k][at + j] = plane[k];
                }
                if (changed) changed[at + j] = differ;
            }
        }
        uint8_t *t = row[0];
        row[0] = row[1], row[1] = row[2], row[2] = t;
        uint64_t *o = occ[0];
        occ[0] = occ[1], occ[1] = occ[2], occ[2] = o;
        unpacked[0] = unpacked[1], unpacked[1] = unpacked[2];
        counted[0] = counted[1], counted[1] = counted[2];
        rows[0] = rows[1], rows[1] = rows[2];
    }
    free(buffer), free(occupancy), free(next), free(moving);
    return 1;
}
