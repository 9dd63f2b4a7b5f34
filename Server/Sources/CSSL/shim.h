/* OpenSSL's libssl (TLS) for Swift, used by NativeHTTP2 only: the TLS of the APNs transport of
 * our own. PushCrypto uses libcrypto through CCrypto; this module is only the TLS client. Typed
 * static-inline wrappers for what is a macro in OpenSSL 3 (SSL_CTX_set_mode, the minimum protocol
 * version, SNI) or needs a pointer Swift cannot spell easily (ALPN, the verify parameters). */
#ifndef PUSH_CSSL_SHIM_H
#define PUSH_CSSL_SHIM_H

#include <stddef.h>
#include <string.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

/* A client context: TLS 1.2 or later, the peer's certificate verified (against `ca_file` when
 * not NULL, else the system store), ALPN offering only "h2", partial and moving writes allowed
 * (the client writes from a buffer that grows). NULL when OpenSSL fails or the CA file does not
 * load. Free with SSL_CTX_free. */
static inline SSL_CTX *cssl_client_context(const char *ca_file) {
    static const unsigned char alpn[] = {2, 'h', '2'};
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (ctx == NULL) { return NULL; }
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) { goto fail; }
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    if (ca_file != NULL) {
        if (SSL_CTX_load_verify_locations(ctx, ca_file, NULL) != 1) { goto fail; }
    } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
        goto fail;
    }
    /* SSL_CTX_set_alpn_protos returns 0 on success. */
    if (SSL_CTX_set_alpn_protos(ctx, alpn, sizeof alpn) != 0) { goto fail; }
    return ctx;
fail:
    SSL_CTX_free(ctx);
    ERR_clear_error();
    return NULL;
}

/* A TLS client on socket `fd` for `host`: SNI (names only, not addresses) and the name or
 * address the certificate must carry. NULL when OpenSSL fails. Free with SSL_free. */
static inline SSL *cssl_client(SSL_CTX *ctx, int fd, const char *host, int host_is_address) {
    SSL *ssl = SSL_new(ctx);
    if (ssl == NULL) { return NULL; }
    if (SSL_set_fd(ssl, fd) != 1) { goto fail; }
    if (host_is_address) {
        if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) != 1) { goto fail; }
    } else {
        if (SSL_set_tlsext_host_name(ssl, host) != 1) { goto fail; }
        if (SSL_set1_host(ssl, host) != 1) { goto fail; }
    }
    SSL_set_connect_state(ssl);
    return ssl;
fail:
    SSL_free(ssl);
    ERR_clear_error();
    return NULL;
}

/* Whether the server chose ALPN "h2". */
static inline int cssl_alpn_is_h2(const SSL *ssl) {
    const unsigned char *chosen = NULL;
    unsigned int length = 0;
    SSL_get0_alpn_selected(ssl, &chosen, &length);
    return length == 2 && chosen != NULL && memcmp(chosen, "h2", 2) == 0;
}

/* The first error of OpenSSL's queue as text (empty when none), the queue cleared. */
static inline void cssl_error_text(char *out, size_t capacity) {
    unsigned long code = ERR_get_error();
    if (capacity == 0) { return; }
    out[0] = 0;
    if (code != 0) { ERR_error_string_n(code, out, capacity); }
    ERR_clear_error();
}

static inline int cssl_error_want_read(void) { return SSL_ERROR_WANT_READ; }
static inline int cssl_error_want_write(void) { return SSL_ERROR_WANT_WRITE; }
static inline int cssl_error_zero_return(void) { return SSL_ERROR_ZERO_RETURN; }

#endif
