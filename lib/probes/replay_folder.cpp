#include "lib/probes/replay_folder.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "lib/core/error.hpp"
#include "lib/remote/redaction.hpp"

namespace meshplan {
namespace {

std::string join_path(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// The host part of a probe file name, or "" when the name is not <host>.<probe>.<ext>.
std::string host_of(const std::string& file) {
  for (const auto& spec : probe_specs()) {
    std::string suffix = std::string(".") + spec.name + "." + spec.ext;
    if (file.size() > suffix.size() &&
        file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0)
      return file.substr(0, file.size() - suffix.size());
  }
  return "";
}

}  // namespace

bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    bool da = std::isdigit(static_cast<unsigned char>(a[i])),
         db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie])))
        ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je])))
        ++je;
      std::string na = a.substr(i, ie - i), nb = b.substr(j, je - j);
      na.erase(0, std::min(na.find_first_not_of('0'), na.size()));
      nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size()));
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  if ((a.size() - i) != (b.size() - j)) return (a.size() - i) < (b.size() - j);
  return a < b;
}

std::string replay_file_name(const std::string& host, const ProbeSpec& spec) {
  return host + "." + spec.name + "." + spec.ext;
}

std::vector<std::string> replay_hosts(const FileSystem& fs, const std::string& dir) {
  if (!fs.is_directory(dir)) throw input_error("--replay {}: not a directory", dir);
  std::set<std::string> hosts;
  for (const auto& file : fs.list_directory(dir)) {
    std::string host = host_of(file);
    if (!host.empty()) hosts.insert(host);
  }
  if (hosts.empty())
    throw input_error(
        "--replay {}: no probe files; expected files named <host>.<probe>.<ext>, e.g. "
        "mac-1.system_profiler.json (see `meshplan discover --help`)",
        dir);
  std::vector<std::string> out(hosts.begin(), hosts.end());
  std::sort(out.begin(), out.end(), natural_less);
  return out;
}

ProbeSet read_replay_probes(const FileSystem& fs, const std::string& dir, const std::string& host) {
  ProbeSet set;
  for (const auto& spec : probe_specs()) {
    std::string path = join_path(dir, replay_file_name(host, spec));
    if (!fs.exists(path)) continue;
    ProbeOutput p;
    p.out = fs.read_file(path);
    set.probes[spec.name] = std::move(p);
  }
  return set;
}

void write_replay_probes(FileSystem& fs, const std::string& dir, const std::string& host,
                         const ProbeSet& probes) {
  fs.make_directories(dir);
  for (const auto& spec : probe_specs()) {
    const ProbeOutput* p = probes.find(spec.name);
    if (!p || p->status != ProbeStatus::kOk) continue;
    fs.write_file_atomic(join_path(dir, replay_file_name(host, spec)),
                         redact_probe_output(spec.name, p->out));
  }
}

}  // namespace meshplan
