/* test_handle_map_64.c - the handle_map unit tests for 64-byte items (a size class whose
 * moves copy padding): tests/test_handle_map.c compiled with ELEM_BYTES 64. */
#define ELEM_BYTES 64
#include "test_handle_map.c"
