#pragma once
// An output folder that appears only when everything in it is complete. A verb writes its files
// into work() — a temporary folder beside the target (".<name>.tmp.<pid>") — and calls commit()
// when all succeeded: each entry then moves into the target (replacing an older one of the same
// name; other files in the target are left alone), and the marker file kCompleteMarker is written
// last. A failed run (an exception: the destructor) or SIGINT/SIGTERM removes the temporary folder,
// so the target never holds a mix of a finished and an unfinished run; the marker says which
// target folders hold a finished one (it is removed first thing in commit()).
#include <filesystem>

namespace tcsim {

inline constexpr const char* kCompleteMarker = "tcsim.complete";

class AtomicDir {
 public:
  explicit AtomicDir(std::filesystem::path target);
  ~AtomicDir();
  AtomicDir(const AtomicDir&) = delete;
  AtomicDir& operator=(const AtomicDir&) = delete;
  const std::filesystem::path& work() const { return work_; }
  const std::filesystem::path& target() const { return target_; }
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path work_;
  bool committed_ = false;
  int live_slot_ = -1;  // the signal handler's slot for work_ (-1: none)
};

}  // namespace tcsim
