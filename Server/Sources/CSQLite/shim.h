// SQLite for Swift: wrappers for what does not import (SQLITE_TRANSIENT).
#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/// Binds text that SQLite copies before returning.
static inline int csqlite_bind_text(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}

/// Binds a blob that SQLite copies before returning.
static inline int csqlite_bind_blob(sqlite3_stmt *stmt, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(stmt, index, bytes, length, SQLITE_TRANSIENT);
}

#endif
