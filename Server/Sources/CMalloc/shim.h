#ifndef CMALLOC_SHIM_H
#define CMALLOC_SHIM_H

#include <malloc.h>

/* glibc's malloc gives every thread that allocates its own arena (up to 8 per core); each
   keeps freed memory. The service's threads (HTTP, curl loops, the Swift pool) then hold
   tens of megabytes that a few shared arenas would reuse. Returns 1 on success. */
static inline int cmalloc_limit_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

#endif
