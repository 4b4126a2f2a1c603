// The SQLite session extension's declarations, on every platform.
//
// Debian's libsqlite3 and Apple's both export these functions, but sqlite3.h declares them only
// when SQLITE_ENABLE_SESSION and SQLITE_ENABLE_PREUPDATE_HOOK are defined before it, which a
// module (Apple's SQLite3, or a system-library shim) cannot arrange for its importers. Strata
// declares the part it calls here, and checks at run time (`PRAGMA compile_options`) that the
// linked library has the extension before calling any of it. The signatures and values are
// SQLite's own, stable since 3.13 (3.25 for sqlite3changeset_apply_v2, 3.36 for memory_used).
#ifndef STRATA_SQLITE_SESSION_H
#define STRATA_SQLITE_SESSION_H

// Opaque everywhere: the same incomplete types sqlite3.h declares, so both spellings agree.
typedef struct sqlite3 sqlite3;
typedef struct sqlite3_value sqlite3_value;
typedef struct sqlite3_session sqlite3_session;
typedef struct sqlite3_changeset_iter sqlite3_changeset_iter;
typedef struct sqlite3_changegroup sqlite3_changegroup;
typedef struct sqlite3_rebaser sqlite3_rebaser;

int sqlite3session_create(sqlite3 *db, const char *zDb, sqlite3_session **ppSession);
void sqlite3session_delete(sqlite3_session *pSession);
int sqlite3session_enable(sqlite3_session *pSession, int bEnable);
int sqlite3session_indirect(sqlite3_session *pSession, int bIndirect);
int sqlite3session_attach(sqlite3_session *pSession, const char *zTab);
int sqlite3session_changeset(sqlite3_session *pSession, int *pnChangeset, void **ppChangeset);
int sqlite3session_changeset_strm(sqlite3_session *pSession,
                                  int (*xOutput)(void *pOut, const void *pData, int nData),
                                  void *pOut);
int sqlite3session_patchset(sqlite3_session *pSession, int *pnPatchset, void **ppPatchset);
int sqlite3session_isempty(sqlite3_session *pSession);
long long sqlite3session_memory_used(sqlite3_session *pSession);
int sqlite3session_diff(sqlite3_session *pSession, const char *zFromDb, const char *zTbl, char **pzErrMsg);

int sqlite3changeset_start(sqlite3_changeset_iter **pp, int nChangeset, void *pChangeset);
int sqlite3changeset_start_strm(sqlite3_changeset_iter **pp,
                                int (*xInput)(void *pIn, void *pData, int *pnData),
                                void *pIn);
int sqlite3changeset_next(sqlite3_changeset_iter *pIter);
int sqlite3changeset_op(sqlite3_changeset_iter *pIter, const char **pzTab, int *pnCol, int *pOp, int *pbIndirect);
int sqlite3changeset_pk(sqlite3_changeset_iter *pIter, unsigned char **pabPK, int *pnCol);
int sqlite3changeset_old(sqlite3_changeset_iter *pIter, int iVal, sqlite3_value **ppValue);
int sqlite3changeset_new(sqlite3_changeset_iter *pIter, int iVal, sqlite3_value **ppValue);
int sqlite3changeset_conflict(sqlite3_changeset_iter *pIter, int iVal, sqlite3_value **ppValue);
int sqlite3changeset_fk_conflicts(sqlite3_changeset_iter *pIter, int *pnOut);
int sqlite3changeset_finalize(sqlite3_changeset_iter *pIter);
int sqlite3changeset_invert(int nIn, const void *pIn, int *pnOut, void **ppOut);
int sqlite3changeset_concat(int nA, void *pA, int nB, void *pB, int *pnOut, void **ppOut);

int sqlite3changegroup_new(sqlite3_changegroup **pp);
int sqlite3changegroup_add(sqlite3_changegroup *pGrp, int nData, void *pData);
int sqlite3changegroup_output(sqlite3_changegroup *pGrp, int *pnData, void **ppData);
void sqlite3changegroup_delete(sqlite3_changegroup *pGrp);

int sqlite3changeset_apply(
    sqlite3 *db, int nChangeset, void *pChangeset,
    int (*xFilter)(void *pCtx, const char *zTab),
    int (*xConflict)(void *pCtx, int eConflict, sqlite3_changeset_iter *p),
    void *pCtx);
int sqlite3changeset_apply_v2(
    sqlite3 *db, int nChangeset, void *pChangeset,
    int (*xFilter)(void *pCtx, const char *zTab),
    int (*xConflict)(void *pCtx, int eConflict, sqlite3_changeset_iter *p),
    void *pCtx, void **ppRebase, int *pnRebase, int flags);
int sqlite3changeset_apply_v2_strm(
    sqlite3 *db, int (*xInput)(void *pIn, void *pData, int *pnData), void *pIn,
    int (*xFilter)(void *pCtx, const char *zTab),
    int (*xConflict)(void *pCtx, int eConflict, sqlite3_changeset_iter *p),
    void *pCtx, void **ppRebase, int *pnRebase, int flags);

int sqlite3rebaser_create(sqlite3_rebaser **ppNew);
int sqlite3rebaser_configure(sqlite3_rebaser *p, int nRebase, const void *pRebase);
int sqlite3rebaser_rebase(sqlite3_rebaser *p, int nIn, const void *pIn, int *pnOut, void **ppOut);
void sqlite3rebaser_delete(sqlite3_rebaser *p);

#ifndef SQLITE_CHANGESET_DATA
#define SQLITE_CHANGESETSTART_INVERT        0x0002
#define SQLITE_CHANGESETAPPLY_NOSAVEPOINT   0x0001
#define SQLITE_CHANGESETAPPLY_INVERT        0x0002
#define SQLITE_CHANGESET_DATA        1
#define SQLITE_CHANGESET_NOTFOUND    2
#define SQLITE_CHANGESET_CONFLICT    3
#define SQLITE_CHANGESET_CONSTRAINT  4
#define SQLITE_CHANGESET_FOREIGN_KEY 5
#define SQLITE_CHANGESET_OMIT        0
#define SQLITE_CHANGESET_REPLACE     1
#define SQLITE_CHANGESET_ABORT       2
#endif

#endif
