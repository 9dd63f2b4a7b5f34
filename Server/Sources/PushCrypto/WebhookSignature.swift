import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Signs webhook bodies: `X-Push-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
/// Receivers recompute the MAC, compare in constant time, and reject old timestamps.
public enum WebhookSignature {
    /// The header value for `body` at `timestamp`.
    public static func header(secret: Data, timestamp: Int64, body: Data) -> String {
        "t=\(timestamp),v1=\(mac(secret: secret, timestamp: timestamp, body: body).hexString)"
    }

    /// The MAC of `"<timestamp>.<body>"`.
    public static func mac(secret: Data, timestamp: Int64, body: Data) -> Data {
        Crypto.hmacSHA256(key: secret, data: Data("\(timestamp).".utf8) + body)
    }

    /// Checks a header value against `body` in constant time.
    public static func verify(header: String, secret: Data, body: Data) -> Bool {
        var timestamp: Int64?
        var signature: Data?
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) }
            if pair[0] == "v1" { signature = Data(hex: pair[1]) }
        }
        guard let timestamp, let signature else { return false }
        return Crypto.constantTimeEquals(signature, mac(secret: secret, timestamp: timestamp, body: body))
    }
}
