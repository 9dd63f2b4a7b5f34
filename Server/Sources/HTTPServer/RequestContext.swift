#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the server collects for one request between libmicrohttpd callbacks. Only the
/// connection's thread touches it, one callback at a time.
final class RequestContext {
    var headers: [String: String] = [:]
    var body = Data()
    var tooLarge = false
}
