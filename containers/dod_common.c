/* dod_common.c - the size-independent parts of dod_common.h. */
#include "dod_common.h"

const char *dod_strerror(int err)
{
	switch (err) {
	case DOD_OK: return "ok";
	case DOD_ENOMEM: return "out of memory";
	case DOD_EINVAL: return "invalid argument";
	case DOD_ERANGE: return "handle index out of range";
	case DOD_ESTALE: return "stale handle (item was erased)";
	case DOD_EFREE: return "handle refers to a free slot";
	case DOD_EFOREIGN: return "handle from another container (type id differs)";
	case DOD_EFULL: return "container full (index space exhausted)";
	case DOD_ENOTSUP: return "operation not supported by this container";
	default: return "unknown error";
	}
}
