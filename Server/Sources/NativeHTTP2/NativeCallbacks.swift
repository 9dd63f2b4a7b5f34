import CNGHTTP2
import CurlHTTP

/// The nghttp2 session callbacks of every connection: plain C functions (no captures) that find
/// their connection through the session's user data and hand what happened to its loop.
enum NativeCallbacks {
    /// Creates the callbacks; free with `nghttp2_session_callbacks_del`.
    static func make() -> OpaquePointer? {
        var made: OpaquePointer?
        guard nghttp2_session_callbacks_new(&made) == 0, let callbacks = made else { return nil }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            guard let frame, let name, let value, let user else { return 0 }
            let connection = Unmanaged<NativeConnection>.fromOpaque(user).takeUnretainedValue()
            guard frame.pointee.hd.type == cnghttp2_frame_headers(),
                let request = connection.streams[frame.pointee.hd.stream_id]
            else { return 0 }
            if nameLength == 7, name[0] == UInt8(ascii: ":") {
                // ":status"
                var status = 0
                for index in 0..<valueLength {
                    let digit = value[index]
                    guard digit >= 0x30, digit <= 0x39 else { break }
                    status = status * 10 + Int(digit - 0x30)
                }
                if request.status == 0 || (100..<200).contains(request.status) { request.status = status }
                return 0
            }
            if name[0] == UInt8(ascii: ":") { return 0 }
            let key = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
            request.headers[key] = String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamId, data, length, user in
            guard let data, let user else { return 0 }
            let connection = Unmanaged<NativeConnection>.fromOpaque(user).takeUnretainedValue()
            guard let request = connection.streams[streamId] else { return 0 }
            if request.body.count + length > connection.loop.configuration.maxResponseBytes {
                connection.loop.responseTooLarge(request, streamId: streamId, on: connection)
                return 0
            }
            request.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamId, errorCode, user in
            guard let user else { return 0 }
            let connection = Unmanaged<NativeConnection>.fromOpaque(user).takeUnretainedValue()
            guard let request = connection.streams.removeValue(forKey: streamId) else { return 0 }
            connection.loop.streamClosed(request, errorCode: errorCode, on: connection)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            guard let frame, let user else { return 0 }
            let connection = Unmanaged<NativeConnection>.fromOpaque(user).takeUnretainedValue()
            let type = frame.pointee.hd.type
            if type == cnghttp2_frame_goaway() {
                connection.loop.goawayReceived(lastStreamId: frame.pointee.goaway.last_stream_id, on: connection)
            } else if type == cnghttp2_frame_ping(), frame.pointee.hd.flags & cnghttp2_flag_ack() != 0 {
                connection.pingSentAt = nil
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks) { _, frame, _, user in
            // A request's HEADERS that could not go out (the server's GOAWAY came first): the
            // request never reached the server and is sent again.
            guard let frame, let user, frame.pointee.hd.type == cnghttp2_frame_headers() else { return 0 }
            let connection = Unmanaged<NativeConnection>.fromOpaque(user).takeUnretainedValue()
            guard let request = connection.streams.removeValue(forKey: frame.pointee.hd.stream_id) else { return 0 }
            connection.loop.resendOrFail(request, reason: "the server refused the stream before it was sent")
            return 0
        }
        return callbacks
    }

    /// The data provider's read callback: copies the next part of the request body of the
    /// stream into nghttp2's frame buffer.
    static let readBody: nghttp2_data_source_read_callback = { _, streamId, buffer, length, flags, _, user in
        guard let buffer, let flags, let user else { return Int(cnghttp2_err_callback_failure()) }
        let connection = Unmanaged<NativeConnection>.fromOpaque(user).takeUnretainedValue()
        guard let request = connection.streams[streamId], let body = request.request.body else {
            flags.pointee |= cnghttp2_data_flag_eof()
            return 0
        }
        let count = min(length, body.count - request.bodySent)
        if count > 0 {
            body.withUnsafeBufferPointer { bytes in
                buffer.update(from: bytes.baseAddress! + request.bodySent, count: count)
            }
            request.bodySent += count
        }
        if request.bodySent >= body.count { flags.pointee |= cnghttp2_data_flag_eof() }
        return count
    }
}
