// SQLite for Swift: wrappers for what does not import (SQLITE_TRANSIENT).
#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/// Binds text that SQLite copies before returning.
static inline int csqlite_bind_text(sqlite3_stmt *stmt, int index, const char *text, int length) {
    /* A NULL pointer would bind SQL NULL: an empty string is "" with length 0. The length is
       always given (never -1), so text with an embedded NUL is stored whole. */
    return sqlite3_bind_text(stmt, index, text ? text : "", length, SQLITE_TRANSIENT);
}

/// Binds a blob that SQLite copies before returning.
static inline int csqlite_bind_blob(sqlite3_stmt *stmt, int index, const void *bytes, int length) {
    /* sqlite3_bind_blob with a NULL pointer binds SQL NULL; an empty blob is a zero-length blob. */
    if (bytes == 0 || length == 0) return sqlite3_bind_zeroblob(stmt, index, 0);
    return sqlite3_bind_blob(stmt, index, bytes, length, SQLITE_TRANSIENT);
}

#endif
