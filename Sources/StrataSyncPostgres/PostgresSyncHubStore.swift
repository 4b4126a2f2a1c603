// The hub's store on PostgreSQL (behind the package trait `Hub`).
#if Hub
import PostgresNIO
#endif
