import CNGHTTP2
import CurlHTTP

/// Builds a request's header list for `nghttp2_submit_request` in storage the loop reuses: the
/// pseudo-headers and the names APNs requests carry point at static strings (nghttp2 does not
/// copy them, `NGHTTP2_NV_FLAG_NO_COPY_NAME`); every other name and every value is packed into
/// one byte buffer that nghttp2 copies during the call.
final class HeaderBlock {
    private var entries: UnsafeMutablePointer<nghttp2_nv>
    private var entryCapacity = 16
    private var bytes: UnsafeMutablePointer<UInt8>
    private var byteCapacity = 4096

    init() {
        entries = .allocate(capacity: entryCapacity)
        bytes = .allocate(capacity: byteCapacity)
    }

    deinit {
        entries.deallocate()
        bytes.deallocate()
    }

    private static let method: StaticString = ":method"
    private static let scheme: StaticString = ":scheme"
    private static let authority: StaticString = ":authority"
    private static let path: StaticString = ":path"
    private static let post: StaticString = "POST"
    private static let get: StaticString = "GET"
    private static let https: StaticString = "https"

    /// The static name for a header name requests commonly carry, or nil.
    private static func staticName(_ name: String) -> StaticString? {
        switch name {
        case "authorization": "authorization"
        case "apns-topic": "apns-topic"
        case "apns-push-type": "apns-push-type"
        case "apns-priority": "apns-priority"
        case "apns-expiration": "apns-expiration"
        case "apns-collapse-id": "apns-collapse-id"
        case "apns-id": "apns-id"
        case "content-type": "content-type"
        default: nil
        }
    }

    /// Calls `body` with the header list of `request` (path `path` on `origin`) and its length.
    func withHeaders<T>(
        of request: OutboundRequest, path: Substring.UTF8View, origin: Origin,
        _ body: (UnsafePointer<nghttp2_nv>, Int) -> T
    ) -> T {
        let count = 4 + request.headers.count
        if count > entryCapacity {
            entries.deallocate()
            entryCapacity = max(count, entryCapacity * 2)
            entries = .allocate(capacity: entryCapacity)
        }
        var needed = origin.authority.utf8.count + path.count
        for header in request.headers { needed += header.name.utf8.count + header.value.utf8.count }
        if needed > byteCapacity {
            bytes.deallocate()
            byteCapacity = max(needed, byteCapacity * 2)
            bytes = .allocate(capacity: byteCapacity)
        }
        var used = 0
        var index = 0
        func staticEntry(_ name: StaticString, _ value: StaticString) {
            entries[index] = nghttp2_nv(
                name: UnsafeMutablePointer(mutating: name.utf8Start), value: UnsafeMutablePointer(mutating: value.utf8Start),
                namelen: name.utf8CodeUnitCount, valuelen: value.utf8CodeUnitCount,
                flags: cnghttp2_flag_no_copy_name() | cnghttp2_flag_no_copy_value())
            index += 1
        }
        /// Copies `text` into the byte buffer (lowercased when it is a name) and returns where.
        func pack<S: Sequence>(_ text: S, lowercase: Bool) -> (UnsafeMutablePointer<UInt8>, Int) where S.Element == UInt8 {
            let start = bytes + used
            if !lowercase,
                let count = text.withContiguousStorageIfAvailable({ source -> Int in
                    if let base = source.baseAddress { start.update(from: base, count: source.count) }
                    return source.count
                })
            {
                // A native string's bytes in one copy.
                used += count
                return (start, count)
            }
            for byte in text {
                bytes[used] = lowercase && byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
                used += 1
            }
            return (start, bytes + used - start)
        }
        func entry(name: StaticString, value: (UnsafeMutablePointer<UInt8>, Int)) {
            entries[index] = nghttp2_nv(
                name: UnsafeMutablePointer(mutating: name.utf8Start), value: value.0, namelen: name.utf8CodeUnitCount,
                valuelen: value.1, flags: cnghttp2_flag_no_copy_name())
            index += 1
        }
        staticEntry(Self.method, request.body == nil ? Self.get : Self.post)
        staticEntry(Self.scheme, Self.https)
        entry(name: Self.authority, value: pack(origin.authority.utf8, lowercase: false))
        entry(name: Self.path, value: pack(path, lowercase: false))
        for header in request.headers {
            let value = pack(header.value.utf8, lowercase: false)
            if let name = Self.staticName(header.name) {
                entry(name: name, value: value)
            } else {
                let name = pack(header.name.utf8, lowercase: true)
                entries[index] = nghttp2_nv(
                    name: name.0, value: value.0, namelen: name.1, valuelen: value.1, flags: cnghttp2_flag_none())
                index += 1
            }
        }
        return body(entries, index)
    }
}
