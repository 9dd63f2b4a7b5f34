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
    /// Idle seconds before a connection is closed.
    public var connectionTimeoutSeconds: Int
    /// Most concurrent connections.
    public var connectionLimit: Int

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, maxBodyBytes: Int = 64 * 1024, connectionMemoryLimit: Int = 32 * 1024,
        threads: Int = 4, connectionTimeoutSeconds: Int = 30, connectionLimit: Int = 1_000
    ) {
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.connectionMemoryLimit = connectionMemoryLimit
        self.threads = threads
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.connectionLimit = connectionLimit
    }
}
