// StrataSQLiteSession is declarations only (include/StrataSQLiteSession.h); the functions are
// libsqlite3's. SwiftPM builds a C target from at least one source file: this one. It also keeps
// the header honest: where sqlite3.h declares the session extension (Debian's, SQLite's own),
// any prototype or value of ours that differs from SQLite's fails this file's compile.
#if __has_include(<sqlite3.h>)
#define SQLITE_ENABLE_SESSION 1
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>
#endif
#include "StrataSQLiteSession.h"
