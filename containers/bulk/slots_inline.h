/* slots_inline.h - the slot layout of Our Machinery's "Bulk data": each slot { item;
 * generation; }, so a weak-pointer lookup reads one place. The layout of holes.c (layout
 * word aos) and holes_runs.c; one of the four slots_*.h a design file of the array with
 * holes includes first, before bulk/holes_core.h (the interface: holes_core.h's opening
 * comment).
 *
 *   items  [ hdr | item g | item g | item g | ... ]   one store, a slot per element
 *
 * The link of a free slot lives in the first 4 bytes of its item (holes_runs: 8 bytes,
 * next and prev); the generation lives outside that union because a hole needs it too.
 */
#ifndef DOD_BULK_SLOTS_INLINE_H
#define DOD_BULK_SLOTS_INLINE_H

#include <stddef.h>
#include <stdint.h>

#include "alloc/store.h"
#include "bulk/weak.h"
#include "dod_common.h"

struct SFX(bulk_slot) {
	DOD_ELEM item;  /* a free slot's first 4 bytes: next free (holes_runs: then prev) */
	uint32_t gen;   /* outside the union: a hole has one too */
};
#define BH_SLOT_T struct SFX(bulk_slot)
#include "bulk/slots_one_store.h"

#endif
