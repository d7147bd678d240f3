#include "topologies/mlx_hostfile.hpp"

#include <fmt/format.h>

namespace meshplan {
namespace {

std::vector<std::string> read_strings(const DocNode& n) {
  std::vector<std::string> out;
  for (const auto& item : n.require_array().items())
    out.push_back(item.as_string());
  return out;
}

RdmaCell read_cell(const DocNode& n) {
  if (n.is_null()) return RdmaCell::none();
  if (n.is_string()) return RdmaCell::one(n.text());
  if (n.is_array()) {
    std::vector<std::string> names = read_strings(n);
    if (names.empty())
      n.fail("expected null, a device name or a non-empty list of device names, got an empty list");
    return RdmaCell::many(std::move(names));
  }
  n.fail(fmt::format("expected null, a device name (e.g. \"rdma_en2\") or a list of them, got {}",
                     n.describe_value()));
}

MlxHost read_host(const DocNode& n) {
  n.require_object();
  n.check_keys({"ssh", "ips", "rdma"});
  MlxHost h;
  h.where = n.where();
  h.ssh = n.at("ssh").as_string();
  if (h.ssh.empty()) n.at("ssh").fail("expected an ssh host name, got an empty string");
  if (auto* v = n.find("ips")) h.ips = read_strings(*v);
  if (auto* v = n.find("rdma")) {
    for (const auto& c : v->require_array().items())
      h.rdma.push_back(read_cell(c));
  }
  return h;
}

}  // namespace

MlxHostfile read_mlx_hostfile(const DocNode& root) {
  MlxHostfile f;
  const DocNode* hosts = &root;
  if (root.is_array()) {
    f.bare_array = true;
  } else if (root.is_object()) {
    root.check_keys({"backend", "envs", "hosts"});
    if (auto* b = root.find("backend")) f.backend = b->as_string();
    if (auto* e = root.find("envs")) f.envs = read_strings(*e);
    hosts = &root.at("hosts");
  } else {
    root.fail(
        fmt::format("expected a hostfile: an object {{\"backend\", \"envs\", \"hosts\"}} or a list "
                    "of hosts, got {}",
                    root.describe_value()));
  }
  for (const auto& h : hosts->require_array().items())
    f.hosts.push_back(read_host(h));
  if (f.hosts.empty()) hosts->fail("expected at least one host");
  return f;
}

}  // namespace meshplan
