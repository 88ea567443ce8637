/* go/hash.h -- the one 64-bit mixer of the tree: SplitMix64 (Steele, Lea and Flood 2014), for the
 * Zobrist keys of the boards, the network cache's position keys, and seeded random streams.
 * Header-only; the constants are part of every key and stream derived from them (Zobrist tables,
 * cache keys, benchmark weights), so they never change. */
#ifndef SHIDO_GO_HASH_H
#define SHIDO_GO_HASH_H

#include <stdint.h>

/* 2^64 / the golden ratio, odd: SplitMix64's step between states. */
#define GO_HASH_GOLDEN 0x9e3779b97f4a7c15ull

/* SplitMix64's finaliser (Stafford's variant 13): a bijection on 64-bit words in which every
 * output bit depends on every input bit. Returns the mixed word. */
static inline uint64_t go_hash_mix64(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The next word of the SplitMix64 stream whose state is *state; advances *state by
 * GO_HASH_GOLDEN. */
static inline uint64_t go_splitmix64(uint64_t *state)
{
    return go_hash_mix64(*state += GO_HASH_GOLDEN);
}

#endif
