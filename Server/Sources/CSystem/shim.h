#ifndef CSYSTEM_SHIM_H
#define CSYSTEM_SHIM_H

/* C calls the service needs that Swift cannot make directly (variadic or GNU-only). */

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <pthread.h>

#ifdef __linux__
#include <malloc.h>
#include <sys/prctl.h>

/* glibc 2.34+ (declared only under _GNU_SOURCE, which a module header cannot rely on). */
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/* glibc's malloc gives every thread that allocates its own arena (up to 8 per core); each
   keeps freed memory. The service's threads (HTTP, curl loops, the Swift pool) then hold
   tens of megabytes that a few shared arenas would reuse. Returns 1 on success. */
static inline int csystem_limit_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

/* Returns free heap pages to the kernel (all arenas, not only the top). Returns 1 if any. */
static inline int csystem_trim_heap(void) { return malloc_trim(0); }

/* A non-blocking, close-on-exec eventfd (a loop's wake-up: NativeHTTP2), or -1. */
#include <sys/eventfd.h>
static inline int csystem_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

/* Blocks SIGPIPE in the calling thread: a write to a socket the peer closed then fails with
   EPIPE instead of ending the process (OpenSSL writes to its socket with write(2), which has no
   MSG_NOSIGNAL). The signal stays pending on the thread and is never delivered. */
static inline void csystem_block_sigpipe(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/* Names the calling thread (at most 15 bytes are kept) for top, ps and perf. */
static inline void csystem_set_thread_name(const char *name) { (void)prctl(PR_SET_NAME, name, 0, 0, 0); }
#else
static inline int csystem_limit_arenas(int count) { (void)count; return 0; }
static inline void csystem_set_thread_name(const char *name) { (void)name; }
static inline int csystem_eventfd(void) { return -1; }
static inline void csystem_block_sigpipe(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}
static inline int csystem_trim_heap(void) { return 0; }
#endif

/* Starts `path` with `argv` and `envp` (NULL-terminated): standard input from /dev/null,
   standard output and error to the given descriptors (-1: /dev/null), every other descriptor
   closed in the child (on Linux; glibc 2.34+), default signal dispositions and an empty signal mask. Returns 0 and
   sets *pid, or an errno value. For the tests' child processes: Foundation's Process.run of
   Swift 6.3.1 lists /proc/self/fd with a 256-byte copy of each entry name that can read past
   the end of a page and crash the test process. */
static inline int csystem_spawn(const char *path, char *const argv[], char *const envp[], int out, int err, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    sigset_t none, all;
    int rc;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    if (out >= 0) posix_spawn_file_actions_adddup2(&actions, out, 1);
    else posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    if (err >= 0) posix_spawn_file_actions_adddup2(&actions, err, 2);
    else posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
#ifdef __linux__
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
    posix_spawnattr_init(&attributes);
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    rc = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

#endif
