// OpenSSL libcrypto for Swift, used by PushCrypto only (the service's one crypto module: sealing
// at rest with AES-256-GCM, HMAC-SHA256, SHA-256, random bytes, JWT signing, Web Push message
// encryption). It holds the typed static-inline wrappers for what does not import into Swift
// (macros such as the GCM controls, key generation for `--seed-dev`, and the P-256 key import
// and export that need OSSL_PARAM arrays); PushCrypto calls the rest of libcrypto directly.
#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H

#include <stddef.h>
#include <string.h>
#include <stdint.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>
#include <openssl/obj_mac.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/param_build.h>
#include <openssl/kdf.h>

/// EVP_CIPHER_CTX_ctrl for GCM: sets the IV length (12 bytes recommended).
static inline int ccrypto_gcm_set_iv_length(EVP_CIPHER_CTX *ctx, int length) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, length, NULL);
}

/// EVP_CIPHER_CTX_ctrl for GCM: reads the 16-byte tag after encryption.
static inline int ccrypto_gcm_get_tag(EVP_CIPHER_CTX *ctx, unsigned char *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, length, tag);
}

/// EVP_CIPHER_CTX_ctrl for GCM: sets the expected tag before decryption finishes.
static inline int ccrypto_gcm_set_tag(EVP_CIPHER_CTX *ctx, unsigned char *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, length, tag);
}

/// Generates a private key and writes it as PKCS#8 PEM ("BEGIN PRIVATE KEY") into `out`:
/// `rsa == 0` gives a P-256 key (the APNs `.p8` format), otherwise a 2048-bit RSA key
/// (a Google service-account key). Returns the length written, or -1. Used by `--seed-dev`.
static inline int ccrypto_generate_key_pem(int rsa, char *out, size_t capacity) {
    int written = -1;
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, rsa ? "RSA" : "EC", NULL);
    BIO *bio = NULL;
    char *data = NULL;
    long length = 0;
    if (ctx == NULL || EVP_PKEY_keygen_init(ctx) != 1) { goto done; }
    if (rsa ? EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 2048) != 1 : EVP_PKEY_CTX_set_group_name(ctx, "P-256") != 1) { goto done; }
    if (EVP_PKEY_generate(ctx, &key) != 1) { goto done; }
    bio = BIO_new(BIO_s_mem());
    if (bio == NULL || PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL) != 1) { goto done; }
    length = BIO_get_mem_data(bio, &data);
    if (length > 0 && (size_t)length <= capacity) { memcpy(out, data, (size_t)length); written = (int)length; }
done:
    BIO_free(bio);
    EVP_PKEY_free(key);
    EVP_PKEY_CTX_free(ctx);
    return written;
}

/// P-256's domain parameters as an EVP_PKEY without a key: the template that key generation and
/// public key import start from, made once (`EVP_PKEY_paramgen`) so that neither looks up the
/// algorithm and builds the curve's group again (in OpenSSL 3.0 that costs more than the
/// curve arithmetic of a key generation). Shared read-only between threads. NULL on failure.
static inline EVP_PKEY *ccrypto_p256_parameters(void) {
    EVP_PKEY *parameters = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL || EVP_PKEY_paramgen_init(ctx) != 1 || EVP_PKEY_CTX_set_group_name(ctx, "P-256") != 1
        || EVP_PKEY_paramgen(ctx, &parameters) != 1) {
        EVP_PKEY_free(parameters);
        parameters = NULL;
        ERR_clear_error();
    }
    EVP_PKEY_CTX_free(ctx);
    return parameters;
}

/// Imports a P-256 public key from its 65-byte uncompressed encoding (0x04 || x || y), on the
/// parameters of ccrypto_p256_parameters. Returns NULL, with OpenSSL's error queue cleared,
/// unless the point is on the curve: OpenSSL's decoding (EC_POINT_oct2point) refuses a
/// coordinate that is not below the field prime and a point off the curve, and 65 bytes with
/// 0x04 first cannot encode the point at infinity (P-256's cofactor is 1, so every point on the
/// curve is in the prime-order group). Free with EVP_PKEY_free.
static inline EVP_PKEY *ccrypto_p256_public_key(const EVP_PKEY *parameters, const unsigned char *point, size_t length) {
    EVP_PKEY *key = NULL;
    if (parameters == NULL || point == NULL || length != 65 || point[0] != 0x04) { return NULL; }
    key = EVP_PKEY_new();
    if (key == NULL || EVP_PKEY_copy_parameters(key, parameters) != 1 || EVP_PKEY_set1_encoded_public_key(key, point, length) != 1) {
        EVP_PKEY_free(key);
        key = NULL;
        ERR_clear_error();
    }
    return key;
}

/// Writes the 65-byte uncompressed encoding of a P-256 key's public point into `out` (65 bytes).
/// Returns 65, or -1.
static inline int ccrypto_p256_public_octets(const EVP_PKEY *key, unsigned char *out) {
    size_t length = 0;
    if (key == NULL || out == NULL) { return -1; }
    if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, out, 65, &length) != 1 || length != 65 || out[0] != 0x04) {
        ERR_clear_error();
        return -1;
    }
    return 65;
}

/// Generates a P-256 key pair from the parameters of ccrypto_p256_parameters. Returns NULL when
/// OpenSSL fails. Free with EVP_PKEY_free.
static inline EVP_PKEY *ccrypto_p256_generate(EVP_PKEY *parameters) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = parameters == NULL ? NULL : EVP_PKEY_CTX_new_from_pkey(NULL, parameters, NULL);
    if (ctx == NULL || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_generate(ctx, &key) != 1) {
        EVP_PKEY_free(key);
        key = NULL;
        ERR_clear_error();
    }
    EVP_PKEY_CTX_free(ctx);
    return key;
}

/// Imports a P-256 key pair from its 32-byte big-endian private scalar (as test vectors give
/// it); OpenSSL computes the public point. Returns NULL, with the error queue cleared, when the
/// scalar is not in [1, n-1]. Free with EVP_PKEY_free.
static inline EVP_PKEY *ccrypto_p256_private_key(const unsigned char *scalar, size_t length) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EC_GROUP *group = NULL;
    EC_POINT *point = NULL;
    BIGNUM *priv = NULL;
    OSSL_PARAM_BLD *builder = NULL;
    OSSL_PARAM *params = NULL;
    unsigned char pub[65];
    if (scalar == NULL || length != 32) { return NULL; }
    group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    priv = BN_bin2bn(scalar, (int)length, NULL);
    if (group == NULL || priv == NULL || BN_is_zero(priv) || BN_cmp(priv, EC_GROUP_get0_order(group)) >= 0) { goto done; }
    point = EC_POINT_new(group);
    if (point == NULL || EC_POINT_mul(group, point, priv, NULL, NULL, NULL) != 1) { goto done; }
    if (EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, pub, sizeof pub, NULL) != sizeof pub) { goto done; }
    builder = OSSL_PARAM_BLD_new();
    if (builder == NULL || OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) != 1
        || OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_PRIV_KEY, priv) != 1
        || OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof pub) != 1) {
        goto done;
    }
    params = OSSL_PARAM_BLD_to_param(builder);
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (params == NULL || ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1 || EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_KEYPAIR, params) != 1) {
        EVP_PKEY_free(key);
        key = NULL;
    }
done:
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    EC_POINT_free(point);
    BN_clear_free(priv);
    EC_GROUP_free(group);
    EVP_PKEY_CTX_free(ctx);
    OPENSSL_cleanse(pub, sizeof pub);
    if (key == NULL) { ERR_clear_error(); }
    return key;
}

/// P-256's group for the curve arithmetic of Web Push's sender side (ccrypto_p256_point,
/// ccrypto_p256_ephemeral_ecdh), built once: OpenSSL's nistz256 implementation, shared read-only
/// between threads (every use passes its own BN_CTX). NULL on failure.
static inline EC_GROUP *ccrypto_p256_group(void) {
    EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    if (group == NULL) { ERR_clear_error(); }
    return group;
}

/// Decodes a 65-byte uncompressed P-256 point (0x04 || x || y) on `group`. Returns NULL, with
/// the error queue cleared, unless it is a point on the curve (EC_POINT_oct2point refuses
/// coordinates not below the prime and points off the curve; 65 bytes with 0x04 first cannot
/// encode the point at infinity). Free with EC_POINT_free.
static inline EC_POINT *ccrypto_p256_point(const EC_GROUP *group, const unsigned char *octets, size_t length) {
    EC_POINT *point = NULL;
    if (group == NULL || octets == NULL || length != 65 || octets[0] != 0x04) { return NULL; }
    point = EC_POINT_new(group);
    if (point == NULL || EC_POINT_oct2point(group, point, octets, length, NULL) != 1) {
        EC_POINT_free(point);
        point = NULL;
        ERR_clear_error();
    }
    return point;
}

/// The sender's side of RFC 8291's ECDH in one call, on OpenSSL's EC arithmetic without an
/// EVP_PKEY per message (in OpenSSL 3.0 making one, exporting its public key and deriving
/// through EVP_PKEY_CTX cost a third more than the two scalar multiplications): a fresh
/// ephemeral scalar from OpenSSL's private random generator in [1, n-1] (or `scalar`, 32
/// bytes big-endian, for test vectors; NULL otherwise), its public point written uncompressed to
/// `public_out` (65 bytes), and the x coordinate of scalar × `peer` to `secret_out` (32 bytes).
/// The scalar lives in secure memory and is cleared. Returns 1, or 0 with the error queue
/// cleared (a scalar out of range, a result at infinity, an OpenSSL failure).
static inline int ccrypto_p256_ephemeral_ecdh(
    const EC_GROUP *group, const EC_POINT *peer, const unsigned char *scalar, unsigned char *public_out, unsigned char *secret_out) {
    int ok = 0;
    BN_CTX *ctx = NULL;
    BIGNUM *k = NULL;
    BIGNUM *x = NULL;
    EC_POINT *ephemeral = NULL;
    EC_POINT *shared = NULL;
    const BIGNUM *order = NULL;
    if (group == NULL || peer == NULL || public_out == NULL || secret_out == NULL) { return 0; }
    ctx = BN_CTX_secure_new();
    k = BN_secure_new();
    x = BN_new();
    ephemeral = EC_POINT_new(group);
    shared = EC_POINT_new(group);
    order = EC_GROUP_get0_order(group);
    if (ctx == NULL || k == NULL || x == NULL || ephemeral == NULL || shared == NULL || order == NULL) { goto done; }
    if (scalar != NULL) {
        if (BN_bin2bn(scalar, 32, k) == NULL || BN_is_zero(k) || BN_cmp(k, order) >= 0) { goto done; }
    } else {
        do {
            if (BN_priv_rand_range_ex(k, order, 0, ctx) != 1) { goto done; }
        } while (BN_is_zero(k));
    }
    if (EC_POINT_mul(group, ephemeral, k, NULL, NULL, ctx) != 1
        || EC_POINT_point2oct(group, ephemeral, POINT_CONVERSION_UNCOMPRESSED, public_out, 65, ctx) != 65) {
        goto done;
    }
    if (EC_POINT_mul(group, shared, NULL, peer, k, ctx) != 1 || EC_POINT_is_at_infinity(group, shared)
        || EC_POINT_get_affine_coordinates(group, shared, x, NULL, ctx) != 1 || BN_bn2binpad(x, secret_out, 32) != 32) {
        goto done;
    }
    ok = 1;
done:
    EC_POINT_clear_free(shared);
    EC_POINT_free(ephemeral);
    BN_clear_free(x);
    BN_clear_free(k);
    BN_CTX_free(ctx);
    if (!ok) {
        OPENSSL_cleanse(secret_out, 32);
        ERR_clear_error();
    }
    return ok;
}

/// An HMAC-SHA-256 context without a key, its digest set once: the template that
/// ccrypto_hmac_sha256 duplicates for each MAC, so that no MAC looks up HMAC or SHA-256 by name
/// again (in OpenSSL 3.0 each such fetch costs more than the MAC of a short input). Shared
/// read-only between threads (a duplicate copies it). NULL on failure.
static inline EVP_MAC_CTX *ccrypto_hmac_sha256_template(void) {
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
    if (ctx == NULL) { ERR_clear_error(); }
    return ctx;
}

/// HMAC-SHA-256 of `first` || `second` under `key` (either part may be empty), with a
/// duplicate of ccrypto_hmac_sha256_template; writes 32 bytes to `out`. Returns 1, or 0 when
/// OpenSSL fails.
static inline int ccrypto_hmac_sha256(
    const EVP_MAC_CTX *template_ctx, const unsigned char *key, size_t key_length, const unsigned char *first, size_t first_length,
    const unsigned char *second, size_t second_length, unsigned char *out) {
    size_t length = 0;
    int ok = 0;
    EVP_MAC_CTX *ctx = template_ctx == NULL ? NULL : EVP_MAC_CTX_dup(template_ctx);
    ok = ctx != NULL && EVP_MAC_init(ctx, key, key_length, NULL) == 1
        && (first_length == 0 || EVP_MAC_update(ctx, first, first_length) == 1)
        && (second_length == 0 || EVP_MAC_update(ctx, second, second_length) == 1)
        && EVP_MAC_final(ctx, out, &length, 32) == 1 && length == 32;
    EVP_MAC_CTX_free(ctx);
    if (!ok) {
        OPENSSL_cleanse(out, 32);
        ERR_clear_error();
    }
    return ok;
}

/// OpenSSL's HKDF, fetched once (EVP_KDF_fetch) for ccrypto_hkdf_sha256: a fetch per call
/// costs twice the derivation. Shared read-only between threads. NULL on failure.
static inline EVP_KDF *ccrypto_hkdf_fetch(void) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    if (kdf == NULL) { ERR_clear_error(); }
    return kdf;
}

/// HKDF-SHA-256 (RFC 5869) with the KDF of ccrypto_hkdf_fetch. `mode` 0: extract and expand;
/// 1: extract only (`out_length` must be 32); 2: expand only (`key` is the PRK, `salt` is
/// ignored). Returns 1, or 0 when OpenSSL fails.
static inline int ccrypto_hkdf_sha256(
    EVP_KDF *kdf, int mode, const unsigned char *salt, size_t salt_length, const unsigned char *key, size_t key_length,
    const unsigned char *info, size_t info_length, unsigned char *out, size_t out_length) {
    int ok = 0;
    int openssl_mode = mode == 1 ? EVP_KDF_HKDF_MODE_EXTRACT_ONLY
        : (mode == 2 ? EVP_KDF_HKDF_MODE_EXPAND_ONLY : EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND);
    OSSL_PARAM params[6];
    size_t count = 0;
    EVP_KDF_CTX *ctx = kdf == NULL ? NULL : EVP_KDF_CTX_new(kdf);
    params[count++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0);
    params[count++] = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &openssl_mode);
    params[count++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)key, key_length);
    if (mode != 2) { params[count++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_length); }
    if (mode != 1 && info_length > 0) { params[count++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_length); }
    params[count] = OSSL_PARAM_construct_end();
    ok = ctx != NULL && EVP_KDF_derive(ctx, out, out_length, params) == 1;
    EVP_KDF_CTX_free(ctx);
    if (!ok) { ERR_clear_error(); }
    return ok;
}

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>

#endif
