#ifndef CSYSTEM_SHIM_H
#define CSYSTEM_SHIM_H

/* C calls the service needs that Swift cannot make directly (variadic or GNU-only). */

#ifdef __linux__
#include <malloc.h>
#include <sys/prctl.h>

/* glibc's malloc gives every thread that allocates its own arena (up to 8 per core); each
   keeps freed memory. The service's threads (HTTP, curl loops, the Swift pool) then hold
   tens of megabytes that a few shared arenas would reuse. Returns 1 on success. */
static inline int csystem_limit_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

/* Returns free heap pages to the kernel (all arenas, not only the top). Returns 1 if any. */
static inline int csystem_trim_heap(void) { return malloc_trim(0); }

/* Names the calling thread (at most 15 bytes are kept) for top, ps and perf. */
static inline void csystem_set_thread_name(const char *name) { (void)prctl(PR_SET_NAME, name, 0, 0, 0); }
#else
static inline int csystem_limit_arenas(int count) { (void)count; return 0; }
static inline void csystem_set_thread_name(const char *name) { (void)name; }
static inline int csystem_trim_heap(void) { return 0; }
#endif

#endif
