/* weights/desc_disc.h -- the description of the tsumego discriminator (seed 002): a plain stack
 * of "same" convolutions followed by dense layers, ending in one logit; sigmoid(logit) is how
 * much a size x size window looks like a tsumego problem. The input is the planes of
 * nn/disc_inputs.h. The paper's net (weights_disc_paper) is conv 3x3 128, 96, 64 (ReLU), conv
 * 1x1 1, dense 64 (ReLU), dense 1.
 *
 * Layout, as for the other families: convolution weights [c_out][c_in][k][k], dense weights
 * [c_in][c_out]. The first dense layer takes the last convolution's output flattened as
 * [channel][y][x]. Files: weights/disc.h. Training: nn/train/train.h.
 *
 * Colours: a net trained with colours swapped at random (the paper) sees a window as it is and
 * cannot know the side to play; one trained with black always the side to play
 * (black_to_play) is shown a window with white to play with its colours swapped. */
#ifndef SHIDO_WEIGHTS_DESC_DISC_H
#define SHIDO_WEIGHTS_DESC_DISC_H

#include "weights/desc.h"

#define NN_DISC_MAX_LAYERS 12
#define NN_DISC_MAX_SIZE 19
#define NN_DISC_MAX_CHANNELS 1024

typedef enum { NN_DISC_CONV = 1, NN_DISC_DENSE = 2 } nn_disc_layer_kind;

typedef struct nn_disc_layer {
    nn_disc_layer_kind kind;
    nn_activation act;       /* IDENTITY or RELU (the last layer: IDENTITY, the logit) */
    nn_conv_desc conv;       /* kind CONV: square kernel, odd size, no dilation, with bias */
    nn_matmul_desc dense;    /* kind DENSE: with bias */
} nn_disc_layer;

typedef struct nn_disc_desc {
    int size;                /* the window: size x size points */
    int planes;              /* input planes */
    int num_layers;
    nn_disc_layer layer[NN_DISC_MAX_LAYERS];
    bool black_to_play;      /* trained with black to play in every window (else colour-free) */
} nn_disc_desc;

/* The number of values of layer l's output per position (c_out * size^2 or c_out). */
int nn_disc_layer_outputs(const nn_disc_desc *d, int l);

/* Checks the shapes chain (planes -> convs -> dense -> 1 logit), that every array is there and
 * every weight finite. False with a message naming the layer in err. */
bool nn_disc_desc_check(const nn_disc_desc *d, char *err, int err_len);

#endif
