#pragma once
// The fleet history's one schema, for SQLite and PostgreSQL alike:
//
//   schema_version  the version this database was made at (kSchemaVersion)
//   hosts           one row a host name (nothing but the host name identifies a machine)
//   runs            one row a run (its manifest's run id, host and rank: ingest is idempotent on
//                   them), when it started, its suite, its records and failed records counted,
//                   what run-complete reads of its run.json and whether it was whole, and its
//                   run.json's inventory as written (the inventory rules judge it), and a
//                   digest of its records (a run edited since it was stored is stored again)
//   parts           one row a part seen in a slot: GPU (slot: PCI bus id; UUID, serial), NIC
//                   (slot: device name; GUID, firmware). A new serial in a slot is a new row, so
//                   a replaced part starts a history of its own.
//   records         every record of every run (key, params, metrics, status), with the part it
//                   measured and its figure (the one metric its history trends)
//   verdicts        what `check --history` concluded of each run's parts
//   ledger          the coverage ledger of each run (fabric_ledger.jsonl): a line per link a
//                   round exercised, when, how (phase, via) and how many flows and bad ones
//   unreadable      the paths the last ingest of a directory could not read (an unreadable
//                   directory, a FIFO) and the runs it could not store: `check --history` judges
//                   them as `check` over the directories judges a path it cannot read, never a
//                   pass
//
// A database of a newer version than this build's is refused, before anything is written; an
// older one is brought up to this version when opened.
#include "analysis/history/database.h"

namespace railgauge::history {

// 2: records carry no foreign keys (ingest keeps them whole, one transaction a run); a
// version-1 database is upgraded when opened. 3: the ledger table; a version-2 database gets it
// when opened (runs ingested before then have no ledger rows: ingest does not revisit them).
// 4: a run's planned points, counts, world size and rank, and its completeness (runs ingested
// before then are judged by their stored status until they are ingested again). 5: a run's
// inventory (runs ingested before then have none: their inventory rules are not judged until
// they are ingested again), and the unreadable table. 6: a digest of a run's records (a run
// stored before then is stored again when it is ingested again: its records may have changed).
// 7: the host of an unreadable row that is a run the ingest could not store (NULL before then,
// and for paths that are no run's). 8: the ranks a run names as lost (a run stored before then
// names none: its survivor is judged as before until it is ingested again). 9: the run's plan
// digest and the points it measured (a run stored before then is superseded by any newer run of
// its host and suite until it is ingested again). 10: each record's point (records.point).
inline constexpr int kSchemaVersion = 10;

// Creates the tables a new database lacks, or checks an existing one's version (InputError,
// exit 4, when it is newer). Safe when many processes open a new database at once.
void prepare_schema(Database &db);

} // namespace railgauge::history
