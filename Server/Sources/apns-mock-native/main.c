#define _GNU_SOURCE
/*
 * apns-mock-native: a fast mock APNs for throughput benchmarks (not for behaviour tests;
 * those use Mocks/mock_push.py). HTTP/2 over TLS (ALPN h2) on libnghttp2 + OpenSSL, one
 * epoll thread. Every request ending its stream gets `200` with an `apns-id` header after
 * --latency-ms (responses are queued in arrival order, so a constant latency keeps the
 * queue sorted) and the request's `apns-id` echoed. Requests without
 * `authorization: bearer …` get 403.
 *
 * usage: apns-mock-native --cert server.pem --key server.key [--port 0] [--latency-ms 0]
 *                         [--max-streams 1000] [--log FILE] [--time-log FILE] [--jwt-log FILE]
 * --log appends the apns-id of every request answered 200 to FILE, one a line (flushed
 * after each batch of answers): tests count deliveries and duplicates per job with it.
 * --time-log appends one line per request answered 200: `<answered> <arrived> <apns-id>
 * <token>`, the two times in nanoseconds of CLOCK_MONOTONIC (the clock of Python's
 * time.monotonic_ns() on Linux: comparable with a client's on this machine), the token from
 * the :path `/3/device/<token>` (`-` if none); flushed like --log. bench.py --steady times
 * each push from its send's answer to the mock's answer with it.
 * --jwt-log appends one line per distinct bearer token (provider JWT) the first time it is
 * seen: its unsigned part (`<header>.<claims>`, base64url: who signed it and when, not a
 * usable credential) and a 64-bit FNV-1a fingerprint of the whole token, so two tokens with
 * the same claims but another signature count as two: tests count the JWTs a cluster signed.
 * Prints `PORT <n>` once listening; prints totals on SIGTERM/SIGINT.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct conn {
    int fd;
    SSL *ssl;
    nghttp2_session *session;
    int handshaken;
    int closed;
    int pending; /* queued responses still pointing at this connection */
    unsigned char *out;
    size_t out_len, out_cap;
    int want_out; /* EPOLLOUT registered */
} conn;

/* Longest device token kept for --time-log (APNs tokens are 64 hex digits). */
#define TOKEN_MAX 100

typedef struct {
    conn *c;
    int32_t stream_id;
    int authorized;
    uint64_t due_ns;
    uint64_t arrived_ns;
    char apns_id[37]; /* echoed from the request, or empty */
    char token[TOKEN_MAX + 1]; /* from the :path, or empty */
} response;

static response *queue;
static size_t q_head, q_tail, q_cap;
static long latency_ms;
static uint32_t max_streams = 1000;
static volatile sig_atomic_t stopping;
static unsigned long long answered, refused;
static int epfd;
static FILE *answer_log;
static FILE *time_log;
static FILE *jwt_log;

/* Fingerprints of the bearer tokens seen so far (a handful in any test: a linear scan). */
static uint64_t *jwt_seen;
static size_t jwt_seen_count, jwt_seen_cap;

static uint64_t fnv1a(const uint8_t *bytes, size_t length) {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < length; i++) {
        hash ^= bytes[i];
        hash *= 0x100000001b3ull;
    }
    return hash;
}

/* Logs a bearer token (the value after "bearer ") the first time it is seen. */
static void note_jwt(const uint8_t *token, size_t length) {
    if (!jwt_log) return;
    uint64_t hash = fnv1a(token, length);
    for (size_t i = 0; i < jwt_seen_count; i++)
        if (jwt_seen[i] == hash) return;
    if (jwt_seen_count == jwt_seen_cap) {
        jwt_seen_cap = jwt_seen_cap ? jwt_seen_cap * 2 : 16;
        jwt_seen = realloc(jwt_seen, jwt_seen_cap * sizeof *jwt_seen);
    }
    jwt_seen[jwt_seen_count++] = hash;
    size_t unsigned_length = length;
    while (unsigned_length > 0 && token[unsigned_length - 1] != '.') unsigned_length--;
    if (unsigned_length > 0) unsigned_length--; /* drop the dot before the signature */
    fprintf(jwt_log, "%.*s %016llx\n", (int)unsigned_length, (const char *)token, (unsigned long long)hash);
    fflush(jwt_log);
}

/* Per-stream request facts: a bearer token was sent; the apns-id to echo; the device token. */
typedef struct {
    int authorized;
    char apns_id[37];
    char token[TOKEN_MAX + 1];
} stream_state;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void enqueue(conn *c, int32_t stream_id, const stream_state *st) {
    if (q_tail - q_head == q_cap) {
        size_t cap = q_cap ? q_cap * 2 : 4096;
        response *grown = malloc(cap * sizeof(response));
        for (size_t i = 0; i < q_tail - q_head; i++) grown[i] = queue[(q_head + i) % q_cap];
        q_tail -= q_head;
        q_head = 0;
        free(queue);
        queue = grown;
        q_cap = cap;
    }
    response *r = &queue[q_tail % q_cap];
    r->c = c;
    r->stream_id = stream_id;
    r->authorized = st->authorized;
    memcpy(r->apns_id, st->apns_id, sizeof r->apns_id);
    memcpy(r->token, st->token, sizeof r->token);
    r->arrived_ns = now_ns();
    r->due_ns = r->arrived_ns + (uint64_t)latency_ms * 1000000ull;
    q_tail++;
    c->pending++;
}

static void free_conn(conn *c) {
    nghttp2_session_del(c->session);
    SSL_free(c->ssl);
    free(c->out);
    free(c);
}

static void close_conn(conn *c) {
    if (c->closed) return;
    c->closed = 1;
    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    if (c->pending == 0) free_conn(c);
}

static void set_out_interest(conn *c, int want) {
    if (c->want_out == want || c->closed) return;
    struct epoll_event ev = {.events = EPOLLIN | (want ? EPOLLOUT : 0), .data.ptr = c};
    epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
    c->want_out = want;
}

/* Moves nghttp2's pending output into the TLS connection. */
static void flush(conn *c) {
    if (c->closed || !c->handshaken) return;
    for (;;) {
        while (c->out_len < 65536) {
            const uint8_t *data;
            ssize_t n = nghttp2_session_mem_send(c->session, &data);
            if (n < 0) { close_conn(c); return; }
            if (n == 0) break;
            if (c->out_len + (size_t)n > c->out_cap) {
                c->out_cap = (c->out_len + (size_t)n) * 2;
                c->out = realloc(c->out, c->out_cap);
            }
            memcpy(c->out + c->out_len, data, (size_t)n);
            c->out_len += (size_t)n;
        }
        if (c->out_len == 0) { set_out_interest(c, 0); break; }
        int w = SSL_write(c->ssl, c->out, (int)c->out_len);
        if (w <= 0) {
            int e = SSL_get_error(c->ssl, w);
            if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ) { set_out_interest(c, 1); return; }
            close_conn(c);
            return;
        }
        memmove(c->out, c->out + w, c->out_len - (size_t)w);
        c->out_len -= (size_t)w;
    }
    if (!nghttp2_session_want_read(c->session) && !nghttp2_session_want_write(c->session)) close_conn(c);
}

static int on_begin_headers(nghttp2_session *s, const nghttp2_frame *f, void *ud) {
    (void)ud;
    if (f->hd.type == NGHTTP2_HEADERS && f->headers.cat == NGHTTP2_HCAT_REQUEST) {
        stream_state *st = calloc(1, sizeof(stream_state));
        nghttp2_session_set_stream_user_data(s, f->hd.stream_id, st);
    }
    return 0;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *ud) {
    (void)flags; (void)ud;
    if (f->hd.type != NGHTTP2_HEADERS) return 0;
    stream_state *st = nghttp2_session_get_stream_user_data(s, f->hd.stream_id);
    if (st && namelen == 13 && memcmp(name, "authorization", 13) == 0 && valuelen > 7 &&
        strncasecmp((const char *)value, "bearer ", 7) == 0) {
        st->authorized = 1;
        note_jwt(value + 7, valuelen - 7);
    }
    if (st && namelen == 7 && memcmp(name, "apns-id", 7) == 0 && valuelen == 36) {
        memcpy(st->apns_id, value, 36);
        st->apns_id[36] = 0;
    }
    if (st && time_log && namelen == 5 && memcmp(name, ":path", 5) == 0 && valuelen > 10 &&
        memcmp(value, "/3/device/", 10) == 0) {
        size_t length = valuelen - 10 > TOKEN_MAX ? TOKEN_MAX : valuelen - 10;
        memcpy(st->token, value + 10, length);
        st->token[length] = 0;
    }
    return 0;
}

static int on_frame_recv(nghttp2_session *s, const nghttp2_frame *f, void *ud) {
    conn *c = ud;
    if ((f->hd.type == NGHTTP2_HEADERS || f->hd.type == NGHTTP2_DATA) && (f->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
        stream_state *st = nghttp2_session_get_stream_user_data(s, f->hd.stream_id);
        if (st) enqueue(c, f->hd.stream_id, st);
    }
    return 0;
}

static int on_stream_close(nghttp2_session *s, int32_t stream_id, uint32_t error_code, void *ud) {
    (void)error_code; (void)ud;
    free(nghttp2_session_get_stream_user_data(s, stream_id));
    nghttp2_session_set_stream_user_data(s, stream_id, NULL);
    return 0;
}

static nghttp2_session_callbacks *callbacks;
static nghttp2_option *session_options;

static void start_session(conn *c) {
    nghttp2_session_server_new2(&c->session, callbacks, c, session_options);
    nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, max_streams},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20},
    };
    nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, settings, 2);
    nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0, 1 << 24);
}

static void on_readable(conn *c) {
    unsigned char buf[65536];
    if (!c->handshaken) {
        int r = SSL_do_handshake(c->ssl);
        if (r != 1) {
            int e = SSL_get_error(c->ssl, r);
            if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) close_conn(c);
            return;
        }
        const unsigned char *alpn = NULL;
        unsigned int alpn_len = 0;
        SSL_get0_alpn_selected(c->ssl, &alpn, &alpn_len);
        /* No ALPN at all is taken as HTTP/2 with prior knowledge; anything else is refused. */
        if (alpn_len != 0 && (alpn_len != 2 || memcmp(alpn, "h2", 2) != 0)) { close_conn(c); return; }
        c->handshaken = 1;
        start_session(c);
    }
    for (;;) {
        int n = SSL_read(c->ssl, buf, sizeof buf);
        if (n <= 0) {
            int e = SSL_get_error(c->ssl, n);
            if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) break;
            close_conn(c);
            return;
        }
        if (nghttp2_session_mem_recv(c->session, buf, (size_t)n) < 0) { close_conn(c); return; }
    }
    flush(c);
}

static int select_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                       unsigned int inlen, void *arg) {
    (void)ssl; (void)arg;
    for (unsigned int i = 0; i < inlen; i += 1u + in[i]) {
        if (in[i] == 2 && i + 3 <= inlen && memcmp(in + i + 1, "h2", 2) == 0) {
            *out = in + i + 1;
            *outlen = 2;
            return SSL_TLSEXT_ERR_OK;
        }
    }
    return SSL_TLSEXT_ERR_NOACK;
}

/* Sends every response that is due; returns the epoll timeout until the next one. */
static int answer_due(void) {
    uint64_t now = now_ns();
    conn *touched[256];
    size_t ntouched = 0;
    while (q_head < q_tail) {
        response *r = &queue[q_head % q_cap];
        if (r->due_ns > now) {
            for (size_t i = 0; i < ntouched; i++) flush(touched[i]);
            if (answer_log) fflush(answer_log);
            if (time_log) fflush(time_log);
            uint64_t wait = (r->due_ns - now + 999999) / 1000000;
            return (int)(wait > 1000 ? 1000 : wait);
        }
        conn *c = r->c;
        q_head++;
        c->pending--;
        if (c->closed) {
            if (c->pending == 0) free_conn(c);
            continue;
        }
        char id[37];
        if (r->apns_id[0]) memcpy(id, r->apns_id, sizeof id);
        else snprintf(id, sizeof id, "%08x-0000-4000-8000-%012llx", (unsigned)r->stream_id, answered & 0xffffffffffffull);
        nghttp2_nv ok[] = {
            {(uint8_t *)":status", (uint8_t *)"200", 7, 3, NGHTTP2_NV_FLAG_NONE},
            {(uint8_t *)"apns-id", (uint8_t *)id, 7, 36, NGHTTP2_NV_FLAG_NONE},
        };
        nghttp2_nv denied[] = {
            {(uint8_t *)":status", (uint8_t *)"403", 7, 3, NGHTTP2_NV_FLAG_NONE},
            {(uint8_t *)"apns-id", (uint8_t *)id, 7, 36, NGHTTP2_NV_FLAG_NONE},
        };
        if (r->authorized) {
            nghttp2_submit_response(c->session, r->stream_id, ok, 2, NULL);
            answered++;
            if (answer_log) fprintf(answer_log, "%s\n", id);
            if (time_log)
                fprintf(time_log, "%llu %llu %s %s\n", (unsigned long long)now_ns(), (unsigned long long)r->arrived_ns, id,
                        r->token[0] ? r->token : "-");
        } else {
            nghttp2_submit_response(c->session, r->stream_id, denied, 2, NULL);
            refused++;
        }
        int seen = 0;
        for (size_t i = 0; i < ntouched; i++) if (touched[i] == c) { seen = 1; break; }
        if (!seen) {
            if (ntouched == 256) { for (size_t i = 0; i < ntouched; i++) flush(touched[i]); ntouched = 0; }
            touched[ntouched++] = c;
        }
    }
    for (size_t i = 0; i < ntouched; i++) flush(touched[i]);
    if (answer_log) fflush(answer_log);
    if (time_log) fflush(time_log);
    return -1;
}

static void on_signal(int sig) { (void)sig; stopping = 1; }

int main(int argc, char **argv) {
    const char *cert = NULL, *key = NULL;
    int port = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--cert")) cert = argv[i + 1];
        else if (!strcmp(argv[i], "--key")) key = argv[i + 1];
        else if (!strcmp(argv[i], "--port")) port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--latency-ms")) latency_ms = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--max-streams")) max_streams = (uint32_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--log")) {
            answer_log = fopen(argv[i + 1], "a");
            if (!answer_log) { perror("--log"); return 2; }
        } else if (!strcmp(argv[i], "--time-log")) {
            time_log = fopen(argv[i + 1], "a");
            if (!time_log) { perror("--time-log"); return 2; }
        } else if (!strcmp(argv[i], "--jwt-log")) {
            jwt_log = fopen(argv[i + 1], "a");
            if (!jwt_log) { perror("--jwt-log"); return 2; }
        }
    }
    if (!cert || !key) { fprintf(stderr, "usage: %s --cert PEM --key PEM [--port N] [--latency-ms N]\n", argv[0]); return 2; }
    signal(SIGPIPE, SIG_IGN);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);

    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1 || SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
        ERR_print_errors_fp(stderr);
        return 1;
    }
    SSL_CTX_set_alpn_select_cb(ctx, select_alpn, NULL);

    nghttp2_session_callbacks_new(&callbacks);
    /* libcurl 7.88 ends every finished stream with RST_STREAM(STREAM_CLOSED) (it clears its
     * "closed" flag before deciding whether to reset), and nghttp2's guard against rapid
     * resets (CVE-2023-44487) answers about a thousand of those with GOAWAY(INTERNAL_ERROR):
     * a connection every ~1,000 pushes, whose unanswered streams the client must resend.
     * Whether APNs does the same is not known; this mock measures throughput and duplicates,
     * so it lets them pass (the fault tests inject GOAWAY on purpose, in mock_push.py). */
    nghttp2_option_new(&session_options);
    nghttp2_option_set_stream_reset_rate_limit(session_options, UINT64_MAX / 2, UINT64_MAX / 2);
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);

    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(lfd, 128) != 0) { perror("listen"); return 1; }
    socklen_t alen = sizeof addr;
    getsockname(lfd, (struct sockaddr *)&addr, &alen);
    printf("PORT %d\n", ntohs(addr.sin_port));
    fflush(stdout);

    epfd = epoll_create1(0);
    struct epoll_event lev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &lev);
    struct epoll_event events[64];
    int timeout = -1;
    while (!stopping) {
        int n = epoll_wait(epfd, events, 64, timeout);
        for (int i = 0; i < n; i++) {
            conn *c = events[i].data.ptr;
            if (c == NULL) {
                int fd;
                while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    conn *nc = calloc(1, sizeof(conn));
                    nc->fd = fd;
                    nc->ssl = SSL_new(ctx);
                    SSL_set_fd(nc->ssl, fd);
                    SSL_set_accept_state(nc->ssl);
                    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = nc};
                    epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
                }
                continue;
            }
            if (c->closed) continue;
            c->pending++; /* keeps c allocated while this event is handled */
            if (events[i].events & (EPOLLERR | EPOLLHUP)) close_conn(c);
            if (!c->closed && (events[i].events & EPOLLIN)) on_readable(c);
            if (!c->closed && (events[i].events & EPOLLOUT)) flush(c);
            if (--c->pending == 0 && c->closed) free_conn(c);
        }
        timeout = answer_due();
    }
    fprintf(stderr, "apns-mock-native: answered %llu, refused %llu\n", answered, refused);
    return 0;
}
