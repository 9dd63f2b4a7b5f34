/* Typed wrappers for libcurl's variadic and macro-only API, so Swift can call them. */
#ifndef PUSH_CCURL_SHIM_H
#define PUSH_CCURL_SHIM_H

#include <curl/curl.h>
#include <sys/socket.h>

typedef size_t (*ccurl_data_cb)(char *ptr, size_t size, size_t nmemb, void *userdata);

static inline CURLcode ccurl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_ptr(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_str(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_datacb(CURL *h, CURLoption o, ccurl_data_cb v) { return curl_easy_setopt(h, o, v); }

static inline CURLcode ccurl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }

/* A seek callback that always fails: a request body sent through CURLOPT_READFUNCTION can
 * then never be rewound, so libcurl cannot resend a request on its own (see EasyHandle). */
static inline int ccurl_seek_refused(void *userdata, curl_off_t offset, int origin) {
    (void)userdata; (void)offset; (void)origin;
    return CURL_SEEKFUNC_FAIL;
}
static inline CURLcode ccurl_setopt_seek_refused(CURL *h) {
    return curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, ccurl_seek_refused);
}

/* Destination checks (CurlHTTP's DestinationPolicy). The open-socket callback sees the exact
 * address libcurl is about to connect to, before the socket exists; the pre-request callback
 * sees the peer address of the connection a request is about to be sent on (a new or a reused
 * one). */
typedef curl_socket_t (*ccurl_opensocket_cb)(void *clientp, curlsocktype purpose, struct curl_sockaddr *address);
static inline CURLcode ccurl_setopt_opensocket(CURL *h, ccurl_opensocket_cb v) { return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, v); }
typedef int (*ccurl_prereq_cb)(void *clientp, char *primary_ip, char *local_ip, int primary_port, int local_port);
static inline CURLcode ccurl_setopt_prereq(CURL *h, ccurl_prereq_cb v) { return curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, v); }
static inline curl_socket_t ccurl_socket_bad(void) { return CURL_SOCKET_BAD; }
static inline int ccurl_prereq_ok(void) { return CURL_PREREQFUNC_OK; }
static inline int ccurl_prereq_abort(void) { return CURL_PREREQFUNC_ABORT; }
/* The socket address in a curl_sockaddr: `addrlen` bytes, of which `struct sockaddr` is only the head. */
static inline const void *ccurl_sockaddr_bytes(const struct curl_sockaddr *a) { return &a->addr; }
/* Opens the socket as libcurl does when no open-socket callback is set. */
static inline curl_socket_t ccurl_open_socket(const struct curl_sockaddr *a) { return socket(a->family, a->socktype, a->protocol); }

/* The URL API: libcurl's own parser, so a check reads the host libcurl will connect to. */
static inline CURLUcode ccurl_url_set_url(CURLU *u, const char *url) { return curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME); }
static inline unsigned int ccurl_url_punycode(void) { return CURLU_PUNYCODE; }

static inline CURLMcode ccurl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

/* Option and constant values that import awkwardly (enums of mixed types, macros). */
static inline CURLoption ccurl_opt_url(void) { return CURLOPT_URL; }
static inline long ccurl_http_version_2_prior_knowledge(void) { return CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE; }
static inline long ccurl_http_version_2tls(void) { return CURL_HTTP_VERSION_2TLS; }
static inline long ccurl_pipe_multiplex(void) { return CURLPIPE_MULTIPLEX; }
static inline long ccurl_global_default(void) { return CURL_GLOBAL_DEFAULT; }
/* The running libcurl's version as 0xXXYYZZ (CURLVERSION_NOW is a macro Swift cannot see). */
static inline unsigned int ccurl_version_number(void) { return curl_version_info(CURLVERSION_NOW)->version_num; }

/* The message a finished transfer leaves in the multi handle: easy handle and result. */
static inline int ccurl_msg_done(CURLMsg *msg, CURL **easy, CURLcode *result) {
    if (msg == NULL || msg->msg != CURLMSG_DONE) return 0;
    *easy = msg->easy_handle;
    *result = msg->data.result;
    return 1;
}

#endif
