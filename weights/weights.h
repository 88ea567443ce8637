/* weights/weights.h -- loading a network file of any supported format, told apart by content:
 * KataGo models (weights/kata.h: .bin, .txt, gzipped or not) and Leela Zero text weights
 * (weights/lz.h, versions 1 and 2, gzipped or not), and shido's tsumego discriminator checkpoints
 * (weights/disc.h). */
#ifndef SHIDO_WEIGHTS_WEIGHTS_H
#define SHIDO_WEIGHTS_WEIGHTS_H

#include "weights/desc.h"

/* Sniffs the format of path (weights_is_kata, weights_is_lz, weights_is_disc) and loads it with that format's
 * loader. Returns a description owned by the caller (nn_desc_free), or NULL with a message in err
 * that names the file: the loader's own message, "cannot open" with the system's reason, or
 * "unknown network format" for a readable file of neither kind. */
nn_desc *weights_load(const char *path, char *err, int err_len);

#endif
