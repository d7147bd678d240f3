#include "lib/plan/advice.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lib/core/document.hpp"
#include "lib/core/error.hpp"
#include "lib/core/json_util.hpp"
#include "lib/core/text_table.hpp"

namespace meshplan {
namespace {

ojson outcome_json(const AdviceOutcome& o, const std::string& objective) {
  ojson j;
  j["feasible"] = o.feasible;
  j["score"] = json_number(o.score);
  j["decode_tokens_per_s"] = json_number(o.decode_tokens_per_s);
  j["token_latency_ms"] = json_ms(o.token_latency_s);
  j["ttft_ms"] = json_ms(o.ttft_s);
  if (objective == "throughput")
    j["aggregate_tokens_per_s"] = json_number(o.aggregate_tokens_per_s);
  j["strategy"] = o.strategy;
  j["backend"] = o.backend;
  j["engine"] = o.engine;
  j["quantization"] = o.quantization;
  j["context"] = o.context;
  j["hosts"] = o.hosts;
  if (!o.note.empty()) j["note"] = o.note;
  return j;
}

ojson row_json(const AdviceRow& r, const std::string& objective) {
  ojson j;
  ojson changes = ojson::array();
  for (size_t i = 0; i < r.changes.size(); ++i)
    changes.push_back({{"kind", r.kinds[i]}, {"change", r.changes[i]}});
  j["changes"] = changes;
  j["gain"] = json_number(r.gain);
  j["speedup"] = json_number(r.speedup);
  j["steps"] = r.steps;
  ojson cables = ojson::array();
  for (const AdviceCable& c : r.cables)
    cables.push_back({{"a", {{"host", c.a_host}, {"port", c.a_port}, {"interface", c.a_interface}}},
                      {"b", {{"host", c.b_host}, {"port", c.b_port}, {"interface", c.b_interface}}},
                      {"kind", c.kind}});
  j["cables"] = cables;
  j["resolves"] = r.resolves;
  j["plan"] = outcome_json(r.outcome, objective);
  return j;
}

// "14.2 tokens/s" or "does not fit".
std::string figure(const AdviceOutcome& o, const std::string& objective) {
  if (!o.feasible) return "does not fit";
  return fmt::format("{:.1f} tokens/s{}", o.score, objective == "throughput" ? " in all" : "");
}

std::string layout(const AdviceOutcome& o) {
  if (!o.feasible) return "-";
  std::string out = fmt::format("{} over {}", o.strategy, o.hosts.size());
  if (!o.engine.empty()) out += ", " + o.engine;
  return out;
}

std::string gain_text(const AdviceRow& r) {
  if (r.speedup > 0) return fmt::format("+{:.1f} ({:.2f}x)", r.gain, r.speedup);
  return fmt::format("+{:.1f} (fits)", r.gain);
}

}  // namespace

std::string write_advice_json(const AdviceReport& report) {
  ojson j;
  j["schema"] = kAdviceSchema;
  j["model"] = report.model;
  j["objective"] = report.objective;
  j["baseline"] = outcome_json(report.baseline, report.objective);
  j["findings"] = report.findings;
  ojson gains = ojson::array();
  for (const AdviceRow& r : report.gains)
    gains.push_back(row_json(r, report.objective));
  j["gains"] = gains;
  ojson fixes = ojson::array();
  for (const AdviceRow& r : report.fixes)
    fixes.push_back(row_json(r, report.objective));
  j["fixes"] = fixes;
  ojson request_changes = ojson::array();
  for (const AdviceRow& r : report.request_changes)
    request_changes.push_back(row_json(r, report.objective));
  j["request_changes"] = request_changes;
  j["search"] = {{"candidates", report.candidates},
                 {"no_gain", report.no_gain},
                 {"max_changes", report.max_changes},
                 {"plans", report.plans},
                 {"exact", report.exact},
                 {"method", report.search},
                 {"seconds", json_number(report.seconds)}};
  return j.dump(2) + "\n";
}

std::string render_advice(const AdviceReport& report, size_t top) {
  const std::string& obj = report.objective;
  std::string out = fmt::format("Advice for {} ({} objective)\n", report.model, obj);
  // Row 0 is the cluster as it stands.
  TextTable t({"#", "change", "then", "gain", "plan"},
              {TextTable::Align::kRight, TextTable::Align::kLeft, TextTable::Align::kRight,
               TextTable::Align::kRight, TextTable::Align::kLeft});
  t.add_row(
      {"0", "none (as it stands)", figure(report.baseline, obj), "-", layout(report.baseline)});
  for (size_t i = 0; i < report.gains.size() && i < top; ++i) {
    const AdviceRow& r = report.gains[i];
    t.add_row({std::to_string(i + 1), fmt::format("{}", fmt::join(r.changes, " + ")),
               figure(r.outcome, obj), gain_text(r), layout(r.outcome)});
  }
  out += t.render();
  if (!report.baseline.feasible && !report.baseline.note.empty())
    out += fmt::format("As it stands: {}\n", report.baseline.note);
  if (report.gains.empty()) {
    out += "No change considered makes the plan faster.\n";
  } else {
    out += "\nWhat to do:\n";
    for (size_t i = 0; i < report.gains.size() && i < top; ++i) {
      const AdviceRow& r = report.gains[i];
      const std::string number = fmt::format("{}. ", i + 1);
      for (size_t k = 0; k < r.steps.size(); ++k)
        out += fmt::format("{:<{}}{}\n", k == 0 ? number : "", number.size(), r.steps[k]);
      if (!r.resolves.empty())
        out += fmt::format("{:<{}}resolves: {}\n", "", number.size(), fmt::join(r.resolves, "; "));
    }
    if (report.gains.size() > top)
      out += fmt::format("({} more with --top {} or --json)\n", report.gains.size() - top,
                         report.gains.size());
  }
  if (!report.request_changes.empty()) {
    out += "\nChanges of the request (not ranked above: they serve less than was asked):\n";
    for (const AdviceRow& r : report.request_changes)
      out += fmt::format("- {}: {} ({}); {}\n", fmt::join(r.changes, " + "), figure(r.outcome, obj),
                         gain_text(r), fmt::join(r.steps, "; then "));
  }
  if (!report.fixes.empty()) {
    out += "\nFixes that change no figure:\n";
    for (const AdviceRow& r : report.fixes)
      out += fmt::format("- {}: {}\n  resolves: {}\n", fmt::join(r.changes, " + "),
                         fmt::join(r.steps, "; then "), fmt::join(r.resolves, "; "));
  }
  out +=
      fmt::format("\n{} changes considered, {} bought nothing; {}; {} plans in {:.2f} s\n",
                  report.candidates, report.no_gain, report.search, report.plans, report.seconds);
  return out;
}

std::vector<std::pair<int, AdviceCable>> read_advice_cables(std::string_view text,
                                                            const std::string& where) {
  DocNode root = parse_document(text, where);
  root.require_object();
  const DocNode& schema = root.at("schema");
  if (schema.as_string() != kAdviceSchema)
    schema.fail(fmt::format("expected schema \"{}\" (meshplan advise --json)", kAdviceSchema));
  std::vector<std::pair<int, AdviceCable>> out;
  int row = 0;
  for (const DocNode& g : root.at("gains").require_array().items()) {
    ++row;
    for (const DocNode& c : g.require_object().at("cables").require_array().items()) {
      c.require_object();
      AdviceCable cable;
      const DocNode& a = c.at("a").require_object();
      const DocNode& b = c.at("b").require_object();
      cable.a_host = a.at("host").as_string();
      cable.a_port = a.at("port").as_string();
      cable.a_interface = a.at("interface").as_string();
      cable.b_host = b.at("host").as_string();
      cable.b_port = b.at("port").as_string();
      cable.b_interface = b.at("interface").as_string();
      cable.kind = c.at("kind").as_string();
      out.push_back({row, std::move(cable)});
    }
  }
  return out;
}

}  // namespace meshplan
