#include "systolic/traces/trace_file.h"

#include <charconv>

#include "common/error.h"

namespace tcsim::systolic {

TraceFile::TraceFile(const std::filesystem::path& path)
    : out_(path), f_(std::fopen(out_.temp_path().string().c_str(), "wb")) {
  if (!f_) throw InputError(path.string(), "cannot write the trace file");
}

TraceFile::~TraceFile() {
  if (f_) std::fclose(f_);
}

void TraceFile::open_row(std::int64_t cycle) {
  if (open_ && cycle == cycle_) return;
  if (open_) put('\n');
  put_int(cycle);
  open_ = true;
  cycle_ = cycle;
}

void TraceFile::put_int(std::int64_t v) {
  if (len_ + 24 > sizeof buf_) flush();
  len_ = static_cast<std::size_t>(std::to_chars(buf_ + len_, buf_ + sizeof buf_, v).ptr - buf_);
}

void TraceFile::flush() {
  if (len_ > 0 && std::fwrite(buf_, 1, len_, f_) != len_)
    throw InputError(out_.final_path().string(), "could not write the trace file (disk full?)");
  len_ = 0;
}

void TraceFile::commit() {
  if (open_) put('\n');
  open_ = false;
  flush();
  const bool ok = std::fclose(f_) == 0;
  f_ = nullptr;
  if (!ok) throw InputError(out_.final_path().string(), "could not finish writing the trace file");
  out_.commit();
}

}  // namespace tcsim::systolic
