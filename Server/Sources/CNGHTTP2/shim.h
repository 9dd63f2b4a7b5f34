/* libnghttp2 for Swift, used by NativeHTTP2 only (the APNs transport of our own). The library's
 * functions import as they are; this header adds what does not: the flag and error macros and
 * enum values Swift sees as typed constants that need converting, as plain ints. */
#ifndef PUSH_CNGHTTP2_SHIM_H
#define PUSH_CNGHTTP2_SHIM_H

#include <stdint.h>
#include <nghttp2/nghttp2.h>

/* A header name nghttp2 must not copy (a static string) with a value it copies. */
static inline uint8_t cnghttp2_flag_no_copy_name(void) { return NGHTTP2_NV_FLAG_NO_COPY_NAME; }
/* A header value nghttp2 must not copy (a static string). */
static inline uint8_t cnghttp2_flag_no_copy_value(void) { return NGHTTP2_NV_FLAG_NO_COPY_VALUE; }
/* A header name and value nghttp2 copies. */
static inline uint8_t cnghttp2_flag_none(void) { return NGHTTP2_NV_FLAG_NONE; }
/* The data provider's end-of-body flag. */
static inline uint32_t cnghttp2_data_flag_eof(void) { return NGHTTP2_DATA_FLAG_EOF; }
/* The callback error that ends mem_recv/mem_send with a fatal error. */
static inline int cnghttp2_err_callback_failure(void) { return NGHTTP2_ERR_CALLBACK_FAILURE; }
/* The frame types the client reacts to. */
static inline uint8_t cnghttp2_frame_headers(void) { return NGHTTP2_HEADERS; }
static inline uint8_t cnghttp2_frame_settings(void) { return NGHTTP2_SETTINGS; }
static inline uint8_t cnghttp2_frame_goaway(void) { return NGHTTP2_GOAWAY; }
static inline uint8_t cnghttp2_frame_ping(void) { return NGHTTP2_PING; }
static inline uint8_t cnghttp2_flag_ack(void) { return NGHTTP2_FLAG_ACK; }
/* RST_STREAM / GOAWAY error codes. */
static inline uint32_t cnghttp2_refused_stream(void) { return NGHTTP2_REFUSED_STREAM; }
static inline uint32_t cnghttp2_cancel(void) { return NGHTTP2_CANCEL; }
static inline uint32_t cnghttp2_no_error(void) { return NGHTTP2_NO_ERROR; }

/* Fills one settings entry (the struct's field names differ between nghttp2 versions' docs). */
static inline nghttp2_settings_entry cnghttp2_setting(int32_t id, uint32_t value) {
    nghttp2_settings_entry entry;
    entry.settings_id = id;
    entry.value = value;
    return entry;
}
static inline int32_t cnghttp2_settings_max_concurrent_streams(void) { return NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS; }
static inline int32_t cnghttp2_settings_enable_push(void) { return NGHTTP2_SETTINGS_ENABLE_PUSH; }
static inline int32_t cnghttp2_settings_initial_window_size(void) { return NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE; }

#endif
