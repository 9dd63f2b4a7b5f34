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
/// `accept` decides per peer address before a connection is set up; `notify` hears each
/// connection start and close (its `socket_context` is the connection's own slot).
/// Returns NULL when the address does not parse or the daemon cannot start.
static inline struct MHD_Daemon *cmhd_start(unsigned int flags, const char *ipv4, uint16_t port,
                                            MHD_AcceptPolicyCallback accept, void *accept_cls,
                                            MHD_AccessHandlerCallback handler, void *handler_cls,
                                            MHD_RequestCompletedCallback completed, void *completed_cls,
                                            MHD_NotifyConnectionCallback notify, void *notify_cls,
                                            unsigned int thread_pool_size, size_t connection_memory_limit,
                                            unsigned int connection_timeout_seconds, unsigned int connection_limit,
                                            unsigned int listen_backlog) {
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    if (inet_pton(AF_INET, ipv4, &addr.sin_addr) != 1) { return NULL; }
    return MHD_start_daemon(flags, port, accept, accept_cls, handler, handler_cls,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_cls,
                            MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_LISTEN_BACKLOG_SIZE, listen_backlog,
                            MHD_OPTION_END);
}

/// The port the daemon listens on (useful after binding port 0), or 0.
static inline uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The connection's socket, or -1.
static inline int cmhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// What the connection's `socket_context` holds (set when it started), or NULL.
static inline void *cmhd_connection_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// The peer's address as text (IPv4 dotted quad, or IPv6) in `out` (at least
/// INET6_ADDRSTRLEN bytes); returns 0 on success.
static inline int cmhd_format_address(const struct sockaddr *addr, char *out, socklen_t size) {
    if (addr == NULL) return -1;
    if (addr->sa_family == AF_INET) {
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)addr)->sin_addr, out, size) == NULL ? -1 : 0;
    }
    if (addr->sa_family == AF_INET6) {
        return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)addr)->sin6_addr, out, size) == NULL ? -1 : 0;
    }
    return -1;
}

/// The connection's peer address as text in `out`; returns 0 on success.
static inline int cmhd_connection_address(struct MHD_Connection *connection, char *out, socklen_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? -1 : cmhd_format_address(info->client_addr, out, size);
}

#endif
