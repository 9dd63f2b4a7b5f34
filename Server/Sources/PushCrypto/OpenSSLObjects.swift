import CCrypto

/// OpenSSL objects made once per process and shared by every thread: in OpenSSL 3.0 looking up
/// an algorithm (a "fetch") and building P-256's group cost more than the work itself, and a
/// private push would otherwise pay them several times (a key generation, a key import, five
/// HMACs, AES-GCM). Each is nil only when OpenSSL itself is broken; the functions that take one
/// then fail as they would on any OpenSSL failure.
enum OpenSSLObjects {
    // `nonisolated(unsafe)`: each is created once, never changed, and freed never; OpenSSL 3
    // lets threads use a fetched algorithm and a key's parameters concurrently (every use makes
    // its own context).

    /// P-256's domain parameters (`ccrypto_p256_parameters`).
    nonisolated(unsafe) static let p256Parameters: OpaquePointer? = ccrypto_p256_parameters()
    /// P-256's group for the sender side of Web Push (`ccrypto_p256_group`).
    nonisolated(unsafe) static let p256Group: OpaquePointer? = ccrypto_p256_group()
    /// HKDF (`ccrypto_hkdf_fetch`), for `Crypto.hkdfSHA256`.
    nonisolated(unsafe) static let hkdf: OpaquePointer? = ccrypto_hkdf_fetch()
    /// HMAC-SHA-256 without a key (`ccrypto_hmac_sha256_template`), for Web Push's key schedule.
    nonisolated(unsafe) static let hmacSHA256: OpaquePointer? = ccrypto_hmac_sha256_template()
    /// AES-128-GCM, for Web Push's content encryption.
    nonisolated(unsafe) static let aes128GCM: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-128-GCM", nil)
    /// AES-256-GCM, for `SecretBox`.
    nonisolated(unsafe) static let aes256GCM: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)
}
