import CMHD
import ServerSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HTTPServer {
    /// The libmicrohttpd access handler: called once with the headers, then once per body
    /// chunk, then once more with no data when the request is complete.
    func access(
        _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?, _ method: UnsafePointer<CChar>?,
        _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>?,
        _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> MHD_Result {
        guard let connection, let requestContext, let uploadSize else { return .NO }
        let state = cmhd_connection_context(connection).map { Unmanaged<ConnectionGuard.Connection>.fromOpaque($0).takeUnretainedValue() }
        guard let pointer = requestContext.pointee else {
            let context = RequestContext()
            context.headers = Self.values(of: connection, kind: .HEADER_KIND)
            requestContext.pointee = Unmanaged.passRetained(context).toOpaque()
            if let length = context.headers["content-length"].flatMap(Int.init), length > configuration.maxBodyBytes {
                // Answer before reading the body; libmicrohttpd then closes the connection.
                context.tooLarge = true
                if let state { connections.requestArrived(state) }
                return Self.queue(tooLarge, on: connection)
            }
            return .YES
        }
        let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            let count = uploadSize.pointee
            if !context.tooLarge, let uploadData {
                if context.body.count + count > configuration.maxBodyBytes {
                    context.tooLarge = true
                    context.body = Data()
                } else {
                    context.body.append(UnsafeRawPointer(uploadData).assumingMemoryBound(to: UInt8.self), count: count)
                }
            }
            uploadSize.pointee = 0
            return .YES
        }
        // The whole request is here: no deadline while the handler runs and the answer goes out.
        if let state { connections.requestArrived(state) }
        let response: HTTPResponse
        if context.tooLarge {
            response = tooLarge
        } else {
            let request = HTTPRequest(
                method: method.map { String(cString: $0) } ?? "",
                path: url.map { String(cString: $0) } ?? "/",
                query: Self.values(of: connection, kind: .GET_ARGUMENT_KIND),
                headers: context.headers,
                body: context.body,
                clientAddress: state.map { clientAddress(peer: $0, forwardedFor: context.headers["x-forwarded-for"]) } ?? "")
            response = handler(request)
        }
        return Self.queue(response, on: connection)
    }

    /// The client's address: the peer's, unless the peer is a trusted proxy that forwarded the
    /// request; then the rightmost `X-Forwarded-For` entry that is not a trusted proxy (entries
    /// to its left were written by the client and prove nothing).
    func clientAddress(peer: ConnectionGuard.Connection, forwardedFor: String?) -> String {
        guard peer.trusted, let forwardedFor else { return peer.address }
        let hops = forwardedFor.split(separator: ",").map { String($0.filter { $0 != " " && $0 != "\t" }) }.filter { !$0.isEmpty }
        for hop in hops.reversed() {
            guard IPAddress(hop) != nil else { return peer.address }
            if !connections.isTrusted(hop) { return hop }
        }
        return hops.first ?? peer.address
    }

    static func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [String: String] {
        let collected = Collected()
        let box = Unmanaged.passUnretained(collected).toOpaque()
        _ = MHD_get_connection_values(
            connection, kind,
            { cls, _, key, value in
                guard let cls, let key else { return .YES }
                let collected = Unmanaged<Collected>.fromOpaque(cls).takeUnretainedValue()
                collected.values[String(cString: key).lowercased()] = value.map { String(cString: $0) } ?? ""
                return .YES
            }, box)
        return withExtendedLifetime(collected) { collected.values }
    }

    static func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let mhdResponse = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let mhdResponse else { return .NO }
        for (name, value) in response.headers {
            _ = MHD_add_response_header(mhdResponse, name, value)
        }
        let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        MHD_destroy_response(mhdResponse)
        return result
    }
}

/// Header or query values gathered by the iterator callback.
final class Collected {
    var values: [String: String] = [:]
}
