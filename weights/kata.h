/* weights/kata.h -- KataGo model files, model versions 3..17: binary (.bin, .bin.gz, .gz) and
 * text (.txt, .txt.gz), as KataGo's ModelDesc reads them (cpp/neuralnet/desc.cpp).
 *
 * The grammar: whitespace-separated tokens (names, integers, decimal floats), each layer a name
 * followed by its shape and then its floats. In a binary file a run of floats is "@BIN@" (after at
 * most 100 bytes of anything, in practice one newline) followed by the floats as little-endian
 * IEEE 754 singles; in a text file it is that many decimal float tokens.
 *
 *   model     name, version, spatial input channels, global input channels;
 *             version >= 13: 7 post-processing multipliers (td score, score mean, score stdev,
 *             lead, variance time, shortterm value error, shortterm score error), each > 0;
 *             version >= 15: metadata encoder version (0 or 1), pass-alive-under-suicide
 *             flag (0 or 1), then 6 zeros;
 *             trunk, policy head, value head
 *   trunk     "trunk", blocks, trunk channels, mid channels, regular channels, dilated (unused),
 *             gpool channels; version >= 15: trunk norm kind (0 batch norm, 1 RMS norm) and
 *             5 zeros; conv initial, matmul initial; version >= 15 with a metadata encoder: the
 *             encoder; the blocks; bn tip (norm kind 0) or rms tip (1), activation tip
 *   block     "ordinary_block" name, bn, act, conv, bn, act, conv
 *             "gpool_block" name, bn, act, conv regular, conv gpool, bn gpool, act gpool,
 *                           matmul gpool-to-bias, bn, act, conv
 *             "nested_bottleneck_block" name, inner blocks, bn, act, conv, <blocks>, bn, act, conv
 *             "transformer_attention_block" name, heads, key/value heads (dividing heads),
 *                           query/key head dim, value head dim, rope (0/1), learnable rope (0/1),
 *                           rms norm, matmul q, k, v, out; with rope either (learnable) name,
 *                           key/value heads, head dim / 2, 2, then the frequencies
 *                           [kv heads][pairs][x, y], or name, theta (> 0)
 *             "transformer_ffn_block" name, channels, ffn channels, SwiGLU (0/1), rms norm,
 *                           matmul linear1, matmul gate (SwiGLU only), matmul linear2 (one
 *                           without SwiGLU is refused: no KataGo 1.17 backend runs it)
 *             attention and feed-forward blocks have no bn/act/conv of their own
 *   encoder   name, input channels (192), matmul, matbias, act, matmul, matbias, act, matmul
 *   policy    name; version 17: output channels (2 or 4) and 3 zeros; conv p1, conv g1, bn g1,
 *             act g1, matmul gpool-to-bias, bn p1, act p1, conv p2, matmul gpool-to-pass;
 *             version >= 15: matbias, act, matmul pass2. Output channels: 1 before version 12,
 *             2 in 12..15, 4 in 16
 *   value     name; version 17: 3 zeros; conv v1, bn v1, act v1, matmul v2, matbias v2, act v2,
 *             matmul v3,
 *             matbias v3, matmul sv3, matbias sv3, conv ownership
 *   conv      name, ky, kx, c_in, c_out, dilation y, dilation x (all > 0, ky and kx odd), then
 *             ky*kx*c_in*c_out floats ordered [y][x][c_in][c_out]
 *   bn        name, channels, epsilon (> 0), has scale (0/1), has bias (0/1), then mean[c],
 *             variance[c], scale[c] if present, bias[c] if present
 *   act       name; from version 11 also ACTIVATION_IDENTITY | ACTIVATION_RELU | ACTIVATION_MISH
 *             | ACTIVATION_SILU (earlier versions: always ReLU)
 *   rms norm  name, channels, epsilon (0 < eps <= 1), then weight[c]
 *   rms tip   name, channels, epsilon (0 < eps <= 1), spatial (0/1), channel group size (0),
 *             then gamma[c], beta[c]
 *   matmul    name, c_in, c_out, then c_in*c_out floats ordered [c_in][c_out]
 *   matbias   name, c, then c floats
 *
 * Versions outside 3..17 are refused with "unsupported model version N". The pass-alive flag is
 * kept in the description; shido's input features follow the game's suicide rule whatever it
 * says (KataGo's own nets leave it 0).
 */
#ifndef SHIDO_WEIGHTS_KATA_H
#define SHIDO_WEIGHTS_KATA_H

#include <stdbool.h>

#include "weights/desc.h"
#include "weights/desc_kata.h"

/* Loads a KataGo model. The file name decides the float encoding as in KataGo: ".txt" and
 * ".txt.gz" text, ".bin" and ".bin.gz" binary, any other ".gz" binary and then text if that
 * fails. Gzip is read transparently. Returns a description owned by the caller (nn_desc_free),
 * or NULL with a message in err naming the file, the layer and what was expected; every shape is
 * checked against KataGo's rules, every float must be finite. */
nn_desc *weights_load_kata(const char *path, char *err, int err_len);

/* Whether the file looks like a KataGo model: a name, then three integers (version, spatial and
 * global channels), then "trunk" or a number. Reads a few KiB (through gzip where needed); false
 * if unreadable. */
bool weights_is_kata(const char *path);

#endif
