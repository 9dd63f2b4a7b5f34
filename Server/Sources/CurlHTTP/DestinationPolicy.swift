import CCurl
import ServerSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a request whose URL someone other than the operator chose (an app's webhook, a
/// service account's `token_uri`) may connect: no server-side request forgery.
///
/// A request carrying a policy (``OutboundRequest/destinationPolicy``) is checked three times:
/// 1. before it starts: its URL, parsed by libcurl's own URL parser (`curl_url`, so the check
///    reads the host libcurl connects to, numeric forms like `0x7f000001` normalised to
///    `127.0.0.1`), must be `https` (or `http` with ``allowsInsecureLoopback``), and a host that
///    is an address or a `localhost` name must be allowed;
/// 2. at every connection: libcurl's open-socket callback gets the exact address it is about
///    to connect to, before the socket exists, and a forbidden one gets no socket. The address
///    checked is the address used: no second DNS lookup, so nothing to rebind in between;
/// 3. before the request is sent on a connection, new or reused: the connection's peer address
///    must pass too (libcurl's pre-request callback).
///
/// libcurl is also limited to `https` (`http,https` with ``allowsInsecureLoopback``) and never
/// follows a redirect. A proxy from the environment (`https_proxy`, …) is kept: the address
/// checked at connection time is then the proxy's, and the destination's name is resolved by
/// the proxy, whose own rules apply.
///
/// A forbidden address is one that ``IPAddress/specialUse`` classifies (loopback, private,
/// link-local, carrier-grade NAT, multicast, unspecified, reserved, unique local, or an IPv6
/// form of such an IPv4 address), unless it is in ``allowedBlocks``.
public struct DestinationPolicy: Sendable, Hashable {
    /// Blocks allowed although they are not public (`--allow-private-destinations`).
    public var allowedBlocks: [CIDRBlock]
    /// Plain `http` is allowed, to loopback addresses only, and loopback addresses are allowed
    /// over `https` too (`--allow-insecure-webhooks`: development).
    public var allowsInsecureLoopback: Bool
    /// Only addresses in ``allowedBlocks`` are allowed, public ones are refused too (a
    /// `token_uri` other than Google's must lead into them).
    public var onlyAllowedBlocks: Bool

    /// Creates a policy; the default allows public `https` destinations only.
    public init(allowedBlocks: [CIDRBlock] = [], allowsInsecureLoopback: Bool = false, onlyAllowedBlocks: Bool = false) {
        self.allowedBlocks = allowedBlocks
        self.allowsInsecureLoopback = allowsInsecureLoopback
        self.onlyAllowedBlocks = onlyAllowedBlocks
    }

    /// Why a destination is refused: `reason` says what is wrong ("127.0.0.1 is loopback",
    /// "the scheme is http, not https"). It never contains the URL, which may carry a secret.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, e.g. "127.0.0.1 is loopback".
        public let reason: String

        /// Creates a refusal.
        public init(_ reason: String) { self.reason = reason }

        /// "destination refused: <reason>".
        public var description: String { "destination refused: \(reason)" }
    }

    /// The result of checking a URL with DNS (``check(_:)``).
    public enum Check: Sendable, Equatable {
        /// Its host resolved (or is an address) and every address is allowed.
        case allowed([IPAddress])
        /// Its scheme and host are acceptable but the host does not resolve now; every
        /// connection is checked anyway.
        case unresolved(host: String)
        /// Refused.
        case refused(Refusal)
    }

    // MARK: Addresses

    /// Why a request whose URL is `https` (`secure`) or `http` may not connect to `address`
    /// (a peer or a proxy); nil when it may.
    public func refusal(of address: IPAddress, secure: Bool) -> Refusal? {
        if allowsInsecureLoopback, Self.isLoopback(address) { return nil }
        if !secure {
            return Refusal(
                allowsInsecureLoopback
                    ? "\(address) is not a loopback address (plain http goes to loopback addresses only)"
                    : "plain http is not allowed, only https")
        }
        if allowedBlocks.contains(where: { $0.contains(address) }) { return nil }
        guard let use = address.specialUse else {
            return onlyAllowedBlocks ? Refusal("\(address) is not in the allowed private destinations") : nil
        }
        if address.family == .ipv6, let embedded = address.embeddedIPv4, embedded.address.specialUse == use {
            return Refusal("\(address) is \(use.rawValue) (\(embedded.embedding.rawValue) \(embedded.address))")
        }
        return Refusal("\(address) is \(use.rawValue)")
    }

    /// `127.0.0.0/8`, `::1` and the IPv4-mapped form of `127.0.0.0/8`.
    static func isLoopback(_ address: IPAddress) -> Bool {
        loopbackBlocks.contains { $0.contains(address) }
    }

    static let loopbackBlocks = [try! CIDRBlock(parsing: "127.0.0.0/8"), try! CIDRBlock(parsing: "::1")]

    // MARK: URLs

    /// What `curl_url` makes of a URL: its scheme (lowercase) and host (without brackets; IDN
    /// names in punycode when libcurl can convert them; empty when there is none, as in `file:`).
    struct ParsedURL: Equatable {
        let scheme: String
        let host: String
    }

    /// Parses `url` with libcurl's URL parser; nil when libcurl would not accept it.
    static func parse(_ url: String) -> ParsedURL? {
        CurlGlobal.initialize()
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        guard ccurl_url_set_url(handle, url) == CURLUE_OK else { return nil }
        func part(_ which: CURLUPart, flags: UInt32 = 0) -> String? {
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
            defer { curl_free(value) }
            return String(cString: value)
        }
        guard let scheme = part(CURLUPART_SCHEME) else { return nil }
        var host = part(CURLUPART_HOST, flags: ccurl_url_punycode()) ?? part(CURLUPART_HOST) ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return ParsedURL(scheme: scheme.lowercased(), host: host)
    }

    /// Whether `host` is a name libcurl resolves to loopback by itself: `localhost` and names
    /// under `.localhost` (RFC 6761), without asking DNS.
    static func isLocalhostName(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name == "localhost" || name.hasSuffix(".localhost")
    }

    /// Checks `url` without DNS: libcurl must parse it, its scheme must be `https` (or `http`
    /// with ``allowsInsecureLoopback``), and a host that is an address, or a `localhost` name,
    /// must be allowed. Returns whether the URL is `https`.
    func screen(_ url: String) -> Result<Bool, Refusal> {
        guard let parsed = Self.parse(url) else { return .failure(Refusal("the URL is not one libcurl accepts")) }
        switch parsed.scheme {
        case "https": break
        case "http" where allowsInsecureLoopback: break
        case "http": return .failure(Refusal("plain http is not allowed, only https"))
        default: return .failure(Refusal("the scheme is \(parsed.scheme), not https"))
        }
        let secure = parsed.scheme == "https"
        guard !parsed.host.isEmpty else { return .failure(Refusal("the URL has no host")) }
        if let address = IPAddress(parsed.host) {
            if let refusal = refusal(of: address, secure: secure) { return .failure(refusal) }
        } else if Self.isLocalhostName(parsed.host) {
            // libcurl connects such a name to 127.0.0.1 or ::1 without asking DNS.
            let refusals = Self.loopbackBlocks.compactMap { refusal(of: $0.network, secure: secure) }
            if refusals.count == Self.loopbackBlocks.count, let first = refusals.first {
                let address = "\(Self.loopbackBlocks[0].network)"
                let rest = first.reason.hasPrefix(address) ? String(first.reason.dropFirst(address.count)) : ": " + first.reason
                return .failure(Refusal(parsed.host + rest))
            }
        }
        return .success(secure)
    }

    /// Why `url` is refused before any connection (scheme, an address or `localhost` host); nil
    /// when it may be tried. No DNS lookup.
    public func screening(_ url: String) -> Refusal? {
        if case .failure(let refusal) = screen(url) { return refusal }
        return nil
    }

    /// Checks `url` as ``screening(_:)`` does, then resolves its host (`getaddrinfo`): refused
    /// when any address it resolves to is refused; ``Check/unresolved(host:)`` when it does not
    /// resolve now. Blocks while DNS answers: call it off the event loops.
    public func check(_ url: String) -> Check {
        let secure: Bool
        switch screen(url) {
        case .failure(let refusal): return .refused(refusal)
        case .success(let value): secure = value
        }
        guard let host = Self.parse(url)?.host else { return .refused(Refusal("the URL is not one libcurl accepts")) }
        let addresses = IPAddress(host).map { [$0] } ?? Self.resolve(host)
        guard !addresses.isEmpty else { return .unresolved(host: host) }
        for address in addresses {
            if let refusal = refusal(of: address, secure: secure) {
                return .refused(IPAddress(host) == nil ? Refusal("\(refusal.reason) (an address of \(host))") : refusal)
            }
        }
        return .allowed(addresses)
    }

    /// The addresses `host` resolves to (TCP), in `getaddrinfo`'s order without repeats; empty
    /// when it does not resolve.
    static func resolve(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ai_addr,
                let ip = IPAddress(socketAddress: address, length: Int(current.pointee.ai_addrlen)),
                !addresses.contains(ip)
            {
                addresses.append(ip)
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }
}
