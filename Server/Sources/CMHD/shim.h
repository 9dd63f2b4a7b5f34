// libmicrohttpd for Swift: typed wrappers around the variadic functions.
#ifndef CMHD_SHIM_H
#define CMHD_SHIM_H

#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/// Starts a daemon bound to an IPv4 address (dotted quad) and port (0 = ephemeral).
/// Returns NULL when the address does not parse or the daemon cannot start.
static inline struct MHD_Daemon *cmhd_start(unsigned int flags, const char *ipv4, uint16_t port,
                                            MHD_AccessHandlerCallback handler, void *handler_cls,
                                            MHD_RequestCompletedCallback completed, void *completed_cls,
                                            unsigned int thread_pool_size, size_t connection_memory_limit,
                                            unsigned int connection_timeout_seconds, unsigned int connection_limit) {
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    if (inet_pton(AF_INET, ipv4, &addr.sin_addr) != 1) { return NULL; }
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_END);
}

/// The port the daemon listens on (useful after binding port 0), or 0.
static inline uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

#endif
