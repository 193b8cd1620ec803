#include "engine/sweep/sweep_progress.h"

#include <cstdio>
#include <ostream>
#include <string>

namespace tcsim::engine::sweep {

namespace {
std::string duration(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, int(s) / 60 % 60);
  return buf;
}
}  // namespace

Progress::Progress(std::size_t total, std::size_t done, bool bar, std::ostream* out)
    : total_(total), done_(done), start_done_(done), bar_(bar), out_(out), t0_(std::chrono::steady_clock::now()) {
  last_decile_ = total_ ? int(done_ * 10 / total_) : 10;
  if (out_ && done_ > 0) *out_ << "tcsim sweep: resuming, " << done_ << " of " << total_ << " runs already done\n";
}

void Progress::tick() {
  std::lock_guard<std::mutex> lock(mu_);
  ++done_;
  draw();
}

void Progress::draw() {
  if (!out_ || total_ == 0) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - t0_).count();
  const std::size_t ran = done_ - start_done_;
  const double eta = ran > 0 ? elapsed / double(ran) * double(total_ - done_) : 0;
  const int pct = int(done_ * 100 / total_);
  if (bar_) {
    if (done_ < total_ && std::chrono::duration<double>(now - last_draw_).count() < 0.1) return;
    last_draw_ = now;
    const int width = 30, filled = int(done_ * std::size_t(width) / total_);
    *out_ << "\r[" << std::string(std::size_t(filled), '#') << std::string(std::size_t(width - filled), ' ') << "] " << done_
          << "/" << total_ << " " << pct << "%  ETA " << duration(eta) << "   " << std::flush;
    return;
  }
  const int decile = int(done_ * 10 / total_);
  if (decile > last_decile_) {
    last_decile_ = decile;
    *out_ << "tcsim sweep: " << decile * 10 << "% (" << done_ << "/" << total_ << " runs), elapsed " << duration(elapsed)
          << ", ETA " << duration(eta) << "\n"
          << std::flush;
  }
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (out_ && bar_ && total_ > 0) {
    last_draw_ = {};
    draw();
    *out_ << "\n";
  }
}

}  // namespace tcsim::engine::sweep
