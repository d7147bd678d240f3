#include "topologies/mlx_hostfile_writer.hpp"

#include <fmt/format.h>

namespace meshplan {
namespace {

std::string pad(int level) {
  return std::string(static_cast<size_t>(level) * 4, ' ');
}

// Python's indented layout of a list whose items are already rendered at `level + 1`.
std::string list(const std::vector<std::string>& items, int level) {
  if (items.empty()) return "[]";
  std::string out = "[\n";
  for (size_t i = 0; i < items.size(); ++i)
    out += pad(level + 1) + items[i] + (i + 1 < items.size() ? ",\n" : "\n");
  return out + pad(level) + "]";
}

std::string strings(const std::vector<std::string>& values, int level) {
  std::vector<std::string> items;
  for (const auto& v : values)
    items.push_back(python_json_string(v));
  return list(items, level);
}

std::string cell(const RdmaCell& c, int level) {
  if (!c.present) return "null";
  if (!c.list && c.devices.size() == 1) return python_json_string(c.devices.front());
  return strings(c.devices, level);
}

std::string compact_cell(const RdmaCell& c) {
  if (!c.present) return "null";
  if (!c.list && c.devices.size() == 1) return python_json_string(c.devices.front());
  std::string out = "[";
  for (size_t i = 0; i < c.devices.size(); ++i)
    out += (i ? ", " : "") + python_json_string(c.devices[i]);
  return out + "]";
}

}  // namespace

std::string python_json_string(std::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      case '\b':
        out += "\\b";
        continue;
      case '\f':
        out += "\\f";
        continue;
      default:
        break;
    }
    if (c < 0x20 || c == 0x7f) {
      out += fmt::format("\\u{:04x}", c);
      continue;
    }
    if (c < 0x80) {
      out += static_cast<char>(c);
      continue;
    }
    // UTF-8 to code point, then \uXXXX (surrogate pairs above U+FFFF) as ensure_ascii does.
    int extra = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
    uint32_t cp = extra == 3 ? c & 0x07 : extra == 2 ? c & 0x0f : extra == 1 ? c & 0x1f : 0xfffd;
    for (int k = 0; k < extra && i + 1 < text.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(text[++i]) & 0x3f);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out += fmt::format("\\u{:04x}\\u{:04x}", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
    } else {
      out += fmt::format("\\u{:04x}", cp);
    }
  }
  return out + "\"";
}

std::string write_mlx_hostfile(const MlxHostfile& f) {
  std::vector<std::string> hosts;
  for (const auto& h : f.hosts) {
    std::vector<std::string> cells;
    for (const auto& c : h.rdma)
      cells.push_back(cell(c, 4));
    hosts.push_back(fmt::format("{{\n{}\"ssh\": {},\n{}\"ips\": {},\n{}\"rdma\": {}\n{}}}", pad(3),
                                python_json_string(h.ssh), pad(3), strings(h.ips, 3), pad(3),
                                list(cells, 3), pad(2)));
  }
  return fmt::format("{{\n{}\"backend\": {},\n{}\"envs\": {},\n{}\"hosts\": {}\n}}", pad(1),
                     python_json_string(f.backend.value_or("")), pad(1), strings(f.envs, 1), pad(1),
                     list(hosts, 1));
}

std::string python_rdma_matrix(const std::vector<MlxHost>& hosts) {
  std::string out = "[";
  for (size_t i = 0; i < hosts.size(); ++i) {
    out += i ? ", [" : "[";
    for (size_t j = 0; j < hosts[i].rdma.size(); ++j)
      out += (j ? ", " : "") + compact_cell(hosts[i].rdma[j]);
    out += "]";
  }
  return out + "]";
}

}  // namespace meshplan
