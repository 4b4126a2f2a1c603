// The "strata-faults" VFS: forwards every call to the VFS that was the default when it was
// registered (unix on Linux and macOS), counts the calls on files opened under a scope, and fails
// the one a test armed. Files outside every scope are forwarded without taking the lock, so the
// VFS can be the default for a whole test run with faults off at no visible cost.
//
// Loaded with LD_PRELOAD (the library product StrataFaultVFSPreload), the environment configures
// it before main runs, so a separate process such as the `strata` binary meets the same faults:
//   STRATA_FAULT_VFS=default                  makes it the process's default VFS;
//   STRATA_FAULT_ARM=frag:kind:method:nth:code:persistent:short
//                                             arms one fault on files whose path contains frag
//                                             (kind/method as the enums' numbers; code 0 = default).
#include "StrataFaultVFS.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCOPE_CAPACITY 128
#define FRAGMENT_CAPACITY 1024

typedef struct {
    int used;
    unsigned generation;
    char fragment[FRAGMENT_CAPACITY];
    int64_t counts[STRATA_FAULT_KIND_COUNT][STRATA_FAULT_METHOD_COUNT];
    int64_t injected;
    int armed;
    int kind;
    int method;
    int64_t nth;
    int code;
    int persistent;
    int short_write;
} Scope;

typedef struct {
    sqlite3_file base;
    sqlite3_file *real;   // the wrapped VFS's file, allocated right after this struct
    int kind;
    int scope;            // -1: outside every scope
    unsigned generation;  // the scope's generation when the file opened
} FaultFile;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Scope scopes[SCOPE_CAPACITY];
static sqlite3_vfs fault_vfs;
static sqlite3_vfs *real_vfs;
static int registered;

static int default_code(int method) {
    switch (method) {
    case STRATA_FAULT_WRITE: return SQLITE_IOERR_WRITE;
    case STRATA_FAULT_SYNC: return SQLITE_IOERR_FSYNC;
    case STRATA_FAULT_READ: return SQLITE_IOERR_READ;
    case STRATA_FAULT_TRUNCATE: return SQLITE_IOERR_TRUNCATE;
    case STRATA_FAULT_FILE_SIZE: return SQLITE_IOERR_FSTAT;
    case STRATA_FAULT_LOCK: return SQLITE_IOERR_LOCK;
    case STRATA_FAULT_SHM_MAP: return SQLITE_IOERR_SHMMAP;
    default: return SQLITE_CANTOPEN;
    }
}

/// Counts one call; returns the code to fail it with, or SQLITE_OK. `short_write` is set when a
/// failing write should first write half its buffer.
static int count_call(int scope, unsigned generation, int kind, int method, int *short_write) {
    if (scope < 0) return SQLITE_OK;
    int code = SQLITE_OK;
    pthread_mutex_lock(&lock);
    Scope *s = &scopes[scope];
    if (s->used && s->generation == generation) {
        int64_t count = ++s->counts[kind][method];
        if (s->armed && s->method == method && (s->kind == STRATA_FAULT_ANY_KIND || s->kind == kind)) {
            // With any kind, the Nth call counts across kinds.
            if (s->kind == STRATA_FAULT_ANY_KIND) {
                count = 0;
                for (int k = 0; k < STRATA_FAULT_KIND_COUNT; k++) count += s->counts[k][method];
            }
            if (count == s->nth || (s->persistent && count > s->nth)) {
                code = s->code;
                s->injected++;
                if (short_write) *short_write = s->short_write;
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return code;
}

#define FILE_OF(f) ((FaultFile *)(f))
#define COUNT(f, method, sw) count_call(FILE_OF(f)->scope, FILE_OF(f)->generation, FILE_OF(f)->kind, method, sw)
/* The body of every counted method that fails plainly: a due fault answers for the real file,
   otherwise the call goes through unchanged. */
#define COUNTED_CALL(f, fault, method, ...) do { \
    int rc = COUNT(f, fault, NULL); \
    if (rc != SQLITE_OK) return rc; \
    sqlite3_file *real = FILE_OF(f)->real; \
    return real->pMethods->method(real, __VA_ARGS__); \
} while (0)

static int fault_close(sqlite3_file *f) {
    sqlite3_file *real = FILE_OF(f)->real;
    int rc = real->pMethods ? real->pMethods->xClose(real) : SQLITE_OK;
    return rc;
}

static int fault_read(sqlite3_file *f, void *buffer, int amount, sqlite3_int64 offset) {
    COUNTED_CALL(f, STRATA_FAULT_READ, xRead, buffer, amount, offset);
}

static int fault_write(sqlite3_file *f, const void *buffer, int amount, sqlite3_int64 offset) {
    int short_write = 0;
    int rc = COUNT(f, STRATA_FAULT_WRITE, &short_write);
    sqlite3_file *real = FILE_OF(f)->real;
    if (rc != SQLITE_OK) {
        if (short_write && amount > 1) real->pMethods->xWrite(real, buffer, amount / 2, offset);
        return rc;
    }
    return real->pMethods->xWrite(real, buffer, amount, offset);
}

static int fault_truncate(sqlite3_file *f, sqlite3_int64 size) {
    COUNTED_CALL(f, STRATA_FAULT_TRUNCATE, xTruncate, size);
}

static int fault_sync(sqlite3_file *f, int flags) {
    COUNTED_CALL(f, STRATA_FAULT_SYNC, xSync, flags);
}

static int fault_file_size(sqlite3_file *f, sqlite3_int64 *size) {
    COUNTED_CALL(f, STRATA_FAULT_FILE_SIZE, xFileSize, size);
}

static int fault_lock(sqlite3_file *f, int level) {
    COUNTED_CALL(f, STRATA_FAULT_LOCK, xLock, level);
}

static int fault_unlock(sqlite3_file *f, int level) {
    sqlite3_file *real = FILE_OF(f)->real;
    return real->pMethods->xUnlock(real, level);
}

static int fault_check_reserved_lock(sqlite3_file *f, int *out) {
    sqlite3_file *real = FILE_OF(f)->real;
    return real->pMethods->xCheckReservedLock(real, out);
}

static int fault_file_control(sqlite3_file *f, int op, void *argument) {
    sqlite3_file *real = FILE_OF(f)->real;
    return real->pMethods->xFileControl(real, op, argument);
}

static int fault_sector_size(sqlite3_file *f) {
    sqlite3_file *real = FILE_OF(f)->real;
    return real->pMethods->xSectorSize(real);
}

static int fault_device_characteristics(sqlite3_file *f) {
    sqlite3_file *real = FILE_OF(f)->real;
    return real->pMethods->xDeviceCharacteristics(real);
}

static int fault_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **out) {
    int rc = COUNT(f, STRATA_FAULT_SHM_MAP, NULL);
    if (rc != SQLITE_OK) { *out = NULL; return rc; }
    sqlite3_file *real = FILE_OF(f)->real;
    return real->pMethods->xShmMap(real, region, size, extend, out);
}

static int fault_shm_lock(sqlite3_file *f, int offset, int n, int flags) {
    sqlite3_file *real = FILE_OF(f)->real;
    return real->pMethods->xShmLock(real, offset, n, flags);
}

static void fault_shm_barrier(sqlite3_file *f) {
    sqlite3_file *real = FILE_OF(f)->real;
    real->pMethods->xShmBarrier(real);
}

static int fault_shm_unmap(sqlite3_file *f, int delete_flag) {
    sqlite3_file *real = FILE_OF(f)->real;
    return real->pMethods->xShmUnmap(real, delete_flag);
}

static int fault_fetch(sqlite3_file *f, sqlite3_int64 offset, int amount, void **out) {
    sqlite3_file *real = FILE_OF(f)->real;
    return real->pMethods->xFetch(real, offset, amount, out);
}

static int fault_unfetch(sqlite3_file *f, sqlite3_int64 offset, void *page) {
    sqlite3_file *real = FILE_OF(f)->real;
    return real->pMethods->xUnfetch(real, offset, page);
}

// One table per wrapped-method version, so SQLite never calls a method the real file lacks.
static const sqlite3_io_methods methods_v1 = {
    1, fault_close, fault_read, fault_write, fault_truncate, fault_sync, fault_file_size,
    fault_lock, fault_unlock, fault_check_reserved_lock, fault_file_control, fault_sector_size,
    fault_device_characteristics, 0, 0, 0, 0, 0, 0
};
static const sqlite3_io_methods methods_v2 = {
    2, fault_close, fault_read, fault_write, fault_truncate, fault_sync, fault_file_size,
    fault_lock, fault_unlock, fault_check_reserved_lock, fault_file_control, fault_sector_size,
    fault_device_characteristics, fault_shm_map, fault_shm_lock, fault_shm_barrier, fault_shm_unmap, 0, 0
};
static const sqlite3_io_methods methods_v3 = {
    3, fault_close, fault_read, fault_write, fault_truncate, fault_sync, fault_file_size,
    fault_lock, fault_unlock, fault_check_reserved_lock, fault_file_control, fault_sector_size,
    fault_device_characteristics, fault_shm_map, fault_shm_lock, fault_shm_barrier, fault_shm_unmap,
    fault_fetch, fault_unfetch
};

static int kind_of(int flags) {
    if (flags & SQLITE_OPEN_MAIN_DB) return STRATA_FAULT_MAIN_DB;
    if (flags & SQLITE_OPEN_MAIN_JOURNAL) return STRATA_FAULT_JOURNAL;
    if (flags & SQLITE_OPEN_WAL) return STRATA_FAULT_WAL;
    return STRATA_FAULT_OTHER;
}

static int fault_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags, int *out_flags) {
    (void)vfs;
    FaultFile *file = FILE_OF(f);
    memset(file, 0, sizeof(FaultFile));
    file->real = (sqlite3_file *)(file + 1);
    file->kind = kind_of(flags);
    file->scope = -1;
    if (name) {
        pthread_mutex_lock(&lock);
        for (int i = 0; i < SCOPE_CAPACITY; i++) {
            if (scopes[i].used && strstr(name, scopes[i].fragment)) {
                file->scope = i;
                file->generation = scopes[i].generation;
                break;
            }
        }
        pthread_mutex_unlock(&lock);
    }
    int rc = COUNT(f, STRATA_FAULT_OPEN, NULL);
    if (rc != SQLITE_OK) { f->pMethods = NULL; return rc; }
    rc = real_vfs->xOpen(real_vfs, name, file->real, flags, out_flags);
    if (file->real->pMethods == NULL) {
        f->pMethods = NULL;
    } else {
        int version = file->real->pMethods->iVersion;
        f->pMethods = version >= 3 ? &methods_v3 : version == 2 ? &methods_v2 : &methods_v1;
    }
    return rc;
}

static int fault_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    (void)vfs;
    return real_vfs->xDelete(real_vfs, name, sync_dir);
}

static int fault_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    (void)vfs;
    return real_vfs->xAccess(real_vfs, name, flags, out);
}

static int fault_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return real_vfs->xFullPathname(real_vfs, name, size, out);
}

static void *fault_dl_open(sqlite3_vfs *vfs, const char *name) { (void)vfs; return real_vfs->xDlOpen(real_vfs, name); }
static void fault_dl_error(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; real_vfs->xDlError(real_vfs, size, out); }
static void (*fault_dl_sym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
    (void)vfs;
    return real_vfs->xDlSym(real_vfs, library, symbol);
}
static void fault_dl_close(sqlite3_vfs *vfs, void *library) { (void)vfs; real_vfs->xDlClose(real_vfs, library); }
static int fault_randomness(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return real_vfs->xRandomness(real_vfs, size, out); }
static int fault_sleep(sqlite3_vfs *vfs, int microseconds) { (void)vfs; return real_vfs->xSleep(real_vfs, microseconds); }
static int fault_current_time(sqlite3_vfs *vfs, double *out) { (void)vfs; return real_vfs->xCurrentTime(real_vfs, out); }
static int fault_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return real_vfs->xGetLastError ? real_vfs->xGetLastError(real_vfs, size, out) : 0;
}
static int fault_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) {
    (void)vfs;
    return real_vfs->xCurrentTimeInt64(real_vfs, out);
}
static int fault_set_system_call(sqlite3_vfs *vfs, const char *name, sqlite3_syscall_ptr call) {
    (void)vfs;
    return real_vfs->xSetSystemCall(real_vfs, name, call);
}
static sqlite3_syscall_ptr fault_get_system_call(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return real_vfs->xGetSystemCall(real_vfs, name);
}
static const char *fault_next_system_call(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return real_vfs->xNextSystemCall(real_vfs, name);
}

const char *strata_fault_vfs_name(void) { return "strata-faults"; }

int strata_fault_vfs_register(int make_default) {
    pthread_mutex_lock(&lock);
    if (!registered) {
        sqlite3_vfs *found = sqlite3_vfs_find(NULL);
        if (!found) { pthread_mutex_unlock(&lock); return SQLITE_ERROR; }
        real_vfs = found;
        memset(&fault_vfs, 0, sizeof fault_vfs);
        // Version 3 methods are called only when the wrapped VFS has them (unix has all).
        fault_vfs.iVersion = found->iVersion < 3 ? found->iVersion : 3;
        fault_vfs.szOsFile = (int)sizeof(FaultFile) + found->szOsFile;
        fault_vfs.mxPathname = found->mxPathname;
        fault_vfs.zName = "strata-faults";
        fault_vfs.xOpen = fault_open;
        fault_vfs.xDelete = fault_delete;
        fault_vfs.xAccess = fault_access;
        fault_vfs.xFullPathname = fault_full_pathname;
        fault_vfs.xDlOpen = fault_dl_open;
        fault_vfs.xDlError = fault_dl_error;
        fault_vfs.xDlSym = fault_dl_sym;
        fault_vfs.xDlClose = fault_dl_close;
        fault_vfs.xRandomness = fault_randomness;
        fault_vfs.xSleep = fault_sleep;
        fault_vfs.xCurrentTime = fault_current_time;
        fault_vfs.xGetLastError = fault_get_last_error;
        if (fault_vfs.iVersion >= 2) fault_vfs.xCurrentTimeInt64 = fault_current_time_int64;
        if (fault_vfs.iVersion >= 3) {
            fault_vfs.xSetSystemCall = fault_set_system_call;
            fault_vfs.xGetSystemCall = fault_get_system_call;
            fault_vfs.xNextSystemCall = fault_next_system_call;
        }
        registered = 1;
    }
    pthread_mutex_unlock(&lock);
    return sqlite3_vfs_register(&fault_vfs, make_default);
}

int strata_fault_scope_create(const char *path_fragment) {
    if (!path_fragment || strlen(path_fragment) >= FRAGMENT_CAPACITY) return -1;
    int found = -1;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < SCOPE_CAPACITY; i++) {
        if (!scopes[i].used) {
            unsigned generation = scopes[i].generation + 1;
            memset(&scopes[i], 0, sizeof(Scope));
            scopes[i].used = 1;
            scopes[i].generation = generation;
            strcpy(scopes[i].fragment, path_fragment);
            found = i;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

static int valid(int scope) { return scope >= 0 && scope < SCOPE_CAPACITY; }

void strata_fault_scope_destroy(int scope) {
    if (!valid(scope)) return;
    pthread_mutex_lock(&lock);
    scopes[scope].used = 0;
    scopes[scope].armed = 0;
    pthread_mutex_unlock(&lock);
}

void strata_fault_arm(int scope, int kind, int method, int nth, int result_code, int persistent, int short_write) {
    if (!valid(scope) || method < 0 || method >= STRATA_FAULT_METHOD_COUNT) return;
    if (kind < STRATA_FAULT_ANY_KIND || kind >= STRATA_FAULT_KIND_COUNT) return;
    pthread_mutex_lock(&lock);
    Scope *s = &scopes[scope];
    memset(s->counts, 0, sizeof s->counts);
    s->injected = 0;
    s->armed = 1;
    s->kind = kind;
    s->method = method;
    s->nth = nth < 1 ? 1 : nth;
    s->code = result_code ? result_code : default_code(method);
    s->persistent = persistent;
    s->short_write = short_write;
    pthread_mutex_unlock(&lock);
}

void strata_fault_clear(int scope) {
    if (!valid(scope)) return;
    pthread_mutex_lock(&lock);
    scopes[scope].armed = 0;
    pthread_mutex_unlock(&lock);
}

void strata_fault_reset_counts(int scope) {
    if (!valid(scope)) return;
    pthread_mutex_lock(&lock);
    memset(scopes[scope].counts, 0, sizeof scopes[scope].counts);
    scopes[scope].injected = 0;
    pthread_mutex_unlock(&lock);
}

int64_t strata_fault_count(int scope, int kind, int method) {
    if (!valid(scope) || method < 0 || method >= STRATA_FAULT_METHOD_COUNT) return 0;
    int64_t total = 0;
    pthread_mutex_lock(&lock);
    for (int k = 0; k < STRATA_FAULT_KIND_COUNT; k++) {
        if (kind == STRATA_FAULT_ANY_KIND || kind == k) total += scopes[scope].counts[k][method];
    }
    pthread_mutex_unlock(&lock);
    return total;
}

int64_t strata_fault_injected(int scope) {
    if (!valid(scope)) return 0;
    pthread_mutex_lock(&lock);
    int64_t injected = scopes[scope].injected;
    pthread_mutex_unlock(&lock);
    return injected;
}

// Configures the VFS from the environment when the library is preloaded into a process, and
// makes it the default before anything opens a file when the fault sweeps will run
// (STRATA_FAULT_TESTS=1). The default VFS must not change once a file is open: PROJ (loaded by
// mod_spatialite) wraps the default VFS for proj.db and, closing it from a static destructor at
// exit, finds its saved xClose at an offset taken from the *current* default VFS's szOsFile; a
// default changed in between (the sweeps used to register this VFS when the first one ran) made
// that a NULL call: the SIGSEGV at exit after every test had passed.
__attribute__((constructor)) static void configure_from_environment(void) {
    const char *mode = getenv("STRATA_FAULT_VFS");
    const char *sweeps = getenv("STRATA_FAULT_TESTS");
    if (!mode && sweeps && strcmp(sweeps, "1") == 0) mode = "default";
    if (!mode) return;
    strata_fault_vfs_register(strcmp(mode, "default") == 0);
    const char *arm = getenv("STRATA_FAULT_ARM");
    if (!arm) return;
    char fragment[FRAGMENT_CAPACITY];
    int kind = 0, method = 0, nth = 0, code = 0, persistent = 0, short_write = 0;
    const char *colon = strchr(arm, ':');
    if (!colon || (size_t)(colon - arm) >= sizeof fragment) return;
    memcpy(fragment, arm, (size_t)(colon - arm));
    fragment[colon - arm] = 0;
    if (sscanf(colon + 1, "%d:%d:%d:%d:%d:%d", &kind, &method, &nth, &code, &persistent, &short_write) < 3) return;
    int scope = strata_fault_scope_create(fragment);
    if (scope >= 0) strata_fault_arm(scope, kind, method, nth, code, persistent, short_write);
}
