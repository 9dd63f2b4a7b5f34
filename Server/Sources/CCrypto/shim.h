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

/// Imports a P-256 public key from its 65-byte uncompressed encoding (0x04 || x || y). Returns
/// NULL, with OpenSSL's error queue cleared, unless the point is on the curve and not the point
/// at infinity (EVP_PKEY_public_check_quick; P-256's cofactor is 1, so every such point is in
/// the prime-order group and the full check's scalar multiplication by n adds nothing). Free
/// with EVP_PKEY_free.
static inline EVP_PKEY *ccrypto_p256_public_key(const unsigned char *point, size_t length) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY_CTX *check = NULL;
    OSSL_PARAM params[3];
    if (point == NULL || length != 65 || point[0] != 0x04) { return NULL; }
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)"prime256v1", 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)point, length);
    params[2] = OSSL_PARAM_construct_end();
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) != 1 || EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) {
        EVP_PKEY_free(key);
        key = NULL;
        goto done;
    }
    check = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    if (check == NULL || EVP_PKEY_public_check_quick(check) != 1) {
        EVP_PKEY_free(key);
        key = NULL;
    }
done:
    EVP_PKEY_CTX_free(check);
    EVP_PKEY_CTX_free(ctx);
    if (key == NULL) { ERR_clear_error(); }
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

/// Generates a P-256 key pair. Returns NULL when OpenSSL fails. Free with EVP_PKEY_free.
static inline EVP_PKEY *ccrypto_p256_generate(void) {
    EVP_PKEY *key = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_CTX_set_group_name(ctx, "P-256") != 1 || EVP_PKEY_generate(ctx, &key) != 1) {
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

/// HKDF-SHA-256 (RFC 5869) through EVP_PKEY_HKDF. `mode` 0: extract and expand; 1: extract
/// only (`out_length` must be 32); 2: expand only (`key` is the PRK, `salt` is ignored).
/// Returns 1, or 0 when OpenSSL fails.
static inline int ccrypto_hkdf_sha256(
    int mode, const unsigned char *salt, size_t salt_length, const unsigned char *key, size_t key_length,
    const unsigned char *info, size_t info_length, unsigned char *out, size_t out_length) {
    int ok = 0;
    size_t length = out_length;
    int openssl_mode = mode == 1 ? EVP_PKEY_HKDEF_MODE_EXTRACT_ONLY
        : (mode == 2 ? EVP_PKEY_HKDEF_MODE_EXPAND_ONLY : EVP_PKEY_HKDEF_MODE_EXTRACT_AND_EXPAND);
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
    if (ctx == NULL || EVP_PKEY_derive_init(ctx) != 1 || EVP_PKEY_CTX_set_hkdf_mode(ctx, openssl_mode) != 1
        || EVP_PKEY_CTX_set_hkdf_md(ctx, EVP_sha256()) != 1
        || EVP_PKEY_CTX_set1_hkdf_key(ctx, key, (int)key_length) != 1) {
        goto done;
    }
    if (mode != 2 && EVP_PKEY_CTX_set1_hkdf_salt(ctx, salt, (int)salt_length) != 1) { goto done; }
    if (mode != 1 && info_length > 0 && EVP_PKEY_CTX_add1_hkdf_info(ctx, info, (int)info_length) != 1) { goto done; }
    ok = EVP_PKEY_derive(ctx, out, &length) == 1 && length == out_length;
done:
    EVP_PKEY_CTX_free(ctx);
    if (!ok) { ERR_clear_error(); }
    return ok;
}

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>

#endif
