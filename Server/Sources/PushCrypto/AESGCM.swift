import CCrypto

/// AES-GCM on OpenSSL's EVP interface, with a 12-byte nonce and a 16-byte tag: the one copy that
/// `SecretBox` (AES-256) and `WebPushEncryption` (AES-128) share. The cipher follows the key's
/// length (16 bytes: AES-128, 32 bytes: AES-256).
enum AESGCM {
    /// The tag's length, appended to every ciphertext.
    static let tagLength = 16
    /// The nonce's length.
    static let nonceLength = 12

    /// Encrypts `plaintext`, authenticating `aad` with it; returns ciphertext ‖ tag, or nil when
    /// the key or nonce has the wrong length or OpenSSL fails.
    static func seal(key: [UInt8], nonce: [UInt8], aad: [UInt8] = [], plaintext: [UInt8]) -> [UInt8]? {
        guard let cipher = cipher(for: key), nonce.count == nonceLength, plaintext.count < Int(Int32.max) - 32,
            let ctx = EVP_CIPHER_CTX_new()
        else { return nil }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var output = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var length: Int32 = 0
        var total = 0
        guard EVP_EncryptInit_ex(ctx, cipher, nil, nil, nil) == 1,
            ccrypto_gcm_set_iv_length(ctx, Int32(nonceLength)) == 1,
            EVP_EncryptInit_ex(ctx, nil, nil, key, nonce) == 1
        else { return nil }
        if !aad.isEmpty {
            guard EVP_EncryptUpdate(ctx, nil, &length, aad, Int32(aad.count)) == 1 else { return nil }
        }
        let sealed: Bool = output.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            if !plaintext.isEmpty {
                guard EVP_EncryptUpdate(ctx, base, &length, plaintext, Int32(plaintext.count)) == 1 else { return false }
                total = Int(length)
            }
            guard EVP_EncryptFinal_ex(ctx, base + total, &length) == 1 else { return false }
            total += Int(length)
            return total == plaintext.count && ccrypto_gcm_get_tag(ctx, base + total, Int32(tagLength)) == 1
        }
        return sealed ? output : nil
    }

    /// Decrypts ciphertext ‖ tag, checking `aad`; returns nil when the key or nonce has the wrong
    /// length, the input is shorter than a tag, or the tag does not match (wrong key, nonce,
    /// associated data, or altered bytes).
    static func open(key: [UInt8], nonce: [UInt8], aad: [UInt8] = [], sealed: [UInt8]) -> [UInt8]? {
        guard let cipher = cipher(for: key), nonce.count == nonceLength, sealed.count >= tagLength,
            sealed.count < Int(Int32.max), let ctx = EVP_CIPHER_CTX_new()
        else { return nil }
        defer { EVP_CIPHER_CTX_free(ctx) }
        let body = Array(sealed[..<(sealed.count - tagLength)])
        var tag = Array(sealed[(sealed.count - tagLength)...])
        var output = [UInt8](repeating: 0, count: body.count + tagLength)
        var length: Int32 = 0
        var total = 0
        guard EVP_DecryptInit_ex(ctx, cipher, nil, nil, nil) == 1,
            ccrypto_gcm_set_iv_length(ctx, Int32(nonceLength)) == 1,
            EVP_DecryptInit_ex(ctx, nil, nil, key, nonce) == 1
        else { return nil }
        if !aad.isEmpty {
            guard EVP_DecryptUpdate(ctx, nil, &length, aad, Int32(aad.count)) == 1 else { return nil }
        }
        let opened: Bool = output.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            if !body.isEmpty {
                guard EVP_DecryptUpdate(ctx, base, &length, body, Int32(body.count)) == 1 else { return false }
                total = Int(length)
            }
            guard ccrypto_gcm_set_tag(ctx, &tag, Int32(tagLength)) == 1,
                EVP_DecryptFinal_ex(ctx, base + total, &length) == 1
            else { return false }
            total += Int(length)
            return true
        }
        guard opened else {
            ERR_clear_error()
            return nil
        }
        return Array(output.prefix(total))
    }

    private static func cipher(for key: [UInt8]) -> OpaquePointer? {
        switch key.count {
        case 16: return OpenSSLObjects.aes128GCM
        case 32: return OpenSSLObjects.aes256GCM
        default: return nil
        }
    }
}
