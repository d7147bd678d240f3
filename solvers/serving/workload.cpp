#include "solvers/serving/workload.hpp"

#include <fmt/format.h>

#include "lib/core/error.hpp"
#include "lib/core/units.hpp"

namespace meshplan {
namespace {

int64_t tokens(const DocNode& node) {
  if (node.is_number()) {
    int64_t v = node.as_int();
    if (v < 0) node.fail("expected a number of tokens, 0 or more (8192, 8k)");
    return v;
  }
  auto n = parse_token_count(node.as_string());
  if (!n) node.fail("expected a number of tokens (8192, 8k, 128K)");
  return *n;
}

}  // namespace

Workload parse_workload(std::string_view text, const std::string& file_name) {
  DocNode root = parse_document(text, file_name);
  root.require_object();
  root.check_keys({"schema", "models"});
  if (const DocNode* s = root.find("schema"); s && s->as_string() != kWorkloadSchema)
    s->fail(fmt::format("expected \"{}\"", kWorkloadSchema));
  Workload w;
  w.file = file_name;
  const DocNode& models = root.at("models").require_array();
  if (models.items().empty()) models.fail("expected at least one model");
  double total = 0;
  for (const DocNode& m : models.items()) {
    m.require_object();
    if (const DocNode* old = m.find("concurrency"))
      old->fail(
          "\"concurrency\" (streams per replica) is gone: give requests_in_flight, the requests "
          "in flight over all of the model's replicas");
    m.check_keys({"model", "quant", "share", "requests_in_flight", "prompt", "output", "context"});
    WorkloadEntry e;
    e.where = m.where();
    e.model = m.at("model").as_string();
    if (const DocNode* q = m.find("quant")) e.quant = q->as_string();
    if (const DocNode* s = m.find("share")) {
      e.share = s->as_number();
      if (!(e.share > 0)) s->fail("expected a share of the requests above 0 (0.7, 3)");
    }
    if (const DocNode* c = m.find("requests_in_flight")) {
      int64_t v = c->as_int();
      if (v < 1 || v > 4096)
        c->fail("expected requests in flight over the model's replicas, from 1 to 4096");
      e.requests_in_flight = static_cast<int>(v);
    }
    if (const DocNode* p = m.find("prompt")) e.prompt = tokens(*p);
    if (const DocNode* o = m.find("output")) e.output = tokens(*o);
    if (const DocNode* c = m.find("context")) e.context = tokens(*c);
    if (e.context < e.prompt + 1)
      m.fail(fmt::format("context {} must hold the prompt of {} tokens", e.context, e.prompt));
    total += e.share;
    w.models.push_back(std::move(e));
  }
  for (auto& e : w.models)
    e.share /= total;
  return w;
}

}  // namespace meshplan
