// One generation of a rule read from a Golly rule file (a decision tree over a cell's
// neighbourhood, `RuleTree`) on a board held as bit planes (plane k is bit k of every
// cell's state), a row at a time: the rows above, at and below are unpacked into a
// byte a cell with one cell more at each end (wrapped round a torus, state 0 beyond a
// plane's edge), each cell's inputs walk the tree, and the row's states are packed back
// into the planes. Runs of 64 cells with nothing but state 0 within reach take the
// tree's answer for an empty neighbourhood without walking it.
#include "CTesseraKernel.h"

#include <stdlib.h>
#include <string.h>

// Row `y` as a byte a cell at out[1 + x], with out[0] the cell west of column 0 and
// out[width + 1] the one east of the last; and which 64-cell words hold a cell not in
// state 0 (`occupied[j]`, bit i: column 64j + i).
static void unpack_row(const uint64_t *const *planes, int bits, size_t stride, int width, int height, int y, int wraps,
                       uint8_t *out, uint64_t *occupied) {
    size_t words = ((size_t)width + 63) / 64;
    memset(out, 0, (size_t)width + 2);
    memset(occupied, 0, words * 8);
    if (wraps) y = ((y % height) + height) % height;
    else if (y < 0 || y >= height) return;
    for (size_t j = 0; j < words; j++) {
        uint64_t any = 0;
        for (int k = 0; k < bits; k++) any |= planes[k][(size_t)y * stride + j];
        occupied[j] = any;
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

// The occupied bits of three rows, each spread one column left and right: bit i of word
// j set where column 64j + i has a cell not in state 0 within reach.
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
                      uint64_t *const *target, int bits, size_t stride, int width, int height, int wraps) {
    size_t words = ((size_t)width + 63) / 64, rowBytes = (size_t)width + 2;
    uint8_t *buffer = malloc(3 * rowBytes + 1);
    uint64_t *occupancy = malloc(3 * words * 8 + 8);
    uint8_t *next = malloc((size_t)width + 1);
    if (!buffer || !occupancy || !next) {
        free(buffer), free(occupancy), free(next);
        return 0;
    }
    // The tree's answer where every input is state 0.
    uint32_t quiet = root;
    for (int i = 0; i < (moore ? 9 : 5); i++) quiet = nodes[quiet];
    uint8_t *row[3] = {buffer, buffer + rowBytes, buffer + 2 * rowBytes};
    uint64_t *occ[3] = {occupancy, occupancy + words, occupancy + 2 * words};
    unpack_row(source, bits, stride, width, height, -1, wraps, row[0], occ[0]);
    unpack_row(source, bits, stride, width, height, 0, wraps, row[1], occ[1]);
    for (int y = 0; y < height; y++) {
        unpack_row(source, bits, stride, width, height, y + 1, wraps, row[2], occ[2]);
        const uint8_t *n = row[0] + 1, *c = row[1] + 1, *s = row[2] + 1;
        const uint64_t *const near[3] = {occ[0], occ[1], occ[2]};
        for (size_t j = 0; j < words; j++) {
            size_t begin = 64 * j, end = begin + 64 < (size_t)width ? begin + 64 : (size_t)width;
            if (reach_word(near, j, words, wraps, width) == 0) {
                memset(next + begin, (int)quiet, end - begin);
                continue;
            }
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
        for (size_t j = 0; j < words; j++) {
            size_t begin = 64 * j, end = begin + 64 < (size_t)width ? begin + 64 : (size_t)width;
            uint64_t plane[8] = {0};
            for (size_t x = begin; x < end; x++) {
                uint8_t state = next[x];
                if (!state) continue;
                for (int k = 0; k < bits; k++) plane[k] |= (uint64_t)(state >> k & 1) << (x - begin);
            }
            for (int k = 0; k < bits; k++) target[k][(size_t)y * stride + j] = plane[k];
        }
        uint8_t *t = row[0];
        row[0] = row[1], row[1] = row[2], row[2] = t;
        uint64_t *o = occ[0];
        occ[0] = occ[1], occ[1] = occ[2], occ[2] = o;
    }
    free(buffer), free(occupancy), free(next);
    return 1;
}
