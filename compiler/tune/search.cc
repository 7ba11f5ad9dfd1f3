#include "compiler/tune/search.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "compiler/tune/cost_model.h"
#include "runtime/core/blocked_layout.h"

namespace loom::tune {
namespace {

using tensorize::Conv2dLayer;
using tensorize::Conv2dTiling;

// Knob values: each index into one knob's list (oc, ic, oh, ow, virtual threads).
using State = std::array<uint32_t, 5>;

// Tile sizes giving distinct tile counts for an extent n, largest first (the built-in search's
// lists, without its caps).
std::vector<uint32_t> Sizes(uint32_t n) {
  std::set<uint32_t, std::greater<>> sizes;
  for (uint32_t k = 1; k <= n; ++k) sizes.insert(CeilDiv(n, k));
  return {sizes.begin(), sizes.end()};
}

class Space {
 public:
  Space(const HwConfig& c, const Conv2dLayer& l) : c_(c), l_(l) {
    knobs_ = {Sizes(l.o_blocks), Sizes(l.c_blocks), Sizes(l.out_h()), Sizes(l.out_w()), {1, 2}};
  }
  Conv2dTiling Tiling(const State& s) const {
    return {knobs_[0][s[0]], knobs_[1][s[1]], knobs_[2][s[2]], knobs_[3][s[3]], knobs_[4][s[4]]};
  }
  bool Fits(const State& s) const { return tensorize::Conv2dTilingFits(c_, l_, Tiling(s)); }
  // The state of a tiling, when its sizes are in the lists.
  bool Find(const Conv2dTiling& t, State* s) const {
    const uint32_t v[5] = {t.oc, t.ic, t.oh, t.ow, t.virtual_threads};
    for (size_t k = 0; k < 5; ++k) {
      auto it = std::find(knobs_[k].begin(), knobs_[k].end(), v[k]);
      if (it == knobs_[k].end()) return false;
      (*s)[k] = static_cast<uint32_t>(it - knobs_[k].begin());
    }
    return true;
  }
  State Random(std::mt19937& rng) const {
    State s;
    for (size_t k = 0; k < 5; ++k) s[k] = static_cast<uint32_t>(rng() % knobs_[k].size());
    return s;
  }
  // One knob one step up or down its list (a random value of it one time in eight).
  State Neighbor(const State& s, std::mt19937& rng) const {
    State n = s;
    const size_t k = rng() % 5;
    const uint32_t size = static_cast<uint32_t>(knobs_[k].size());
    if (size == 1) return n;
    if (rng() % 8 == 0) {
      n[k] = static_cast<uint32_t>(rng() % size);
    } else if (n[k] == 0 || (n[k] + 1 < size && rng() % 2)) {
      ++n[k];
    } else {
      --n[k];
    }
    return n;
  }
  uint64_t Count() const {
    uint64_t n = 0;
    State s{};
    for (s[0] = 0; s[0] < knobs_[0].size(); ++s[0])
      for (s[1] = 0; s[1] < knobs_[1].size(); ++s[1])
        for (s[2] = 0; s[2] < knobs_[2].size(); ++s[2])
          for (s[3] = 0; s[3] < knobs_[3].size(); ++s[3])
            for (s[4] = 0; s[4] < knobs_[4].size(); ++s[4]) n += Fits(s);
    return n;
  }
  std::vector<Conv2dTiling> All() const {
    std::vector<Conv2dTiling> out;
    State s{};
    for (s[0] = 0; s[0] < knobs_[0].size(); ++s[0])
      for (s[1] = 0; s[1] < knobs_[1].size(); ++s[1])
        for (s[2] = 0; s[2] < knobs_[2].size(); ++s[2])
          for (s[3] = 0; s[3] < knobs_[3].size(); ++s[3])
            for (s[4] = 0; s[4] < knobs_[4].size(); ++s[4])
              if (Fits(s)) out.push_back(Tiling(s));
    return out;
  }

 private:
  const HwConfig& c_;
  const Conv2dLayer& l_;
  std::array<std::vector<uint32_t>, 5> knobs_;
};

class Search {
 public:
  Search(const HwConfig& c, const Conv2dLayer& l, Measurer* m, const SearchOptions& o)
      : c_(c), l_(l), space_(c, l), measurer_(m), o_(o), rng_(o.seed) {}

  Status Run(const Conv2dTiling& builtin, SearchResult* out) {
    out->space = space_.Count();
    uint64_t cycles = 0;
    LOOM_RETURN_IF_ERROR(
        measurer_->Measure(l_, builtin, &cycles)
            .WithContext("layer {}: the built-in tiling {}", l_.name, builtin.ToString()));
    Record(builtin, cycles, out);
    out->builtin_cycles = cycles;
    State seed{};
    if (space_.Find(builtin, &seed)) measured_[seed] = cycles;
    while (out->trials < o_.trials && std::chrono::steady_clock::now() < o_.deadline) {
      const uint32_t n = std::min(o_.batch, o_.trials - out->trials);
      const std::vector<State> batch = Propose(n);
      if (batch.empty()) break;  // the whole space is measured
      for (const State& s : batch) {
        if (model_.fitted()) out->predicted.push_back(model_.Predict(Features(s)));
        uint64_t cy = 0;
        const Conv2dTiling t = space_.Tiling(s);
        if (!measurer_->Measure(l_, t, &cy).ok()) {
          measured_[s] = 0;
          ++out->failed;
          ++out->trials;
          if (model_.fitted()) out->predicted.pop_back();
          continue;
        }
        measured_[s] = cy;
        if (model_.fitted()) out->measured.push_back(std::log(static_cast<double>(cy)));
        Record(t, cy, out);
      }
      model_.Fit();
      if (o_.on_batch) o_.on_batch(out->trials, out->best_cycles);
    }
    return Status::Ok();
  }

 private:
  std::vector<double> Features(const State& s) const {
    return ScheduleFeatures(c_, l_, space_.Tiling(s));
  }
  void Record(const Conv2dTiling& t, uint64_t cycles, SearchResult* out) {
    ++out->trials;
    model_.Add(ScheduleFeatures(c_, l_, t), cycles);
    if (out->best_cycles == 0 || cycles < out->best_cycles) {
      out->best_cycles = cycles;
      out->best = t;
    }
    if (o_.on_measured) o_.on_measured(t, cycles);
  }
  bool Fresh(const State& s) const { return !measured_.count(s) && space_.Fits(s); }

  // The n unmeasured states to measure next: the model's favourites from annealing, and a quarter
  // (at least one) chosen at random; before the model is fitted, neighbours of the best so far.
  std::vector<State> Propose(uint32_t n) {
    std::map<State, double> seen;  // unmeasured states visited, by predicted cost
    if (model_.fitted()) Anneal(&seen);
    std::vector<std::pair<double, State>> ranked;
    for (const auto& [s, e] : seen) ranked.push_back({e, s});
    std::sort(ranked.begin(), ranked.end());
    std::set<State> chosen;
    const uint32_t explore = model_.fitted() ? std::max<uint32_t>(1, n / 4) : n;
    for (const auto& [e, s] : ranked) {
      if (chosen.size() + explore >= n) break;
      chosen.insert(s);
    }
    const std::vector<State> best = Best(4);
    for (int attempt = 0; chosen.size() < n && attempt < 2000; ++attempt) {
      // Half the exploration next to the best measured states, half anywhere.
      State s = attempt % 2 == 0 && !best.empty()
                    ? space_.Neighbor(best[rng_() % best.size()], rng_)
                    : space_.Random(rng_);
      if (Fresh(s)) chosen.insert(s);
    }
    return {chosen.begin(), chosen.end()};
  }

  // The k best measured states, fastest first.
  std::vector<State> Best(size_t k) const {
    std::vector<std::pair<uint64_t, State>> all;
    for (const auto& [s, cy] : measured_)
      if (cy) all.push_back({cy, s});
    std::sort(all.begin(), all.end());
    std::vector<State> out;
    for (size_t i = 0; i < all.size() && i < k; ++i) out.push_back(all[i].second);
    return out;
  }

  // Simulated annealing on predicted log(cycles), from the best measured states and a few random
  // ones; every unmeasured state a chain visits is a candidate.
  void Anneal(std::map<State, double>* seen) {
    std::vector<State> starts = Best(4);
    for (int i = 0; i < 16 && starts.size() < 8; ++i) {
      const State s = space_.Random(rng_);
      if (space_.Fits(s)) starts.push_back(s);
    }
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (const State& start : starts) {
      State cur = start;
      double e = model_.Predict(Features(cur)), temp = 0.3;
      for (int step = 0; step < 150; ++step, temp *= 0.97) {
        const State next = space_.Neighbor(cur, rng_);
        if (!space_.Fits(next)) continue;
        const double en = model_.Predict(Features(next));
        if (!measured_.count(next)) (*seen)[next] = en;
        if (en < e || unit(rng_) < std::exp((e - en) / temp)) {
          cur = next;
          e = en;
        }
      }
    }
  }

  const HwConfig& c_;
  const Conv2dLayer& l_;
  Space space_;
  Measurer* measurer_;
  const SearchOptions& o_;
  std::mt19937 rng_;
  CostModel model_;
  std::map<State, uint64_t> measured_;  // 0: the candidate failed
};

}  // namespace

std::vector<Conv2dTiling> KnobSpace(const HwConfig& config, const Conv2dLayer& layer) {
  return Space(config, layer).All();
}

Status SearchLayer(const HwConfig& config, const Conv2dLayer& layer, const Conv2dTiling& builtin,
                   Measurer* measurer, const SearchOptions& options, SearchResult* out) {
  *out = SearchResult{};
  Search s(config, layer, measurer, options);
  return s.Run(builtin, out);
}

}  // namespace loom::tune
