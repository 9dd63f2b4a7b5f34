import CCurl

/// Sets up libcurl easy handles for transfers.
enum EasyHandle {
    /// libcurl's smallest upload buffer (16 KB; see `CurlLoop.releaseUploadBuffers`).
    static let uploadBufferSize = 16 * 1024

    /// Sets the options every transfer of a client shares; done once per easy handle
    /// (handles are reused without `curl_easy_reset`).
    static func configure(_ easy: UnsafeMutableRawPointer, configuration: HTTP2Client.Configuration) {
        _ = ccurl_setopt_long(
            easy, CURLOPT_HTTP_VERSION,
            configuration.cleartext ? ccurl_http_version_2_prior_knowledge() : ccurl_http_version_2tls())
        _ = ccurl_setopt_long(easy, CURLOPT_PIPEWAIT, configuration.waitsForMultiplexing ? 1 : 0)
        _ = ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = ccurl_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1)
        _ = ccurl_setopt_long(easy, CURLOPT_MAXAGE_CONN, 3600)
        _ = ccurl_setopt_long(easy, CURLOPT_UPKEEP_INTERVAL_MS, configuration.pingIntervalMilliseconds)
        // Pushes and their answers are small: keep per-handle buffers at libcurl's minimum.
        _ = ccurl_setopt_long(easy, CURLOPT_BUFFERSIZE, 1024)
        _ = ccurl_setopt_long(easy, CURLOPT_UPLOAD_BUFFERSIZE, uploadBufferSize)
        _ = ccurl_setopt_long(easy, CURLOPT_POST, 1)
        // No request of the service follows a redirect: a 3xx is an answer like any other.
        _ = ccurl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        _ = ccurl_setopt_str(easy, CURLOPT_REDIR_PROTOCOLS_STR, "https")
        if let caFile = configuration.caFile {
            _ = ccurl_setopt_str(easy, CURLOPT_CAINFO, caFile)
        }
        _ = ccurl_setopt_datacb(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            let length = size * count
            guard let context, let data else { return length }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            // Returning less than `length` makes libcurl end the transfer (CURLE_WRITE_ERROR).
            return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length), limit: transfer.responseLimit) ? length : 0
        }
        // Request bodies go through a read callback, never CURLOPT_POSTFIELDS, and cannot be
        // rewound. libcurl resends a request by itself when a reused connection dies before
        // any of the answer arrived, or when HTTP/2 refuses the stream ("Connection died,
        // retrying a fresh connect"), up to five times; with a body in memory it can, so a
        // push the server had already taken was sent again behind the caller's back, and one
        // fault could send it three times with the caller's own retry. A body that cannot be
        // rewound makes that resend fail (CURLE_SEND_FAIL_REWIND) instead: the caller sees the
        // failure, counts it and decides whether to send again.
        _ = ccurl_setopt_datacb(easy, CURLOPT_READFUNCTION) { buffer, size, count, context in
            guard let context, let buffer else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            return transfer.readBody(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
        }
        _ = ccurl_setopt_seek_refused(easy)
        _ = ccurl_setopt_datacb(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            let length = size * count
            guard let context, let data else { return length }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
            return length
        }
    }

    /// Sets the per-request options of `easy` (configured by `configure`) for `transfer`.
    /// Returns false when the destination checks of a request with a policy could not be set
    /// (the request must then not be sent); the transfer is retained either way.
    static func prepare(_ easy: UnsafeMutableRawPointer, for transfer: Transfer) -> Bool {
        let request = transfer.request
        _ = ccurl_setopt_str(easy, CURLOPT_URL, request.url)
        _ = ccurl_setopt_long(easy, CURLOPT_TIMEOUT_MS, request.timeoutMilliseconds)
        _ = ccurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, min(request.timeoutMilliseconds, 10_000))
        var list: UnsafeMutablePointer<curl_slist>?
        for header in request.headers {
            list = curl_slist_append(list, header.name + ": " + header.value)
        }
        // libcurl adds `Expect: 100-continue` and a form content type to POSTs otherwise.
        list = curl_slist_append(list, "Expect:")
        if request.body != nil, !request.headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            list = curl_slist_append(list, "Content-Type: application/json")
        }
        transfer.headerList = list
        _ = ccurl_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
        if let body = request.body {
            _ = ccurl_setopt_long(easy, CURLOPT_POST, 1)
            _ = ccurl_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
        } else {
            _ = ccurl_setopt_long(easy, CURLOPT_HTTPGET, 1)
        }
        let context = Unmanaged.passRetained(transfer).toOpaque()
        _ = ccurl_setopt_ptr(easy, CURLOPT_PRIVATE, context)
        _ = ccurl_setopt_ptr(easy, CURLOPT_WRITEDATA, context)
        _ = ccurl_setopt_ptr(easy, CURLOPT_READDATA, context)
        _ = ccurl_setopt_ptr(easy, CURLOPT_HEADERDATA, context)
        return setDestinationChecks(easy, policy: request.destinationPolicy, context: context)
    }

    /// Sets, or clears (no policy: the handle may have carried a checked request before), the
    /// destination checks: the open-socket callback (the address about to be connected to), the
    /// pre-request callback (the peer of the connection a request goes on, new or reused) and
    /// the protocols libcurl may use. Returns false when libcurl refused one of them.
    private static func setDestinationChecks(
        _ easy: UnsafeMutableRawPointer, policy: DestinationPolicy?, context: UnsafeMutableRawPointer
    ) -> Bool {
        guard let policy else {
            _ = ccurl_setopt_opensocket(easy, nil)
            _ = ccurl_setopt_ptr(easy, CURLOPT_OPENSOCKETDATA, nil)
            _ = ccurl_setopt_prereq(easy, nil)
            _ = ccurl_setopt_ptr(easy, CURLOPT_PREREQDATA, nil)
            _ = ccurl_setopt_str(easy, CURLOPT_PROTOCOLS_STR, "all")
            return true
        }
        let results = [
            ccurl_setopt_opensocket(easy) { context, _, address in
                guard let context, let address else { return ccurl_socket_bad() }
                return Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().openSocket(address)
            },
            ccurl_setopt_ptr(easy, CURLOPT_OPENSOCKETDATA, context),
            ccurl_setopt_prereq(easy) { context, primaryIP, _, _, _ in
                guard let context else { return ccurl_prereq_abort() }
                let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.mayUseConnection(primaryIP: primaryIP.map { String(cString: $0) })
                    ? ccurl_prereq_ok() : ccurl_prereq_abort()
            },
            ccurl_setopt_ptr(easy, CURLOPT_PREREQDATA, context),
            ccurl_setopt_str(easy, CURLOPT_PROTOCOLS_STR, policy.allowsInsecureLoopback ? "http,https" : "https"),
        ]
        return results.allSatisfy { $0 == CURLE_OK }
    }

    /// Takes back the transfer retained by `prepare`.
    static func takeTransfer(_ easy: UnsafeMutableRawPointer) -> Transfer? {
        var context: UnsafeMutableRawPointer?
        guard ccurl_getinfo_ptr(easy, CURLINFO_PRIVATE, &context) == CURLE_OK, let context else { return nil }
        return Unmanaged<Transfer>.fromOpaque(context).takeRetainedValue()
    }
}
