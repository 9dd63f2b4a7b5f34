// OpenSSL's libcrypto for the SDK's Linux build (the simulated iPhone, the tests and the
// benchmarks): the primitives of private push's decryption (RFC 8291), and SHA-256, that the Core's
// `Platform/Linux/OpenSSLPushCrypto.swift` forwards to. Only Linux builds depend on this module
// (a SwiftPM platform condition); on Apple platforms the Core uses CryptoKit and links nothing
// extra. Every function returns 1 on success and 0 (or a negative code it documents) on failure,
// with OpenSSL's error queue cleared, and never writes past the lengths it is given.
#ifndef CCRYPTOLINUX_SHIM_H
#define CCRYPTOLINUX_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>

/// P-256's domain parameters as an EVP_PKEY without a key, made once by the caller and shared
/// read-only between threads: key generation and public key import start from it instead of
/// looking up the algorithm and building the curve's group each time (in OpenSSL 3.0 that costs
/// more than the curve arithmetic of a key generation). NULL on failure.
static inline EVP_PKEY *cclinux_p256_parameters(void) {
    EVP_PKEY *parameters = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL || EVP_PKEY_paramgen_init(ctx) != 1 || EVP_PKEY_CTX_set_group_name(ctx, "P-256") != 1
        || EVP_PKEY_paramgen(ctx, &parameters) != 1) {
        EVP_PKEY_free(parameters);
        parameters = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    ERR_clear_error();
    return parameters;
}

/// OpenSSL's HKDF, fetched once by the caller (a fetch per derivation costs twice the
/// derivation) and shared read-only between threads. NULL on failure.
static inline EVP_KDF *cclinux_hkdf_fetch(void) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    ERR_clear_error();
    return kdf;
}

/// OpenSSL's AES-128-GCM, fetched once by the caller and shared read-only between threads.
/// NULL on failure.
static inline EVP_CIPHER *cclinux_aes128gcm_fetch(void) {
    EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, "AES-128-GCM", NULL);
    ERR_clear_error();
    return cipher;
}

/// A P-256 key from its parts: the 32-byte private scalar (NULL for a public key; else it must be
/// in [1, n-1]) and the 65-byte uncompressed public point. A public key is imported on
/// `parameters` (cclinux_p256_parameters): OpenSSL's decoding (EC_POINT_oct2point) refuses a
/// coordinate that is not below the field prime and a point off the curve, and 65 bytes with
/// 0x04 first cannot encode the point at infinity (P-256's cofactor is 1, so every point on the
/// curve is in the prime-order group). Free with EVP_PKEY_free; NULL when the parts are not a
/// P-256 key.
static inline EVP_PKEY *cclinux_p256_key(const EVP_PKEY *parameters, const uint8_t *scalar, const uint8_t *point) {
    OSSL_PARAM_BLD *builder = NULL;
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY *key = NULL;
    BIGNUM *secret = NULL;
    int ok = 0;
    if (point == NULL || point[0] != 0x04) { return NULL; }
    if (scalar == NULL) {
        key = parameters == NULL ? NULL : EVP_PKEY_new();
        if (key != NULL && (EVP_PKEY_copy_parameters(key, parameters) != 1 || EVP_PKEY_set1_encoded_public_key(key, point, 65) != 1)) {
            EVP_PKEY_free(key);
            key = NULL;
        }
        ERR_clear_error();
        return key;
    }
    builder = OSSL_PARAM_BLD_new();
    ok = builder != NULL
        && OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, "P-256", 0) == 1
        && OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, 65) == 1;
    if (ok) {
        // The scalar must be in [1, n-1], as CryptoKit demands of a raw private key (n: the order
        // of P-256's group, big-endian; both are 32 bytes, so memcmp orders them).
        static const uint8_t order[32] = {
            0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51};
        secret = BN_bin2bn(scalar, 32, NULL);
        ok = secret != NULL && !BN_is_zero(secret) && memcmp(scalar, order, 32) < 0
            && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_PRIV_KEY, secret) == 1;
    }
    if (ok) { params = OSSL_PARAM_BLD_to_param(builder); }
    if (params != NULL) { ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL); }
    if (ctx != NULL && EVP_PKEY_fromdata_init(ctx) == 1) {
        if (EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_KEYPAIR, params) != 1) { key = NULL; }
    }
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    BN_clear_free(secret);
    ERR_clear_error();
    return key;
}

/// Generates a P-256 key pair: its private scalar (32 bytes, big-endian) into `scalar` and its
/// uncompressed public point (65 bytes) into `point`.
static inline int cclinux_p256_generate(uint8_t *scalar, uint8_t *point) {
    EVP_PKEY *key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    BIGNUM *secret = NULL;
    size_t length = 0;
    int ok = key != NULL
        && EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &secret) == 1
        && BN_bn2binpad(secret, scalar, 32) == 32
        && EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, point, 65, &length) == 1
        && length == 65 && point[0] == 0x04;
    BN_clear_free(secret);
    EVP_PKEY_free(key);
    ERR_clear_error();
    return ok ? 1 : 0;
}

/// P-256 ECDH: the 32-byte shared secret (the x coordinate) of the key pair `mine` (from
/// cclinux_p256_key with its scalar) and the peer's uncompressed point `peer`, imported on
/// `parameters`. Returns 1, -1 when `peer` is not a point on P-256, 0 otherwise.
static inline int cclinux_p256_ecdh(const EVP_PKEY *parameters, EVP_PKEY *mine, const uint8_t *peer, uint8_t *out) {
    EVP_PKEY *theirs = cclinux_p256_key(parameters, NULL, peer);
    EVP_PKEY_CTX *ctx = NULL;
    size_t length = 32;
    int result = 0;
    if (theirs == NULL) { return -1; }
    ctx = EVP_PKEY_CTX_new(mine, NULL);
    // The peer was checked when it was imported (cclinux_p256_key): no second, full check here,
    // which would cost another scalar multiplication.
    if (ctx != NULL && EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_derive_set_peer_ex(ctx, theirs, 0) == 1
        && EVP_PKEY_derive(ctx, out, &length) == 1 && length == 32) {
        result = 1;
    }
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(theirs);
    ERR_clear_error();
    return result;
}

/// HKDF-SHA-256 (RFC 5869, extract then expand) of `ikm` with `salt` and `info`, `length` bytes
/// into `out`, with the KDF of cclinux_hkdf_fetch.
static inline int cclinux_hkdf_sha256(
    EVP_KDF *kdf, const uint8_t *salt, size_t salt_length, const uint8_t *ikm, size_t ikm_length,
    const uint8_t *info, size_t info_length, uint8_t *out, size_t length) {
    EVP_KDF_CTX *ctx = kdf != NULL ? EVP_KDF_CTX_new(kdf) : NULL;
    OSSL_PARAM params[5];
    int ok = 0;
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, ikm_length);
    params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_length);
    params[3] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_length);
    params[4] = OSSL_PARAM_construct_end();
    if (ctx != NULL && EVP_KDF_derive(ctx, out, length, params) == 1) { ok = 1; }
    EVP_KDF_CTX_free(ctx);
    ERR_clear_error();
    return ok;
}

/// AES-128-GCM decryption without additional data: `sealed` is the ciphertext followed by its
/// 16-byte tag; the plaintext (sealed_length - 16 bytes) goes to `out`. Returns 1, -1 when the
/// tag does not verify, 0 otherwise. `cipher`: from cclinux_aes128gcm_fetch.
static inline int cclinux_aes128gcm_open(
    const EVP_CIPHER *cipher, const uint8_t *key, const uint8_t *nonce, const uint8_t *sealed, size_t sealed_length, uint8_t *out) {
    EVP_CIPHER_CTX *ctx = NULL;
    int written = 0;
    int last = 0;
    int result = 0;
    size_t body = 0;
    if (cipher == NULL || sealed_length < 16 || sealed_length - 16 > (size_t)INT32_MAX) { return 0; }
    body = sealed_length - 16;
    ctx = EVP_CIPHER_CTX_new();
    if (ctx != NULL
        && EVP_DecryptInit_ex(ctx, cipher, NULL, NULL, NULL) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) == 1
        && EVP_DecryptInit_ex(ctx, NULL, NULL, key, nonce) == 1
        && EVP_DecryptUpdate(ctx, out, &written, sealed, (int)body) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, (void *)(sealed + body)) == 1) {
        result = EVP_DecryptFinal_ex(ctx, out + written, &last) == 1 ? 1 : -1;
    }
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return result;
}

/// AES-128-GCM encryption without additional data: the ciphertext (`length` bytes) followed by
/// its 16-byte tag into `out` (`length` + 16 bytes). The sender's side, for the simulated
/// service and the tests. `cipher`: from cclinux_aes128gcm_fetch.
static inline int cclinux_aes128gcm_seal(
    const EVP_CIPHER *cipher, const uint8_t *key, const uint8_t *nonce, const uint8_t *plaintext, size_t length, uint8_t *out) {
    EVP_CIPHER_CTX *ctx = NULL;
    int written = 0;
    int last = 0;
    int ok = 0;
    if (cipher == NULL || length > (size_t)INT32_MAX - 16) { return 0; }
    ctx = EVP_CIPHER_CTX_new();
    if (ctx != NULL
        && EVP_EncryptInit_ex(ctx, cipher, NULL, NULL, NULL) == 1
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) == 1
        && EVP_EncryptInit_ex(ctx, NULL, NULL, key, nonce) == 1
        && EVP_EncryptUpdate(ctx, out, &written, plaintext, (int)length) == 1
        && EVP_EncryptFinal_ex(ctx, out + written, &last) == 1
        && (size_t)(written + last) == length
        && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, out + length) == 1) {
        ok = 1;
    }
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return ok;
}

/// The SHA-256 digest of `length` bytes of `data` into `out` (32 bytes).
static inline int cclinux_sha256(const uint8_t *data, size_t length, uint8_t *out) {
    unsigned int written = 0;
    int ok = EVP_Digest(data, length, out, &written, EVP_sha256(), NULL) == 1 && written == 32;
    ERR_clear_error();
    return ok ? 1 : 0;
}

/// `count` bytes from OpenSSL's CSPRNG into `out`.
static inline int cclinux_random_bytes(uint8_t *out, size_t count) {
    int ok = count <= (size_t)INT32_MAX && RAND_bytes(out, (int)count) == 1;
    ERR_clear_error();
    return ok ? 1 : 0;
}

#endif
