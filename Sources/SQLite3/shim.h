// The session extension is declared by Strata's own StrataSQLiteSession header (on every
// platform), not here.
#include <sqlite3.h>

// sqlite3_db_config is variadic, which Swift cannot call: one wrapper for its integer options.
static inline int strata_db_config_int(sqlite3 *db, int op, int value, int *previous) {
    return sqlite3_db_config(db, op, value, previous);
}
