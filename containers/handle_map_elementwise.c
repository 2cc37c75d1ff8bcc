/* handle_map_elementwise.c - handle_map with defragment's memmove path switched off: the
 * article's claim that the path for trivially copyable items is 8-10% faster (Jeff Kiah,
 * "Game Engine Containers - handle_map", 2016, defragment) needs the other path beside
 * it, on the same items. This is containers/handle_map.c compiled again with
 * HMAP_ELEMENTWISE_MOVES: defragment moves one item at a time and fixes its sparse entry
 * in the same loop (shift_run), everything else is handle_map's own code. Its public
 * functions are static here (HMAP_API), so both objects link into one program; tests of
 * the design's API use handle_map's. The variant's line in containers/variants.tsv names
 * this file.
 */
#define HMAP_ELEMENTWISE_MOVES 1
#define HMAP_API static __attribute__((unused))
#include "handle_map.c"
