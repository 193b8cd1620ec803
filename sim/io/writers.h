#pragma once
// Text writers for Tables and ResultSets, and the result folder of a run (`-o DIR`).
#include <filesystem>
#include <string>

#include "io/table.h"

namespace tcsim::io {

// Aligned, for people: numbers right-aligned with about 4 significant digits, text left-aligned,
// empty cells blank, NaN/inf as "nan"/"inf".
std::string format_text_table(const Table& t);
// RFC 4180 quoting (fields with , " CR LF or edge spaces are quoted, quotes doubled), rows end in
// "\n"; numbers in their shortest form that reads back to the same double; empty cells empty;
// NaN/inf as nan/inf/-inf.
std::string format_csv(const Table& t);
// {"attributes":{...},"tables":{"name":{"columns":[names..],"rows":[[..],..]}}}; numbers as
// numbers (shortest round-trip form), NaN/inf and empty cells as null, strings escaped (invalid
// UTF-8 bytes become U+FFFD). Attributes get "schema_version":"1" when not given.
std::string format_json(const ResultSet& r);

// Writes summary.csv (tables[0]), summary.json, results.h5 (and any extra CSVs named
// <table.name>.csv for tables[1..] when `all_tables_as_csv`) into dir, each atomically; also
// config.resolved.yaml when the attributes hold a non-empty "config_yaml".
void write_result_dir(const std::filesystem::path& dir, const ResultSet& r, bool all_tables_as_csv = false);
// The same files through an AtomicDir (common/files/atomic_dir.h): `dir` gets them all, and the marker
// tcsim.complete, only when every one was written; a failure or SIGINT/SIGTERM leaves no trace.
void write_result_folder(const std::filesystem::path& dir, const ResultSet& r, bool all_tables_as_csv = false);

}  // namespace tcsim::io
