// OpenSSL libcrypto for Swift, used by PushCrypto only (the service's one crypto module: sealing
// at rest with AES-256-GCM, HMAC-SHA256, SHA-256, random bytes, JWT signing). It holds the typed
// static-inline wrappers for what does not import into Swift (macros such as the GCM controls,
// and key generation for `--seed-dev`); PushCrypto calls the rest of libcrypto directly.
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

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>

#endif
