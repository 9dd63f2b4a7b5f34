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
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>

/// P-256's group, built once by the caller and shared read-only between threads (every use
/// passes its own BN_CTX): OpenSSL's nistz256 arithmetic. The device's side of RFC 8291's ECDH
/// works on it directly: in OpenSSL 3.0 importing the sender's key as an EVP_PKEY and deriving
/// through an EVP_PKEY_CTX cost a third more than the scalar multiplication. NULL on failure.
static inline EC_GROUP *cclinux_p256_group(void) {
    EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    if (group == NULL) { ERR_clear_error(); }
    return group;
}

/// An HMAC-SHA-256 context without a key, its digest set once by the caller: the template that
/// cclinux_hkdf_sha256 duplicates for each MAC, so that no MAC looks HMAC or SHA-256 up by name
/// again (in OpenSSL 3.0 such a fetch costs more than the MAC of a short input; OpenSSL's own HKDF
/// does it on every call). Shared read-only between threads (a duplicate copies it). NULL on
/// failure.
static inline EVP_MAC_CTX *cclinux_hmac_sha256_template(void) {
    EVP_MAC_CTX *ctx = NULL;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    OSSL_PARAM params[2];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0);
    params[1] = OSSL_PARAM_construct_end();
    ctx = mac == NULL ? NULL : EVP_MAC_CTX_new(mac);
    if (ctx != NULL && EVP_MAC_CTX_set_params(ctx, params) != 1) {
        EVP_MAC_CTX_free(ctx);
        ctx = NULL;
    }
    EVP_MAC_free(mac);
    ERR_clear_error();
    return ctx;
}

/// The private scalar of a P-256 key pair (32 bytes, big-endian) as a BIGNUM in secure memory,
/// flagged for constant-time use, after checking the pair: the scalar must be in [1, n-1] (as
/// CryptoKit demands of a raw private key) and `point` (65 bytes, uncompressed) a point on the
/// curve. Free with BN_clear_free; NULL when the parts are not a P-256 key pair.
static inline BIGNUM *cclinux_p256_scalar(const EC_GROUP *group, const uint8_t *scalar, const uint8_t *point) {
    BIGNUM *secret = NULL;
    EC_POINT *public_point = NULL;
    const BIGNUM *order = group == NULL ? NULL : EC_GROUP_get0_order(group);
    int ok = 0;
    if (order == NULL || scalar == NULL || point == NULL || point[0] != 0x04) { return NULL; }
    secret = BN_secure_new();
    public_point = EC_POINT_new(group);
    ok = secret != NULL && public_point != NULL && BN_bin2bn(scalar, 32, secret) != NULL && !BN_is_zero(secret)
        && BN_cmp(secret, order) < 0 && EC_POINT_oct2point(group, public_point, point, 65, NULL) == 1;
    EC_POINT_free(public_point);
    if (!ok) {
        BN_clear_free(secret);
        secret = NULL;
    } else {
        BN_set_flags(secret, BN_FLG_CONSTTIME);
    }
    ERR_clear_error();
    return secret;
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

/// P-256 ECDH: the 32-byte shared secret (the x coordinate of `scalar` × `peer`) of the device's
/// scalar (from cclinux_p256_scalar) and the peer's uncompressed point `peer` (65 bytes).
/// OpenSSL's decoding (EC_POINT_oct2point) refuses a coordinate that is not below the field prime
/// and a point off the curve, and 65 bytes with 0x04 first cannot encode the point at infinity
/// (P-256's cofactor is 1, so every point on the curve is in the prime-order group). Returns 1,
/// -1 when `peer` is not a point on P-256, 0 otherwise.
static inline int cclinux_p256_ecdh(const EC_GROUP *group, const BIGNUM *scalar, const uint8_t *peer, uint8_t *out) {
    BN_CTX *ctx = NULL;
    EC_POINT *theirs = NULL;
    EC_POINT *shared = NULL;
    BIGNUM *x = NULL;
    int result = 0;
    if (group == NULL || scalar == NULL || peer == NULL || out == NULL) { return 0; }
    if (peer[0] != 0x04) { return -1; }
    ctx = BN_CTX_secure_new();
    theirs = EC_POINT_new(group);
    shared = EC_POINT_new(group);
    x = BN_new();
    if (ctx != NULL && theirs != NULL && shared != NULL && x != NULL) {
        if (EC_POINT_oct2point(group, theirs, peer, 65, ctx) != 1) {
            result = -1;
        } else if (EC_POINT_mul(group, shared, NULL, theirs, scalar, ctx) == 1 && !EC_POINT_is_at_infinity(group, shared)
            && EC_POINT_get_affine_coordinates(group, shared, x, NULL, ctx) == 1 && BN_bn2binpad(x, out, 32) == 32) {
            result = 1;
        }
    }
    if (result != 1) { OPENSSL_cleanse(out, 32); }
    BN_clear_free(x);
    EC_POINT_clear_free(shared);
    EC_POINT_free(theirs);
    BN_CTX_free(ctx);
    ERR_clear_error();
    return result;
}

/// HMAC-SHA-256 of `first` ‖ `second` ‖ `third` (each may be empty) under `key`, with a duplicate
/// of `template_ctx` (cclinux_hmac_sha256_template); 32 bytes to `out`.
static inline int cclinux_hmac_sha256(
    const EVP_MAC_CTX *template_ctx, const uint8_t *key, size_t key_length, const uint8_t *first, size_t first_length,
    const uint8_t *second, size_t second_length, const uint8_t *third, size_t third_length, uint8_t *out) {
    size_t length = 0;
    EVP_MAC_CTX *ctx = template_ctx == NULL ? NULL : EVP_MAC_CTX_dup(template_ctx);
    int ok = ctx != NULL && EVP_MAC_init(ctx, key, key_length, NULL) == 1
        && (first_length == 0 || EVP_MAC_update(ctx, first, first_length) == 1)
        && (second_length == 0 || EVP_MAC_update(ctx, second, second_length) == 1)
        && (third_length == 0 || EVP_MAC_update(ctx, third, third_length) == 1)
        && EVP_MAC_final(ctx, out, &length, 32) == 1 && length == 32;
    EVP_MAC_CTX_free(ctx);
    ERR_clear_error();
    return ok;
}

/// HKDF-SHA-256 (RFC 5869 §2.2 and §2.3: extract, then expand) of `ikm` with `salt` and `info`,
/// `length` bytes (at most 255 × 32) into `out`, every HMAC through `template_ctx`
/// (cclinux_hmac_sha256_template).
static inline int cclinux_hkdf_sha256(
    const EVP_MAC_CTX *template_ctx, const uint8_t *salt, size_t salt_length, const uint8_t *ikm, size_t ikm_length,
    const uint8_t *info, size_t info_length, uint8_t *out, size_t length) {
    uint8_t prk[32];
    uint8_t block[32];
    uint8_t counter = 0;
    size_t done = 0;
    static const uint8_t no_salt[32] = {0};
    int ok = length > 0 && length <= 255 * 32;
    // Extract: PRK = HMAC(salt, IKM), where no salt means HashLen zeros.
    if (salt_length == 0) {
        salt = no_salt;
        salt_length = sizeof no_salt;
    }
    ok = ok && cclinux_hmac_sha256(template_ctx, salt, salt_length, ikm, ikm_length, NULL, 0, NULL, 0, prk);
    // Expand: T(i) = HMAC(PRK, T(i-1) ‖ info ‖ i), T(0) empty.
    while (ok && done < length) {
        size_t take = length - done < 32 ? length - done : 32;
        counter += 1;
        ok = cclinux_hmac_sha256(template_ctx, prk, 32, block, counter == 1 ? 0 : 32, info, info_length, &counter, 1, block);
        if (ok) {
            memcpy(out + done, block, take);
            done += take;
        }
    }
    OPENSSL_cleanse(prk, sizeof prk);
    OPENSSL_cleanse(block, sizeof block);
    if (!ok) { OPENSSL_cleanse(out, length); }
    ERR_clear_error();
    return ok ? 1 : 0;
}

/// OpenSSL's AES-128-GCM, fetched once by the caller and shared read-only between threads.
/// NULL on failure.
static inline EVP_CIPHER *cclinux_aes128gcm_fetch(void) {
    EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, "AES-128-GCM", NULL);
    ERR_clear_error();
    return cipher;
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
