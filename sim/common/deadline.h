// A host wall-clock limit for one simulator run. Device time (cycles) bounds what a program may
// ask of the accelerator; this bounds what a run may cost the host, since a simulator can take
// hours over a program that is legal but long (tsim simulates a few hundred thousand cycles per
// second), or that never finishes.
#ifndef LOOM_SIM_COMMON_DEADLINE_H_
#define LOOM_SIM_COMMON_DEADLINE_H_

#include <chrono>
#include <cstdint>

namespace loom::sim {

class Deadline {
 public:
  // `limit_ms` of host time from now; 0: no limit.
  explicit Deadline(uint64_t limit_ms = 0)
      : limit_ms_(limit_ms),
        end_(std::chrono::steady_clock::now() +
             std::chrono::milliseconds(limit_ms < kMaxMs ? limit_ms : kMaxMs)) {}

  uint64_t limit_ms() const { return limit_ms_; }
  bool Passed() const { return limit_ms_ != 0 && std::chrono::steady_clock::now() >= end_; }

  // For loops whose steps cost nanoseconds: adds `work` steps and reads the clock only once about
  // every kPollWork of them, which keeps the check far below the cost of the work it bounds.
  bool Poll(uint64_t work) {
    if (limit_ms_ == 0) return false;
    pending_ += work;
    if (pending_ < kPollWork) return false;
    pending_ = 0;
    return Passed();
  }

 private:
  static constexpr uint64_t kPollWork = 1 << 16;
  static constexpr uint64_t kMaxMs = uint64_t{1} << 40;  // 35 years; keeps the time point finite
  uint64_t limit_ms_;
  std::chrono::steady_clock::time_point end_;
  uint64_t pending_ = 0;
};

}  // namespace loom::sim

#endif  // LOOM_SIM_COMMON_DEADLINE_H_
