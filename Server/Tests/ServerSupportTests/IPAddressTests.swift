#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ServerSupport
import Testing

/// `IPAddress` and `CIDRBlock`: strict parsing, the special-purpose ranges, the IPv6 forms that
/// carry an IPv4 address, and block membership.
struct IPAddressTests {
    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1"), ("0.0.0.0", "0.0.0.0"), ("255.255.255.255", "255.255.255.255"), ("::1", "::1"),
        ("::", "::"), ("FD00:0:0::1", "fd00::1"), ("::ffff:10.1.2.3", "::ffff:10.1.2.3"),
        ("2001:db8::8:800:200c:417a", "2001:db8::8:800:200c:417a"),
    ])
    func textFormsParseToTheirCanonicalForm(text: String, canonical: String) throws {
        let address = try #require(IPAddress(text))
        #expect(address.description == canonical)
        #expect(address.bytes.count == (address.family == .ipv4 ? 4 : 16))
    }

    /// Forms whose meaning depends on the parser (`inet_aton` reads `0177.0.0.1` as octal,
    /// `2130706433` as one number) are not addresses here: URLs go through libcurl instead.
    @Test(arguments: [
        "0x7f000001", "2130706433", "0177.0.0.1", "127.1", "127.0.0.01", "256.0.0.1", "1.2.3", "1.2.3.4.5", "[::1]", "fe80::1%eth0",
        "10.0.0.0/8", "localhost", "", " 127.0.0.1", "::1::2", "12345::",
    ])
    func ambiguousAndMalformedTextIsNotAnAddress(text: String) {
        #expect(IPAddress(text) == nil)
    }

    @Test(arguments: [
        ("0.1.2.3", IPAddress.SpecialUse.unspecified), ("10.255.0.1", .privateUse), ("100.64.0.1", .sharedAddressSpace),
        ("100.127.255.255", .sharedAddressSpace), ("127.0.0.1", .loopback), ("127.255.255.254", .loopback),
        ("169.254.169.254", .linkLocal), ("172.16.0.1", .privateUse), ("172.31.255.255", .privateUse), ("192.168.1.20", .privateUse),
        ("192.0.0.170", .reserved), ("192.0.2.1", .documentation), ("198.18.0.1", .reserved), ("198.51.100.7", .documentation),
        ("203.0.113.9", .documentation), ("224.0.0.251", .multicast), ("239.255.255.250", .multicast), ("240.0.0.1", .reserved),
        ("255.255.255.255", .broadcast), ("::", .unspecified), ("::1", .loopback), ("fe80::1", .linkLocal), ("febf::1", .linkLocal),
        ("fec0::1", .privateUse), ("fc00::1", .uniqueLocal), ("fd12:3456::1", .uniqueLocal), ("ff02::1", .multicast),
        ("2001:db8::1", .documentation), ("100::1", .reserved), ("64:ff9b:1::a00:1", .privateUse),
    ])
    func specialPurposeAddressesAreClassified(text: String, use: IPAddress.SpecialUse) throws {
        #expect(try #require(IPAddress(text)).specialUse == use)
    }

    @Test(arguments: [
        "8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "169.253.255.255", "192.167.255.255",
        "192.169.0.0", "198.20.0.0", "223.255.255.255", "11.0.0.1", "2606:4700:4700::1111", "2a00:1450:4001::200e", "fbff::1",
        "fe7f::1", "2002:808:808::1", "64:ff9b::808:808", "::ffff:8.8.8.8",
    ])
    func publicAddressesHaveNoSpecialUse(text: String) throws {
        #expect(try #require(IPAddress(text)).specialUse == nil)
    }

    /// An IPv6 address that leads to an IPv4 address is what that IPv4 address is.
    @Test(arguments: [
        ("::ffff:127.0.0.1", IPAddress.Embedding.mapped, "127.0.0.1", IPAddress.SpecialUse.loopback),
        ("::ffff:a9fe:a9fe", .mapped, "169.254.169.254", .linkLocal),
        ("::ffff:0.0.0.0", .mapped, "0.0.0.0", .unspecified),
        ("::127.0.0.1", .compatible, "127.0.0.1", .loopback),
        ("::10.0.0.1", .compatible, "10.0.0.1", .privateUse),
        ("64:ff9b::7f00:1", .nat64, "127.0.0.1", .loopback),
        ("64:ff9b::192.168.0.1", .nat64, "192.168.0.1", .privateUse),
        ("2002:7f00:1::1", .sixToFour, "127.0.0.1", .loopback),
        ("2002:a9fe:a9fe:1::", .sixToFour, "169.254.169.254", .linkLocal),
        ("2001:0:4136:e378:8000:63bf:f5ff:fffe", .teredo, "10.0.0.1", .privateUse),
    ])
    func embeddedIPv4AddressesAreClassifiedAsThemselves(
        text: String, embedding: IPAddress.Embedding, ipv4: String, use: IPAddress.SpecialUse
    ) throws {
        let address = try #require(IPAddress(text))
        let embedded = try #require(address.embeddedIPv4)
        #expect(embedded.embedding == embedding)
        #expect(embedded.address == IPAddress(ipv4))
        #expect(address.specialUse == use)
    }

    @Test func ipv4AndPlainIPv6AddressesEmbedNothing() throws {
        for text in ["127.0.0.1", "::", "::1", "fd00::1", "2606:4700::1"] {
            #expect(try #require(IPAddress(text)).embeddedIPv4 == nil, "\(text)")
        }
    }

    @Test func socketAddressesAreRead() throws {
        var v4 = sockaddr_in()
        v4.sin_family = sa_family_t(AF_INET)
        _ = inet_pton(AF_INET, "10.1.2.3", &v4.sin_addr)
        let fromV4 = withUnsafeBytes(of: &v4) { IPAddress(socketAddress: $0.baseAddress!, length: $0.count) }
        #expect(fromV4 == IPAddress("10.1.2.3"))
        var v6 = sockaddr_in6()
        v6.sin6_family = sa_family_t(AF_INET6)
        _ = inet_pton(AF_INET6, "::ffff:127.0.0.1", &v6.sin6_addr)
        let fromV6 = withUnsafeBytes(of: &v6) { IPAddress(socketAddress: $0.baseAddress!, length: $0.count) }
        #expect(fromV6 == IPAddress("::ffff:127.0.0.1"))
        // Too short for its family, or another family: no address.
        #expect(withUnsafeBytes(of: &v6) { IPAddress(socketAddress: $0.baseAddress!, length: MemoryLayout<sockaddr_in>.size) } == nil)
        var unix = sockaddr_un()
        unix.sun_family = sa_family_t(AF_UNIX)
        #expect(withUnsafeBytes(of: &unix) { IPAddress(socketAddress: $0.baseAddress!, length: $0.count) } == nil)
    }

    // MARK: CIDR blocks

    @Test(arguments: [
        ("10.0.0.0/8", "10.0.0.0/8"), ("127.0.0.1", "127.0.0.1/32"), ("::1", "::1/128"), ("fd00::/8", "fd00::/8"),
        ("0.0.0.0/0", "0.0.0.0/0"), ("::/0", "::/0"), (" 192.168.0.0/16 ", "192.168.0.0/16"), ("FD00::/8", "fd00::/8"),
    ])
    func blocksParse(text: String, canonical: String) throws {
        #expect(try CIDRBlock(parsing: text).description == canonical)
    }

    @Test(arguments: [
        ("10.0.0.1/8", "bits are set after the first 8; did you mean 10.0.0.0/8?"),
        ("10.0.0.0/33", "the prefix length must be a number in 0...32"),
        ("fd00::/129", "the prefix length must be a number in 0...128"),
        ("10.0.0.0/", "the prefix length must be a number in 0...32"),
        ("10.0.0.0/-1", "the prefix length must be a number in 0...32"),
        ("10.0.0.0/8/8", "more than one \"/\""),
        ("10.0.0/8", "\"10.0.0\" is not an IPv4 (a.b.c.d) or IPv6 address"),
        ("0x0a000000/8", "\"0x0a000000\" is not an IPv4 (a.b.c.d) or IPv6 address"),
        ("intranet", "\"intranet\" is not an IPv4 (a.b.c.d) or IPv6 address"),
    ])
    func badBlocksSayWhatIsWrong(text: String, problem: String) {
        #expect {
            try CIDRBlock(parsing: text)
        } throws: { error in
            (error as? CIDRBlock.ParseError)?.description == "\"\(text)\" is not a CIDR block: \(problem)"
        }
    }

    @Test func membershipFollowsThePrefix() throws {
        let block = try CIDRBlock(parsing: "172.16.0.0/12")
        #expect(block.contains(IPAddress("172.16.0.0")!) && block.contains(IPAddress("172.31.255.255")!))
        #expect(!block.contains(IPAddress("172.32.0.0")!) && !block.contains(IPAddress("172.15.255.255")!))
        let one = try CIDRBlock(parsing: "127.0.0.1")
        #expect(one.contains(IPAddress("127.0.0.1")!) && !one.contains(IPAddress("127.0.0.2")!))
        let v6 = try CIDRBlock(parsing: "fd00::/8")
        #expect(v6.contains(IPAddress("fd12::1")!) && !v6.contains(IPAddress("fc00::1")!))
        #expect(!v6.contains(IPAddress("10.0.0.1")!) && !block.contains(IPAddress("fd00::1")!))
        #expect(try CIDRBlock(parsing: "0.0.0.0/0").contains(IPAddress("8.8.8.8")!))
    }

    /// A dual-stack socket shows an IPv4 peer as `::ffff:a.b.c.d`: an IPv4 block contains that
    /// form. Other embeddings (NAT64, 6to4) are other addresses and stay outside.
    @Test func anIPv4BlockContainsTheMappedFormOnly() throws {
        let block = try CIDRBlock(parsing: "10.0.0.0/8")
        #expect(block.contains(IPAddress("::ffff:10.1.2.3")!))
        #expect(!block.contains(IPAddress("64:ff9b::a01:203")!))
        #expect(!block.contains(IPAddress("2002:a01:203::1")!))
        #expect(!block.contains(IPAddress("::ffff:11.1.2.3")!))
    }

    @Test func listsAreCommaSeparated() throws {
        #expect(try CIDRBlock.parseList("10.0.0.0/8, fd00::/8,127.0.0.1").map(\.description) == ["10.0.0.0/8", "fd00::/8", "127.0.0.1/32"])
        #expect(try CIDRBlock.parseList("").isEmpty)
        #expect(try CIDRBlock.parseList(" , ").isEmpty)
        #expect(throws: CIDRBlock.ParseError.self) { try CIDRBlock.parseList("10.0.0.0/8,bogus") }
    }
}
