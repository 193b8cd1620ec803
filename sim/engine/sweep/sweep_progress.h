#pragma once
// Progress of a sweep on stderr: on a terminal a bar redrawn in place with the ETA; otherwise (a
// log file, a Slurm job) one line per 10% so logs stay short. Thread-safe.
#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <mutex>

namespace tcsim::engine::sweep {

class Progress {
 public:
  // total: runs of the shard; done: already finished (resumed); out: nullptr for silence.
  Progress(std::size_t total, std::size_t done, bool bar, std::ostream* out);
  void tick();     // one run finished
  void finish();   // ends the bar's line

 private:
  void draw();
  std::size_t total_, done_, start_done_;
  bool bar_;
  std::ostream* out_;
  int last_decile_ = -1;
  std::chrono::steady_clock::time_point t0_, last_draw_;
  std::mutex mu_;
};

}  // namespace tcsim::engine::sweep
