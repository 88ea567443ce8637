/* weights/desc_lz.h -- the Leela Zero family: a post-activation residual tower on 18 input planes with
 * a policy head (361 points + pass) and a winrate head, always on a 19x19 board.
 *
 * What the layers compute (the reference nn/ref/lz_forward.c is the executable definition):
 *   trunk   x = relu(bn(conv3x3(planes)))                                  input_conv, input_bn
 *           per block: t = relu(bn1(conv1(x))); x = relu(bn2(conv2(t)) + x)  block[i]
 *   policy  p = relu(bn(conv1x1(x))) [2 x 361] -> fc [722 -> 362] -> softmax over all 362
 *   value   v = relu(bn(conv1x1(x))) [1 x 361] -> fc1 [361 -> 256] -> relu -> fc2 [256 -> 1]
 *           winrate = (1 + tanh(v)) / 2, for the side to move, or for black when value_is_black
 *
 * Conventions fixed by the loader (weights/lz.c) so that every backend agrees:
 *   - convolutions have no bias: Leela Zero folds each conv bias into the following batch norm's
 *     mean (mean - bias, in float, as Leela Zero does at load), so conv.bias is always NULL;
 *   - batch norms carry the stored variance, eps = NN_LZ_BN_EPS, and no scale or bias;
 *   - fully connected weights are in nn_matmul_desc's [c_in][c_out] order (the file has them
 *     [c_out][c_in]; the loader transposes);
 *   - the net's spatial order is Leela Zero's: index = y * 19 + x with y = 0 the BOTTOM row
 *     (GTP row 1). nn/lz_inputs.h converts between that order and the board, symmetries included.
 */
#ifndef SHIDO_WEIGHTS_DESC_LZ_H
#define SHIDO_WEIGHTS_DESC_LZ_H

#include <stdbool.h>

#include "weights/desc.h"

#define NN_LZ_BOARD_SIZE 19
#define NN_LZ_POINTS (NN_LZ_BOARD_SIZE * NN_LZ_BOARD_SIZE)
#define NN_LZ_HISTORY 8                                   /* positions, current one included */
#define NN_LZ_INPUT_PLANES (2 * NN_LZ_HISTORY + 2)        /* 18 */
#define NN_LZ_POLICY_OUTPUTS (NN_LZ_POINTS + 1)           /* 361 points + pass */
#define NN_LZ_POLICY_CHANNELS 2
#define NN_LZ_VALUE_CHANNELS 1
#define NN_LZ_VALUE_HIDDEN 256
#define NN_LZ_SYMMETRIES 8
#define NN_LZ_BN_EPS 1e-5f

/* One residual block: two 3x3 convolutions of filters -> filters, each followed by a batch norm. */
typedef struct nn_lz_block {
    nn_conv_desc conv1, conv2;
    nn_bn_desc bn1, bn2;
} nn_lz_block;

struct nn_lz_desc {
    int version;            /* 1 (Leela Zero) or 2 (ELF OpenGo converted) */
    int blocks;             /* residual blocks (0 is a valid, if useless, network) */
    int filters;            /* channels of the trunk */
    bool value_is_black;    /* version 2: the value head gives black's winrate, not the mover's */

    nn_conv_desc input_conv;    /* 3x3, NN_LZ_INPUT_PLANES -> filters */
    nn_bn_desc input_bn;
    nn_lz_block *block;         /* [blocks] */

    nn_conv_desc policy_conv;   /* 1x1, filters -> NN_LZ_POLICY_CHANNELS */
    nn_bn_desc policy_bn;
    nn_matmul_desc policy_fc;   /* NN_LZ_POLICY_CHANNELS * 361 -> NN_LZ_POLICY_OUTPUTS */

    nn_conv_desc value_conv;    /* 1x1, filters -> NN_LZ_VALUE_CHANNELS */
    nn_bn_desc value_bn;
    nn_matmul_desc value_fc1;   /* NN_LZ_VALUE_CHANNELS * 361 -> NN_LZ_VALUE_HIDDEN */
    nn_matmul_desc value_fc2;   /* NN_LZ_VALUE_HIDDEN -> 1 */
};

#endif
