/* nn/cuda/cuda_choices.h -- cuDNN's convolution algorithm choices, shared by every context of
 * one model. The first context to run a convolution shape at a batch and board size searches
 * the algorithms (cudnnFindConvolutionForwardAlgorithmEx, which times each on the device) while
 * holding the table's lock, and records its choice; the other contexts take that choice without
 * a search of their own. So searches never run side by side: one timed while another context's
 * search ran beside it could keep a slow algorithm for the context's whole life (on an H100,
 * two contexts of b18c384nbt at batch 256, warmed up together, ran at a quarter of one
 * context's rate), and the contexts of a model all run a shape the same way.
 *
 * Plain C (no CUDA header): the search itself is in cuda_layers.c. */
#ifndef SHIDO_NN_CUDA_CHOICES_H
#define SHIDO_NN_CUDA_CHOICES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* One shape's choice: the key (batch n, tensor height and width, kernel k, dilation, channels
 * in and out)
 * and what the search chose (a cudnnConvolutionFwdAlgo_t, a cudnnMathType_t, the workspace
 * the algorithm needs). */
typedef struct nn_cuda_choice {
    int n, height, width, k, dil, c_in, c_out;
    int algo, math;
    size_t ws_bytes;
} nn_cuda_choice;

typedef struct nn_cuda_choices {
    pthread_mutex_t mu;
    nn_cuda_choice *c;
    int num, cap;
} nn_cuda_choices;

/* An empty table, or NULL when out of memory. */
nn_cuda_choices *nn_cuda_choices_new(void);
void nn_cuda_choices_free(nn_cuda_choices *t);

/* The search's lock: held from the lookup to the record of a new choice. */
void nn_cuda_choices_lock(nn_cuda_choices *t);
void nn_cuda_choices_unlock(nn_cuda_choices *t);

/* Copies into *out the choice recorded for key's shape (n, height, width, k, dil, c_in, c_out)
 * whose workspace fits in ws_limit bytes; false when there is none. The caller holds the lock. */
bool nn_cuda_choices_find(const nn_cuda_choices *t, const nn_cuda_choice *key, size_t ws_limit,
                          nn_cuda_choice *out);

/* Records c; false when out of memory (the table is unchanged: the next context searches
 * again). The caller holds the lock. */
bool nn_cuda_choices_add(nn_cuda_choices *t, const nn_cuda_choice *c);

#endif
