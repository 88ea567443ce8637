/* weights/lz.h -- Leela Zero text weights (versions 1 and 2), plain or gzipped.
 *
 * The format (as Leela Zero 0.17 reads it in Network.cpp): one layer per line, each line the
 * layer's values as whitespace-separated decimal floats, lines ending in LF or CRLF.
 *
 *   line 1          format version: "1" (Leela Zero) or "2" (ELF OpenGo converted: identical
 *                   layout, but the value head gives BLACK's winrate instead of the mover's)
 *   lines 2-5       input convolution: weights [F][18][3][3], biases [F], bn means [F],
 *                   bn variances [F]
 *   8 per block     residual block: two groups of the same four lines, weights [F][F][3][3]
 *   14 head lines   policy: conv 1x1 weights [2][F], biases [2], bn means [2], bn variances [2],
 *                   fc weights [362][722], fc biases [362];
 *                   value:  conv 1x1 weights [1][F], biases [1], bn means [1], bn variances [1],
 *                   fc1 weights [256][361], fc1 biases [256], fc2 weights [1][256], fc2 biases [1]
 *
 * So a file has 19 + 8 * blocks lines; F (filters) is the length of line 3, the input biases.
 * Variances are stored as they are; Leela Zero normalises with 1 / sqrt(var + 1e-5) and folds
 * every conv bias into the next batch norm's mean (weights/desc_lz.h records the result).
 * The 2 / 1 / 256 / 362 head sizes are Leela Zero's constants for 19x19 and are checked.
 */
#ifndef SHIDO_WEIGHTS_LZ_H
#define SHIDO_WEIGHTS_LZ_H

#include <stdbool.h>

#include "weights/desc.h"
#include "weights/desc_lz.h"

/* Loads a Leela Zero network. Returns a description owned by the caller (nn_desc_free), or NULL
 * with a message in err that names the file, the line and layer, and what was expected: every
 * read is checked, every value must be a finite decimal float and every line the right length. */
nn_desc *weights_load_lz(const char *path, char *err, int err_len);

/* Whether the file looks like Leela Zero weights: its first line is "1" or "2" and the second
 * starts with a number. Reads a few bytes (through gzip where needed); false if unreadable. */
bool weights_is_lz(const char *path);

#endif
