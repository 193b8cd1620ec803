#pragma once
// Outputs are written to a temporary name in the same folder and renamed into place when complete,
// so a reader (or an interrupted run) never sees a half-written file.
#include <filesystem>
#include <string>

namespace tcsim {

// Writes `contents` to `path` atomically; creates parent folders. Throws InputError on failure.
void write_file_atomically(const std::filesystem::path& path, const std::string& contents);

// For writers that need a file name (HDF5): write to temp_path(), then commit().
// If commit() is never called the temporary file is removed by the destructor.
class AtomicOutput {
 public:
  explicit AtomicOutput(std::filesystem::path final_path);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  const std::filesystem::path& temp_path() const { return temp_; }
  const std::filesystem::path& final_path() const { return final_; }
  void commit();

 private:
  std::filesystem::path final_;
  std::filesystem::path temp_;
  bool committed_ = false;
};

// Reads a whole file; throws InputError naming the file when it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace tcsim
