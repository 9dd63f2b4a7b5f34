// libpq (PostgreSQL's client library) for Swift. Debian: libpq-dev (headers in
// /usr/include/postgresql, found through pkg-config's libpq).
#ifndef CLIBPQ_SHIM_H
#define CLIBPQ_SHIM_H

#include <libpq-fe.h>

#endif
