#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// PROVISIONAL (lead's branch): replaced by the egress work's IP types at merge.

/// An IPv4 or IPv6 address.
public struct IPAddress: Sendable, Hashable {
    /// 4 bytes (IPv4) or 16 (IPv6).
    public let bytes: [UInt8]

    /// Parses dotted-quad IPv4 or IPv6 text; nil otherwise.
    public init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }
}

/// A block of addresses: an address and a prefix length.
public struct CIDRBlock: Sendable, Hashable {
    let base: IPAddress
    let prefix: Int

    /// Parses `10.0.0.0/8` or a single address.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let base = IPAddress(parts[0]) else { return nil }
        let bits = base.bytes.count * 8
        let prefix = parts.count == 2 ? Int(parts[1]) : bits
        guard let prefix, (0...bits).contains(prefix) else { return nil }
        self.base = base
        self.prefix = prefix
    }

    /// Whether `address` is in the block.
    public func contains(_ address: IPAddress) -> Bool {
        guard address.bytes.count == base.bytes.count else { return false }
        var left = prefix
        for index in 0..<base.bytes.count where left > 0 {
            let take = min(8, left)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - take))
            if address.bytes[index] & mask != base.bytes[index] & mask { return false }
            left -= take
        }
        return true
    }
}
