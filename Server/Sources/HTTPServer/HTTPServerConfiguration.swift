import ServerSupport

/// Limits and threading of an ``HTTPServer``.
public struct HTTPServerConfiguration: Sendable {
    /// IPv4 address to bind (`127.0.0.1` by default; `0.0.0.0` for every interface).
    public var host: String
    /// Port; 0 picks a free one (read ``HTTPServer/port`` after starting).
    public var port: Int
    /// Largest accepted body; bigger ones get the `tooLarge` response.
    public var maxBodyBytes: Int
    /// Memory per connection for the request line and headers (larger headers get 431).
    public var connectionMemoryLimit: Int
    /// Threads serving connections (each runs its own epoll loop).
    public var threads: Int
    /// Idle seconds before a connection is closed (libmicrohttpd's timeout: any traffic resets it).
    public var connectionTimeoutSeconds: Int
    /// Most concurrent connections in all. Capped by the process's open-file limit (see
    /// ``HTTPServer/effectiveConnectionLimit``).
    public var connectionLimit: Int
    /// Most concurrent connections from one peer address (0: no limit); addresses in
    /// ``trustedProxies`` are exempt.
    public var connectionsPerAddress: Int
    /// Seconds a connection has for its whole request (request line, headers and body), counted
    /// from the connection's start or from the end of the previous response. Traffic does not
    /// extend it, so a client that trickles a header line every few seconds is cut off.
    public var requestTimeoutSeconds: Double
    /// Reverse proxies in front of the server: exempt from the per-address limit, and their
    /// `X-Forwarded-For` names the client (``HTTPRequest/clientAddress``).
    public var trustedProxies: [CIDRBlock]
    /// Connections waiting to be accepted (the listen backlog).
    public var listenBacklog: Int

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, maxBodyBytes: Int = 64 * 1024, connectionMemoryLimit: Int = 32 * 1024,
        threads: Int = 4, connectionTimeoutSeconds: Int = 30, connectionLimit: Int = 16_384, connectionsPerAddress: Int = 256,
        requestTimeoutSeconds: Double = 10, trustedProxies: [CIDRBlock] = [], listenBacklog: Int = 4_096
    ) {
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.connectionMemoryLimit = connectionMemoryLimit
        self.threads = threads
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.connectionLimit = connectionLimit
        self.connectionsPerAddress = connectionsPerAddress
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.trustedProxies = trustedProxies
        self.listenBacklog = listenBacklog
    }
}
