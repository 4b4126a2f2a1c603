// The session extension (changesets) is declared only when these are defined before the header;
// Debian's libsqlite3 is built with both and exports the functions. Strata checks at run time
// (`PRAGMA compile_options`) before calling them.
#define SQLITE_ENABLE_SESSION 1
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>

// sqlite3_db_config is variadic, which Swift cannot call: one wrapper for its integer options.
static inline int strata_db_config_int(sqlite3 *db, int op, int value, int *previous) {
    return sqlite3_db_config(db, op, value, previous);
}
