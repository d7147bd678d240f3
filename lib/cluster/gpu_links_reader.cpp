#include "lib/cluster/gpu_links_reader.hpp"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

namespace meshplan {
namespace {

// One entry of a GPU link matrix: X, NV<count>, PIX, PXB, PHB, NODE or SYS.
bool gpu_link_entry(std::string_view e) {
  if (e == "X" || e == "PIX" || e == "PXB" || e == "PHB" || e == "NODE" || e == "SYS") return true;
  return e.size() > 2 && e.starts_with("NV") &&
         e.find_first_not_of("0123456789", 2) == std::string_view::npos;
}

}  // namespace

// How a host's GPUs are joined: the matrix `nvidia-smi topo -m` prints (gpu_links), or by hand
// `nvlink: 18` (every pair over 18 NVLinks; NVSwitch boxes too) or `gpu_fabric: nvswitch|pcie`.
void read_gpu_links(const DocNode& n, Host& h) {
  const size_t g = h.gpus.size();
  auto uniform = [&](const std::string& entry) {
    h.gpu_links.assign(g, std::vector<std::string>(g, entry));
    for (size_t i = 0; i < g; ++i)
      h.gpu_links[i][i].assign(1, 'X');  // not = "X": GCC 12 warns falsely (-Wrestrict)
  };
  const DocNode* links = n.find("gpu_links");
  const DocNode* nvlink = n.find("nvlink");
  const DocNode* fabric = n.find("gpu_fabric");
  if ((links != nullptr) + (nvlink != nullptr) + (fabric != nullptr) > 1)
    n.fail("give one of gpu_links, nvlink and gpu_fabric");
  const DocNode* given = links ? links : nvlink ? nvlink : fabric;
  if (given && g < 2)
    given->fail(fmt::format("host {} lists {} GPU{}; GPU links need at least 2", h.name, g,
                            g == 1 ? "" : "s"));
  if (nvlink) {
    int64_t count = nvlink->as_int();
    if (count < 1 || count > 64) nvlink->fail("expected the NVLinks per GPU pair, 1 to 64");
    uniform(fmt::format("NV{}", count));
  } else if (fabric) {
    std::string f = fabric->as_string();
    // NVSwitch gives every pair the full NVLink bandwidth of a GPU: 18 links on H100/H200.
    if (f == "nvswitch")
      uniform("NV18");
    else if (f == "pcie")
      uniform("PHB");
    else
      fabric->fail(fmt::format("expected nvswitch or pcie, got \"{}\"", f));
  } else if (links) {
    const auto& rows = links->require_array().items();
    if (rows.size() != g)
      links->fail(fmt::format("expected {} rows, one per GPU, got {}", g, rows.size()));
    for (size_t a = 0; a < g; ++a) {
      const auto& cols = rows[a].require_array().items();
      if (cols.size() != g)
        rows[a].fail(fmt::format("expected {} entries, one per GPU, got {}", g, cols.size()));
      std::vector<std::string> row;
      for (size_t b = 0; b < g; ++b) {
        std::string e = cols[b].as_string();
        if (!gpu_link_entry(e) || (a == b) != (e == "X"))
          cols[b].fail(fmt::format(
              "expected {} (as nvidia-smi topo -m writes it), got \"{}\"",
              a == b ? "X on the diagonal" : "NV<links>, PIX, PXB, PHB, NODE or SYS", e));
        row.push_back(e);
      }
      h.gpu_links.push_back(std::move(row));
    }
  }
}

}  // namespace meshplan
