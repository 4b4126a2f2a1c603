// StrataFaultVFS: a test-support VFS ("strata-faults") that wraps the default one and fails the
// Nth call of a file method, so tests can show what Strata does when the disk itself fails.
// Tests only: nothing that ships links it. See FaultVFS.c for how calls are counted.
#ifndef STRATA_FAULT_VFS_H
#define STRATA_FAULT_VFS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The file a call is made on, from the flags SQLite opened it with.
enum strata_fault_file_kind {
    STRATA_FAULT_MAIN_DB = 0,
    STRATA_FAULT_JOURNAL = 1,
    STRATA_FAULT_WAL = 2,
    STRATA_FAULT_OTHER = 3,
    STRATA_FAULT_KIND_COUNT = 4,
    STRATA_FAULT_ANY_KIND = -1
};

/// The methods a fault can be armed on.
enum strata_fault_method {
    STRATA_FAULT_WRITE = 0,
    STRATA_FAULT_SYNC = 1,
    STRATA_FAULT_READ = 2,
    STRATA_FAULT_TRUNCATE = 3,
    STRATA_FAULT_FILE_SIZE = 4,
    STRATA_FAULT_LOCK = 5,
    STRATA_FAULT_SHM_MAP = 6,
    STRATA_FAULT_OPEN = 7,
    STRATA_FAULT_METHOD_COUNT = 8
};

/// Registers the "strata-faults" VFS (once; later calls only change whether it is the default).
/// Returns an SQLite result code.
int strata_fault_vfs_register(int make_default);

/// The VFS's name, "strata-faults".
const char *strata_fault_vfs_name(void);

/// Starts counting the calls on files whose path contains `path_fragment` (a test's own
/// directory, say), so tests running in parallel never count or fail each other's calls.
/// Returns a scope id (>= 0), or -1 when all scopes are taken. Files opened before the scope
/// existed are not in it.
int strata_fault_scope_create(const char *path_fragment);

/// Forgets a scope; its files go on working, uncounted.
void strata_fault_scope_destroy(int scope);

/// Arms a fault: the `nth` call (1-based, counted from now) of `method` on files of `kind`
/// (or STRATA_FAULT_ANY_KIND) in `scope` fails with `result_code`. A persistent fault fails
/// every later matching call as well, until cleared. `short_write` (xWrite only) writes the
/// first half of the buffer before failing, as a disk that filled mid-write does.
/// Resets the scope's counters.
void strata_fault_arm(int scope, int kind, int method, int nth, int result_code, int persistent, int short_write);

/// Disarms the scope's fault; counting goes on.
void strata_fault_clear(int scope);

/// Zeroes the scope's counters and its count of faults injected.
void strata_fault_reset_counts(int scope);

/// Calls of `method` on files of `kind` (or any kind) in `scope` since the last arm or reset.
int64_t strata_fault_count(int scope, int kind, int method);

/// Faults injected in `scope` since the last arm or reset.
int64_t strata_fault_injected(int scope);

#ifdef __cplusplus
}
#endif

#endif
