#include "bench/routed_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bench/routed_exact.hpp"
#include "bench/routed_families.hpp"
#include "lib/core/error.hpp"
#include "lib/core/text_table.hpp"
#include "solvers/routed/routed_search.hpp"

namespace meshplan {
namespace {

// The branch-and-bound nodes of the integer program on one split instance, at most: a few
// seconds each on the 2-core machine at 4 hosts over 10 layers, minutes at 6 over 12.
constexpr int kSplitNodes = 200000;

// The instance with every link raised to what no host carries (a link that is missing stays so):
// links that never bind, the bound and the search on the same hosts and tables. The families give
// their links as a table per pair, which is all this raises.
RoutedInstance with_free_links(RoutedInstance in) {
  double most = 0;
  for (const RoutedHost& h : in.hosts)
    for (double t : h.table)
      most = std::max(most, t);
  for (auto& row : in.link)
    for (double& l : row)
      if (l > 0) l = std::max(l, most);
  return in;
}

std::string instance_name(const RoutedBenchRun& r) {
  return fmt::format("{} hosts, {} layers, seed {}", r.hosts, r.layers, r.seed);
}

}  // namespace

RoutedBenchReport run_routed_bench(const RoutedBenchOptions& options, const Clock& clock,
                                   const std::function<void(const RoutedBenchRun&)>& done) {
  RoutedBenchReport report;
  report.options = options;
  std::vector<std::string> families = options.families;
  if (families.empty()) families = routed_family_names();
  for (const std::string& f : families)
    generate_routed_instance(f, 2, 2, 1);  // an unknown family names the families
  for (int hosts : options.sizes)
    if (hosts < 2 || hosts > 128)
      throw input_error("--sizes {}: expected host counts from 2 to 128 for --routed", hosts);
  if (!(options.budget_s > 0)) throw input_error("--budget: expected seconds above 0");
  // The integer program grows with hosts x layers^2: past these it does not finish.
  if (options.split_hosts < 2 || options.split_hosts > 12 || options.split_layers < 2 ||
      options.split_layers > 40)
    throw input_error("--split {}x{}: expected 2 to 12 hosts over 2 to 40 layers",
                      options.split_hosts, options.split_layers);
  if (options.split_seeds < 0 || options.split_seeds > 100)
    throw input_error("--split-seeds {}: expected 0 to 100", options.split_seeds);
  const double began = clock.now_seconds();
  RoutedOptions search;
  search.time_limit_s = options.budget_s;
  for (const std::string& family : families) {
    RoutedFamilyRow row;
    row.family = family;
    for (int hosts : options.sizes)
      for (uint64_t seed : {1, 2}) {
        RoutedBenchRun r{family, hosts, seed == 1 ? 60 : 80,
                         seed * 100 + static_cast<uint64_t>(hosts)};
        const RoutedInstance in = generate_routed_instance(family, hosts, r.layers, r.seed);
        const double t0 = clock.now_seconds();
        const RoutedSolution s = solve_routed(in, search);
        r.seconds = clock.now_seconds() - t0;
        r.flow = s.flow.total;
        r.bound = s.bound.tokens_per_s;
        r.optimal = s.optimal;
        if (options.free_links) {
          const RoutedSolution f = solve_routed(with_free_links(in), search);
          r.free_flow = f.flow.total;
          r.free_bound = f.bound.tokens_per_s;
          if (r.flow > 0) row.free_over_flow_pct += (r.free_flow / r.flow - 1) * 100;
          row.free_gap_mean_pct += r.free_gap_pct();
          row.bound_unchanged += std::abs(r.free_bound - r.bound) <= 1e-9 * r.bound;
        }
        ++row.instances;
        row.proven += r.optimal;
        row.gap_mean_pct += r.gap_pct();
        if (row.instances == 1 || r.gap_pct() > row.gap_worst_pct) {
          row.gap_worst_pct = r.gap_pct();
          row.worst = instance_name(r);
        }
        row.seconds_mean += r.seconds;
        row.seconds_worst = std::max(row.seconds_worst, r.seconds);
        report.runs.push_back(r);
        if (done) done(r);
      }
    if (row.instances > 0) {
      row.gap_mean_pct /= row.instances;
      row.seconds_mean /= row.instances;
      row.free_over_flow_pct /= row.instances;
      row.free_gap_mean_pct /= row.instances;
    }
    for (int seed = 1; seed <= options.split_seeds; ++seed) {
      const RoutedInstance in =
          generate_routed_instance(family, options.split_hosts, options.split_layers, seed);
      RoutedSplitRun x{family, static_cast<uint64_t>(seed)};
      const RoutedExact exact = solve_routed_exactly(in, kSplitNodes);
      const RoutedSolution s = solve_routed(in, search);
      x.optimum = exact.tokens_per_s;
      x.proven = exact.optimal;
      x.flow = s.flow.total;
      x.bound = s.bound.tokens_per_s;
      if (x.proven && x.optimum > 0 && x.flow > 0) {
        ++row.split_proven;
        row.bound_over_optimum_pct += (x.bound / x.optimum - 1) * 100;
        // The program's tolerance can leave the optimum a hair below the search's flow.
        const double search_part = std::max(0.0, (x.optimum / x.flow - 1) * 100);
        row.optimum_over_flow_pct += search_part;
        row.optimum_over_flow_worst_pct = std::max(row.optimum_over_flow_worst_pct, search_part);
      }
      report.splits.push_back(x);
    }
    if (row.split_proven > 0) {
      row.bound_over_optimum_pct /= row.split_proven;
      row.optimum_over_flow_pct /= row.split_proven;
    }
    report.rows.push_back(row);
  }
  report.seconds = clock.now_seconds() - began;
  return report;
}

std::string render_routed(const RoutedBenchReport& report) {
  using A = TextTable::Align;
  TextTable runs(
      {"family", "hosts", "layers", "seed", "flow", "bound", "gap %", "proven", "time s"},
      {A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kLeft,
       A::kRight});
  for (const RoutedBenchRun& r : report.runs)
    runs.add_row({r.family, std::to_string(r.hosts), std::to_string(r.layers),
                  std::to_string(r.seed), fmt::format("{:.1f}", r.flow),
                  fmt::format("{:.1f}", r.bound), fmt::format("{:.2f}", r.gap_pct()),
                  r.optimal ? "yes" : "no", fmt::format("{:.3f}", r.seconds)});
  TextTable rows(
      {"family", "instances", "proven", "gap mean %", "gap worst %", "worst instance",
       "time mean s", "time worst s"},
      {A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kLeft, A::kRight, A::kRight});
  for (const RoutedFamilyRow& r : report.rows)
    rows.add_row({r.family, std::to_string(r.instances), std::to_string(r.proven),
                  fmt::format("{:.2f}", r.gap_mean_pct), fmt::format("{:.2f}", r.gap_worst_pct),
                  r.worst, fmt::format("{:.3f}", r.seconds_mean),
                  fmt::format("{:.3f}", r.seconds_worst)});
  std::string out = runs.render() + "\n\n" + rows.render();
  if (report.options.free_links) {
    TextTable free({"family", "flow over own links % mean", "gap mean %", "bound unchanged"},
                   {A::kLeft, A::kRight, A::kRight, A::kRight});
    for (const RoutedFamilyRow& r : report.rows)
      free.add_row({r.family, fmt::format("{:.2f}", r.free_over_flow_pct),
                    fmt::format("{:.2f}", r.free_gap_mean_pct),
                    fmt::format("{} of {}", r.bound_unchanged, r.instances)});
    out +=
        "\n\nThe same instances with links that never bind (--free-links): how much more the "
        "search carries, its gap then, and on how many the bound is the same as on the "
        "instance's own links (a bound that does not see what the links cost):\n\n";
    out += free.render();
  }
  if (report.options.split_seeds > 0) {
    TextTable split({"family", "proven", "bound over optimum %", "optimum over flow %",
                     "optimum over flow worst %"},
                    {A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight});
    for (const RoutedFamilyRow& r : report.rows)
      split.add_row({r.family, fmt::format("{} of {}", r.split_proven, report.options.split_seeds),
                     r.split_proven ? fmt::format("{:.2f}", r.bound_over_optimum_pct) : "-",
                     r.split_proven ? fmt::format("{:.2f}", r.optimum_over_flow_pct) : "-",
                     r.split_proven ? fmt::format("{:.2f}", r.optimum_over_flow_worst_pct) : "-"});
    out += fmt::format(
        "\n\nThe gap split on {} hosts over {} layers (seeds 1-{}), each instance solved exactly "
        "as one integer program (GLPK):\n\n",
        report.options.split_hosts, report.options.split_layers, report.options.split_seeds);
    out += split.render();
  }
  return out + fmt::format(
                   "\n\n{} instances in {:.1f} s; each search spends a budget of {:g} s of work "
                   "(counted in steps, the same on any machine); gap = upper bound / flow - 1.\n",
                   report.runs.size(), report.seconds, report.options.budget_s);
}

ojson routed_to_json(const RoutedBenchReport& report) {
  ojson j;
  j["budget_s"] = json_number(report.options.budget_s);
  j["gap"] = "upper bound / flow - 1, in percent";
  ojson families = ojson::array();
  for (const RoutedFamilyRow& r : report.rows)
    families.push_back(
        {{"family", r.family},
         {"instances", r.instances},
         {"proven", r.proven},
         {"gap_mean_pct", json_number(r.gap_mean_pct)},
         {"gap_worst_pct", json_number(r.gap_worst_pct)},
         {"worst", r.worst},
         {"seconds_mean", json_number(r.seconds_mean)},
         {"seconds_worst", json_number(r.seconds_worst)},
         {"split_proven", r.split_proven},
         {"bound_over_optimum_pct", json_number(r.bound_over_optimum_pct)},
         {"optimum_over_flow_pct", json_number(r.optimum_over_flow_pct)},
         {"optimum_over_flow_worst_pct", json_number(r.optimum_over_flow_worst_pct)}});
  if (report.options.free_links)
    for (size_t i = 0; i < report.rows.size(); ++i) {
      const RoutedFamilyRow& r = report.rows[i];
      families[i]["free_links"] = {{"flow_over_own_links_pct", json_number(r.free_over_flow_pct)},
                                   {"gap_mean_pct", json_number(r.free_gap_mean_pct)},
                                   {"bound_unchanged", r.bound_unchanged}};
    }
  j["families"] = families;
  ojson runs = ojson::array();
  for (const RoutedBenchRun& r : report.runs)
    runs.push_back({{"family", r.family},
                    {"hosts", r.hosts},
                    {"layers", r.layers},
                    {"seed", r.seed},
                    {"flow", json_number(r.flow)},
                    {"bound", json_number(r.bound)},
                    {"gap_pct", json_number(r.gap_pct())},
                    {"optimal", r.optimal},
                    {"seconds", json_number(r.seconds)}});
  if (report.options.free_links)
    for (size_t i = 0; i < report.runs.size(); ++i) {
      runs[i]["free_flow"] = json_number(report.runs[i].free_flow);
      runs[i]["free_bound"] = json_number(report.runs[i].free_bound);
    }
  j["runs"] = runs;
  ojson splits = ojson::array();
  for (const RoutedSplitRun& x : report.splits)
    splits.push_back({{"family", x.family},
                      {"hosts", report.options.split_hosts},
                      {"layers", report.options.split_layers},
                      {"seed", x.seed},
                      {"optimum", x.proven ? json_number(x.optimum) : ojson()},
                      {"flow", json_number(x.flow)},
                      {"bound", json_number(x.bound)}});
  j["split"] = splits;
  j["seconds"] = json_number(report.seconds);
  return j;
}

}  // namespace meshplan
