/// What an ``APNsClient`` sends with (`--apns-transport`).
public enum APNsTransport: String, Sendable, CaseIterable {
    /// libcurl's multi interface (CurlHTTP's `HTTP2Client`): one loop thread per connection
    /// pool entry, up to two connections each.
    case curl
    /// The HTTP/2 client of our own on libnghttp2 and libssl (NativeHTTP2's
    /// `NativeHTTP2Client`): one loop thread per connection, frames coalesced into one TLS write
    /// per turn.
    case native
}
