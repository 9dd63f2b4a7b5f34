#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address: parsed from its text form, or read from a socket address, and
/// classified by the special-purpose range it belongs to (``specialUse``).
///
/// Text forms are parsed strictly, as `inet_pton(3)` does: IPv4 is four decimal parts
/// (`10.1.2.3`; no `0x7f000001`, `2130706433` or `0177.0.0.1`, whose meaning depends on the
/// parser), IPv6 is RFC 4291 text (`::1`, `fd00::1`, `::ffff:10.1.2.3`), without brackets or
/// a zone (`%eth0`).
///
/// ```swift
/// IPAddress("127.0.0.1")?.specialUse          // .loopback
/// IPAddress("::ffff:169.254.169.254")?.specialUse  // .linkLocal (the IPv4 it embeds)
/// IPAddress("8.8.8.8")?.specialUse            // nil: a public address
/// ```
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address family.
    public enum Family: Sendable, Hashable {
        /// IPv4: 4 bytes.
        case ipv4
        /// IPv6: 16 bytes.
        case ipv6
    }

    /// The address family.
    public let family: Family
    /// The address in network byte order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// An IPv4 address from its 4 bytes in network order; nil for another count.
    public init?(ipv4 bytes: [UInt8]) {
        guard bytes.count == 4 else { return nil }
        family = .ipv4
        self.bytes = bytes
    }

    /// An IPv6 address from its 16 bytes in network order; nil for another count.
    public init?(ipv6 bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        family = .ipv6
        self.bytes = bytes
    }

    /// Parses `text`: dotted-decimal IPv4 (`127.0.0.1`) or IPv6 (`::1`); nil for anything
    /// else (names, brackets, zones, prefix lengths, the non-decimal IPv4 forms).
    public init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self.init(ipv4: withUnsafeBytes(of: &v4) { Array($0) })
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            self.init(ipv6: withUnsafeBytes(of: &v6) { Array($0) })
            return
        }
        return nil
    }

    /// Reads the address of a `sockaddr_in` or `sockaddr_in6` of `length` bytes at `socketAddress`
    /// (what `getaddrinfo`, `accept` or libcurl hand out); nil for another family or a short length.
    public init?(socketAddress: UnsafeRawPointer, length: Int) {
        guard length >= MemoryLayout<sockaddr>.size else { return nil }
        let family = Int32(
            socketAddress.loadUnaligned(fromByteOffset: MemoryLayout<sockaddr>.offset(of: \.sa_family)!, as: sa_family_t.self))
        switch family {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            let offset = MemoryLayout<sockaddr_in>.offset(of: \.sin_addr)!
            self.init(ipv4: Array(UnsafeRawBufferPointer(start: socketAddress + offset, count: 4)))
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            let offset = MemoryLayout<sockaddr_in6>.offset(of: \.sin6_addr)!
            self.init(ipv6: Array(UnsafeRawBufferPointer(start: socketAddress + offset, count: 16)))
        default:
            return nil
        }
    }

    /// The canonical text form (`127.0.0.1`, `::1`, `::ffff:10.1.2.3`), without brackets.
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(family == .ipv4 ? AF_INET : AF_INET6, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        guard ok else { return bytes.map(String.init).joined(separator: ".") }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Special-purpose ranges

    /// A range of addresses that is not a public internet destination, after the IANA
    /// special-purpose address registries (RFC 6890 and its updates).
    public enum SpecialUse: String, Sendable, CaseIterable {
        /// `0.0.0.0/8` ("this network") and `::`.
        case unspecified = "unspecified (\"this network\")"
        /// `127.0.0.0/8` and `::1`.
        case loopback = "loopback"
        /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16` (RFC 1918), the deprecated IPv6
        /// site-local `fec0::/10` and the local-use NAT64 prefix `64:ff9b:1::/48`.
        case privateUse = "private"
        /// `100.64.0.0/10`, the carrier-grade NAT range (RFC 6598).
        case sharedAddressSpace = "carrier-grade NAT (shared address space)"
        /// `169.254.0.0/16` (where cloud metadata services answer) and `fe80::/10`.
        case linkLocal = "link-local"
        /// `fc00::/7`, IPv6's private addresses (RFC 4193).
        case uniqueLocal = "unique local (private IPv6)"
        /// `224.0.0.0/4` and `ff00::/8`.
        case multicast = "multicast"
        /// `255.255.255.255`.
        case broadcast = "broadcast"
        /// `192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24` and `2001:db8::/32`.
        case documentation = "reserved for documentation"
        /// `240.0.0.0/4` (future use), `192.0.0.0/24` (IETF protocol assignments),
        /// `198.18.0.0/15` (benchmarking) and `100::/64` (discard-only).
        case reserved = "reserved"
    }

    /// How an IPv6 address carries an IPv4 address (``embeddedIPv4``).
    public enum Embedding: String, Sendable {
        /// `::ffff:a.b.c.d` (RFC 4291): an IPv4 peer as a dual-stack socket sees it.
        case mapped = "IPv4-mapped"
        /// `::a.b.c.d`, deprecated (RFC 4291).
        case compatible = "IPv4-compatible"
        /// `64:ff9b::a.b.c.d` (RFC 6052): a NAT64 gateway forwards it to the IPv4 address.
        case nat64 = "NAT64"
        /// `2002:aabb:ccdd::/48` (RFC 3056): 6to4, relayed to `aa.bb.cc.dd`.
        case sixToFour = "6to4"
        /// `2001:0::/32` (RFC 4380): Teredo, relayed to the client's IPv4 address (stored
        /// inverted in the last 32 bits).
        case teredo = "Teredo"
    }

    /// The IPv4 address an IPv6 address leads to, and how: IPv4-mapped, IPv4-compatible,
    /// NAT64 (`64:ff9b::/96`), 6to4 and Teredo forms. Nil for IPv4 addresses, for `::` and
    /// `::1`, and for every other IPv6 address.
    public var embeddedIPv4: (embedding: Embedding, address: IPAddress)? {
        guard family == .ipv6 else { return nil }
        let b = bytes
        let zeroTo = { (end: Int) in b[0..<end].allSatisfy { $0 == 0 } }
        if zeroTo(10), b[10] == 0xff, b[11] == 0xff {
            return (.mapped, IPAddress(ipv4: Array(b[12..<16]))!)
        }
        if zeroTo(12), !zeroTo(15) || b[15] > 1 {
            return (.compatible, IPAddress(ipv4: Array(b[12..<16]))!)
        }
        if b[0..<4] == [0x00, 0x64, 0xff, 0x9b], b[4..<12].allSatisfy({ $0 == 0 }) {
            return (.nat64, IPAddress(ipv4: Array(b[12..<16]))!)
        }
        if b[0] == 0x20, b[1] == 0x02 {
            return (.sixToFour, IPAddress(ipv4: Array(b[2..<6]))!)
        }
        if b[0..<4] == [0x20, 0x01, 0x00, 0x00] {
            return (.teredo, IPAddress(ipv4: b[12..<16].map { ~$0 })!)
        }
        return nil
    }

    /// The special-purpose range of this address, or of the IPv4 address it embeds
    /// (``embeddedIPv4``: `::ffff:127.0.0.1` is loopback, `2002:a00:1::1` private); nil for a
    /// public (globally reachable) address.
    public var specialUse: SpecialUse? {
        if let own = Self.ranges.first(where: { $0.block.contains(self, matchingMapped: false) }) { return own.use }
        return embeddedIPv4?.address.specialUse
    }

    /// The special-purpose ranges, most specific first where they overlap.
    static let ranges: [(block: CIDRBlock, use: SpecialUse)] = [
        ("0.0.0.0/8", .unspecified), ("10.0.0.0/8", .privateUse), ("100.64.0.0/10", .sharedAddressSpace),
        ("127.0.0.0/8", .loopback), ("169.254.0.0/16", .linkLocal), ("172.16.0.0/12", .privateUse),
        ("192.0.0.0/24", .reserved), ("192.0.2.0/24", .documentation), ("192.168.0.0/16", .privateUse),
        ("198.18.0.0/15", .reserved), ("198.51.100.0/24", .documentation), ("203.0.113.0/24", .documentation),
        ("224.0.0.0/4", .multicast), ("255.255.255.255/32", .broadcast), ("240.0.0.0/4", .reserved),
        ("::/128", .unspecified), ("::1/128", .loopback), ("64:ff9b:1::/48", .privateUse), ("100::/64", .reserved),
        ("2001:db8::/32", .documentation), ("fc00::/7", .uniqueLocal), ("fe80::/10", .linkLocal), ("fec0::/10", .privateUse),
        ("ff00::/8", .multicast),
    ].map { text, use in (try! CIDRBlock(parsing: text), use) }
}

/// A block of addresses in CIDR notation: `10.0.0.0/8`, `fd00::/8`, or one address
/// (`127.0.0.1` is `127.0.0.1/32`, `::1` is `::1/128`).
///
/// The address must be the block's first one (`10.0.0.1/8` is refused: its host bits are set,
/// so the block meant is unclear). An IPv4 block also contains the IPv4-mapped IPv6 form of its
/// addresses (`::ffff:10.1.2.3` is in `10.0.0.0/8`): that is how a dual-stack socket shows an
/// IPv4 peer.
public struct CIDRBlock: Hashable, Sendable, CustomStringConvertible {
    /// Why a text is not a CIDR block.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        /// The text that was parsed.
        public let text: String
        /// What is wrong with it.
        public let problem: String

        /// `"<text>" is not a CIDR block: <problem>`.
        public var description: String { "\"\(text)\" is not a CIDR block: \(problem)" }
    }

    /// The first address of the block.
    public let network: IPAddress
    /// The number of leading bits every address of the block shares (0...32 or 0...128).
    public let prefixLength: Int

    /// Parses `address/prefix` or a single address (``IPAddress`` text forms).
    /// - Throws: ``ParseError`` saying what is wrong.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingSpaces
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = IPAddress(String(parts[0])) else {
            throw ParseError(
                text: text,
                problem: parts.count > 2
                    ? "more than one \"/\"" : "\"\(parts[0])\" is not an IPv4 (a.b.c.d) or IPv6 address")
        }
        let bits = address.family == .ipv4 ? 32 : 128
        var length = bits
        if parts.count == 2 {
            guard let parsed = Int(parts[1]), (0...bits).contains(parsed), parts[1].allSatisfy(\.isASCII) else {
                throw ParseError(text: text, problem: "the prefix length must be a number in 0...\(bits)")
            }
            length = parsed
        }
        let masked = Self.mask(address.bytes, to: length)
        guard masked == address.bytes else {
            let network = address.family == .ipv4 ? IPAddress(ipv4: masked)! : IPAddress(ipv6: masked)!
            throw ParseError(text: text, problem: "bits are set after the first \(length); did you mean \(network)/\(length)?")
        }
        network = address
        prefixLength = length
    }

    /// Parses a comma-separated list (`"10.0.0.0/8, fd00::/8"`); an empty text is no block.
    /// - Throws: ``ParseError`` for the first entry that is not a block.
    public static func parseList(_ text: String) throws -> [CIDRBlock] {
        try text.split(separator: ",").map(String.init).filter { !$0.trimmingSpaces.isEmpty }.map(CIDRBlock.init(parsing:))
    }

    /// `network/prefixLength`, e.g. `10.0.0.0/8`.
    public var description: String { "\(network)/\(prefixLength)" }

    /// Whether `address` is in the block; an IPv4 block also contains the IPv4-mapped IPv6
    /// form of its addresses.
    public func contains(_ address: IPAddress) -> Bool {
        contains(address, matchingMapped: true)
    }

    func contains(_ address: IPAddress, matchingMapped: Bool) -> Bool {
        var candidate = address
        if matchingMapped, network.family == .ipv4, let embedded = address.embeddedIPv4, embedded.embedding == .mapped {
            candidate = embedded.address
        }
        guard candidate.family == network.family else { return false }
        return Self.mask(candidate.bytes, to: prefixLength) == network.bytes
    }

    static func mask(_ bytes: [UInt8], to length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let keep = max(0, min(8, length - index * 8))
            return keep == 8 ? byte : byte & ~(UInt8(0xff) >> keep)
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return String(text)
    }
}
